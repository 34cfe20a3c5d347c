/**
 * `paddock_upstream_watches` against what the cluster counts: with the gateway the devcluster's
 * only client, the gateway's open watches per resource are the devcluster's
 * `apiserver_longrunning_requests` (verb WATCH), at rest (the search cache, the tenant cache and
 * failover on) and with a tenant's forwarded watch open and then closed. Prints the watches one
 * replica holds per resource (issue 32 wants one per cluster and resource).
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

/** One replica's open watches per resource, for the next engineer (issue 32). */
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

  it("counts, per resource, the watches the cluster counts for it, and prints one replica's", async () => {
    await waitUntil('the gateway has watches open on member1', async () => (await bothSides()).gateway.size > 0);
    await eventually(bothSides, (both) => expect([...both.gateway]).to.deep.equal([...both.cluster]));
    printWatches('no tenant', (await bothSides()).gateway);
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
      await eventually(bothSides, (both) => expect([...both.gateway]).to.deep.equal([...both.cluster]));
      const atRest = (await bothSides()).gateway;
      printWatches('one tenant, after a cached read and one across namespaces', atRest);
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
