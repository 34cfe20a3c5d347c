/**
 * One list and watch per cluster and resource per replica (issue 32): with the search cache, the
 * tenant cache and failover on, and the gateway the devcluster's only client, the devcluster's
 * `apiserver_longrunning_requests` (verb WATCH) shows exactly one watch of each resource, at rest
 * and after tenants with objects of their own read across namespaces and hold watches the cache
 * serves; and `paddock_upstream_watches` counts, per resource, what the cluster counts, a
 * tenant's forwarded watch included while it is open.
 */
import { expect } from 'chai';
import type { DevCluster } from '../../devcluster/devcluster.js';
import { startDevCluster } from '../../devcluster/devcluster.js';
import type { Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { startFailoverGateway } from '../support/failover-gateway.js';
import { samples, sumBy } from '../support/metric-samples.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

/** `<plural>` or `<plural>.<group>`, as the gateway labels a resource. */
const resourceLabel = (labels: Record<string, string>) =>
  labels.group ? `${labels.resource}.${labels.group}` : labels.resource;

/** One replica's open watches per resource, for the next engineer. */
function printWatches(when: string, counts: Map<string, number>): void {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  console.log(
    `      one replica's watches on member1 (search cache, tenant cache, failover on; ${when}), ${total} in all:`,
  );
  for (const [resource, n] of counts) console.log(`        ${resource}: ${n}`);
}

describe('gateway: its upstream watches, counted on both sides', function () {
  this.timeout(90_000);
  let work: Awaited<ReturnType<typeof makeTempDir>>;
  let member: DevCluster;
  let memberAdmin: ApiClient;
  let gateway: Gateway;
  let admin: ApiClient;

  before(async () => {
    work = await makeTempDir('upstream-watches');
    member = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: `${work.dir}/member1` });
    memberAdmin = await ApiClient.load(member.kubeconfigPath);
    ({ gateway, admin } = await startFailoverGateway(`${work.dir}/gateway`, { member1: member }));
  });

  after(async () => {
    admin?.close();
    memberAdmin?.close();
    await gateway?.stop();
    await member?.stop();
    await work?.remove();
  });

  /** Both sides' open watches per resource: the gateway's on member1, the devcluster's WATCHes. */
  async function bothSides(): Promise<{ gateway: Map<string, number>; cluster: Map<string, number> }> {
    const [ours, theirs] = await Promise.all([
      admin.request('GET', '/metrics'),
      memberAdmin.request('GET', '/metrics'),
    ]);
    expect(ours.status, ours.text).to.equal(200);
    expect(theirs.status, theirs.text).to.equal(200);
    const drop0 = (m: Map<string, number>) => new Map([...m].filter(([, n]) => n !== 0).sort());
    return {
      gateway: drop0(sumBy(samples(ours.text), 'paddock_upstream_watches', (l) => l.resource, { cluster: 'member1' })),
      cluster: drop0(sumBy(samples(theirs.text), 'apiserver_longrunning_requests', resourceLabel, { verb: 'WATCH' })),
    };
  }

  /** Every resource watched once: the cluster's counts, and the gateway's the same. */
  const oneWatchEach = (both: Awaited<ReturnType<typeof bothSides>>) => {
    expect(
      [...both.cluster].filter(([, n]) => n !== 1),
      'resources watched more than once',
    ).to.deep.equal([]);
    expect([...both.gateway]).to.deep.equal([...both.cluster]);
  };

  it('holds one watch per resource at rest, as the cluster counts them', async () => {
    await waitUntil('the gateway has watches open on member1', async () => (await bothSides()).gateway.size > 0);
    await eventually(bothSides, oneWatchEach);
    printWatches('no tenant', (await bothSides()).gateway);
  });

  it('holds one watch per resource with tenants reading across namespaces and watching from the cache', async () => {
    const tenants = await Promise.all(
      ['uwcccc', 'uwdddd'].map(async (id) => {
        const { kubeconfigPath } = await createActiveTenant(admin, id, work.dir);
        return ApiClient.load(kubeconfigPath);
      }),
    );
    const watches: ReturnType<ApiClient['watch']>[] = [];
    try {
      for (const tenant of tenants) {
        const made = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: 'mine' },
          data: { a: '1' },
        });
        expect(made.status, made.text).to.equal(201);
        // Cached reads (the RBAC change feed follows), reads across namespaces (the namespace index).
        for (const path of ['/api/v1/namespaces/default/configmaps', '/api/v1/configmaps', '/api/v1/endpoints']) {
          const read = await tenant.request('GET', path);
          expect(read.status, read.text).to.equal(200);
        }
        // Watches of cached resources, in a namespace and across them, from their list's version as
        // kubectl's `get -w`: served from the cache.
        for (const path of ['/api/v1/namespaces/default/configmaps', '/api/v1/pods']) {
          const list = await tenant.request('GET', path);
          expect(list.status, list.text).to.equal(200);
          const watch = tenant.watch(`${path}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
          watches.push(watch);
          await waitUntil(`the watch ${path} answered`, () => watch.status !== 0);
          expect(watch.status, path).to.equal(200);
        }
      }
      await eventually(bothSides, oneWatchEach);
      printWatches('two tenants with objects, reads across namespaces and cached watches', (await bothSides()).gateway);
    } finally {
      for (const watch of watches) watch.close();
      for (const tenant of tenants) tenant.close();
    }
  });

  it("counts a tenant's forwarded watch on both sides while it is open, and not once it is closed", async () => {
    const { kubeconfigPath } = await createActiveTenant(admin, 'uwaaaa', work.dir);
    const tenant = await ApiClient.load(kubeconfigPath);
    try {
      // A cached read (the RBAC change feed follows) and one across namespaces (the namespace index).
      for (const path of ['/api/v1/namespaces/default/configmaps', '/api/v1/endpoints']) {
        const read = await tenant.request('GET', path);
        expect(read.status, read.text).to.equal(200);
      }
      await eventually(bothSides, oneWatchEach);
      const atRest = (await bothSides()).gateway;
      const before = atRest.get('endpoints') ?? 0;
      // Endpoints are not in the tenant cache: the watch is forwarded to the cluster.
      const stream = tenant.watch('/api/v1/namespaces/default/endpoints?watch=1');
      await waitUntil('the watch answered', () => stream.status === 200);
      await eventually(bothSides, (both) => {
        expect(both.gateway.get('endpoints')).to.equal(before + 1);
        expect([...both.gateway]).to.deep.equal([...both.cluster]);
      });
      stream.close();
      await eventually(bothSides, (both) => {
        expect(both.gateway.get('endpoints') ?? 0).to.equal(before);
        expect([...both.gateway]).to.deep.equal([...both.cluster]);
      });
    } finally {
      tenant.close();
    }
  });
});
