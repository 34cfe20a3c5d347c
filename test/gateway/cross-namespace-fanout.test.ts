import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { ApiError } from '../../apiserver/status.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { sleep } from '../support/eventually.js';
import { createActiveTenant } from '../support/tenants.js';
import { ApiClient, type WatchStream } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

/**
 * 250 other tenants with 20 namespaces each, a Pod in each: against the tenant's 20 namespaces,
 * 5,000 make a read that grows with the cluster stand out from one that grows with the tenant.
 */
const OTHER_TENANTS = 250;
const NAMESPACES_EACH = 20;
const TENANT = 'fanout';
/** The tenant's own namespaces: the four every tenant gets and 16 more, two Pods in each of those. */
const OWN_NAMESPACES = Array.from({ length: 16 }, (_, i) => `ns${String(i).padStart(2, '0')}`);

/** A metric's value for a label set, from the Prometheus text. */
function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

describe("gateway: a tenant's cross-namespace reads among 250 tenants × 20 namespaces", function () {
  this.timeout(300_000);
  let upstream: DevCluster;
  let gateway: Gateway;
  let remove: (() => Promise<void>)[] = [];
  let tenant: Kubectl;
  let tenantApi: ApiClient;
  let admin: ApiClient;
  const watches: WatchStream[] = [];

  /** Upstream requests and objects read while `fn` runs, from the gateway's metrics. */
  async function upstreamCost(
    fn: () => Promise<void>,
  ): Promise<{ lists: number; watches: number; objects: number; events: number }> {
    const before = (await admin.request('GET', '/metrics')).text;
    await fn();
    const after = (await admin.request('GET', '/metrics')).text;
    const delta = (name: string, labels: string) => metric(after, name, labels) - metric(before, name, labels);
    return {
      lists: delta('paddock_upstream_request_duration_seconds_count', 'cluster="member1",verb="list"'),
      watches: delta('paddock_upstream_request_duration_seconds_count', 'cluster="member1",verb="watch"'),
      objects: delta('paddock_upstream_objects_read_total', 'cluster="member1"'),
      events: delta('paddock_upstream_watch_events_total', 'cluster="member1"'),
    };
  }

  before(async () => {
    const upstreamDir = await makeTempDir('fanout-upstream');
    const gatewayDir = await makeTempDir('fanout-gateway');
    remove = [upstreamDir.remove, gatewayDir.remove];
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: upstreamDir.dir, bookmarkIntervalMs: 300 });
    // Other tenants' namespaces and Pods, laid out as the gateway lays them out, written through
    // the devcluster's registries in-process (5,000 HTTPS requests would only make this slower).
    const namespaces = upstream.api.registryOf('', 'namespaces')!;
    const pods = upstream.api.registryOf('', 'pods')!;
    const serviceAccounts = upstream.api.registryOf('', 'serviceaccounts')!;
    const configMaps = upstream.api.registryOf('', 'configmaps')!;
    const { apiVersion, kind, metadata, data } = await configMaps.get('default', 'kube-root-ca.crt');
    const ensure = (created: Promise<unknown>) =>
      created.catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      });
    const rootCa = { apiVersion, kind, metadata: { name: metadata.name, annotations: metadata.annotations }, data };
    const others = Array.from({ length: OTHER_TENANTS * NAMESPACES_EACH }, (_, i) => ({
      tenant: `o${String(Math.floor(i / NAMESPACES_EACH)).padStart(5, '0')}`,
      n: i % NAMESPACES_EACH,
    }));
    await inParallel(others, 64, async ({ tenant: id, n }) => {
      const ns = `${id}-ns${n}`;
      await namespaces.create('', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { 'kubezoo.io/tenant': id } },
      });
      // What kube-controller-manager puts in a namespace, made here at once rather than after its
      // pass over 5,000 namespaces (a pod is refused until its ServiceAccount exists).
      // (Unless the controllers were first.)
      await ensure(
        serviceAccounts.create(ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
      );
      await ensure(configMaps.create(ns, rootCa));
      await pods.create(ns, pod('web'));
    });
    expect((await pods.objects.list('', {})).objects, "the other tenants' Pods upstream").to.have.length(
      OTHER_TENANTS * NAMESPACES_EACH,
    );
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: gatewayDir.dir,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
      // The forwarding path's fan-out is what this measures; reads from the cache are tenant-cache-reads.test.ts's.
      tenantCache: '',
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const created = await createActiveTenant(admin, TENANT, gatewayDir.dir);
    tenant = await Kubectl.create(created.kubeconfigPath);
    tenantApi = await ApiClient.load(created.kubeconfigPath);
    await inParallel(OWN_NAMESPACES, 8, async (ns) => {
      expect(
        (
          await tenantApi.request('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: ns },
          })
        ).status,
      ).to.equal(201);
      for (const name of ['one', 'two'])
        expect((await tenantApi.request('POST', `/api/v1/namespaces/${ns}/pods`, pod(name))).status).to.equal(201);
    });
  });
  after(async () => {
    for (const watch of watches) watch.close();
    admin?.close();
    tenantApi?.close();
    await tenant?.dispose();
    await gateway?.stop();
    await upstream?.stop();
    for (const r of remove) await r();
  });

  it("get pods -A reads only the tenant's 20 namespaces upstream, not the 5,000 others", async () => {
    let out = '';
    const cost = await upstreamCost(async () => {
      out = await tenant.ok(['get', 'pods', '-A', '-o', 'name']);
    });
    expect(out.trim().split('\n')).to.have.length(OWN_NAMESPACES.length * 2);
    const clusterPods = OTHER_TENANTS * NAMESPACES_EACH;
    // The namespace index reads the cluster's one shared informer of namespaces, which the tenant
    // spaces' heal has most likely listed by now; until it has, the tenant's namespaces are listed.
    expect(
      cost.lists,
      "one list per namespace, after one of the tenant's namespaces unless the index is in",
    ).to.be.oneOf([20, 1 + 20]);
    const namespacesListed = cost.lists === 1 + 20 ? 20 : 0;
    // 32 Pods read (and the 20 namespaces when listed), against 5,000 namespaces and 5,000 Pods of others'.
    expect(cost.objects, `objects read upstream (the cluster holds ${clusterPods} other tenants' Pods)`).to.equal(
      namespacesListed + OWN_NAMESPACES.length * 2,
    );
  });

  it('once the namespace index is in, get pods -A lists no namespaces; a namespace made a moment ago is in it', async () => {
    let cost = await upstreamCost(async () => {});
    for (let tries = 0; tries < 100; tries++) {
      cost = await upstreamCost(async () => void (await tenantApi.request('GET', '/api/v1/pods')));
      if (cost.lists === 20) break;
      await sleep(100);
    }
    expect(cost, 'the 20 namespaces read at once, their 32 Pods, no namespace list').to.deep.include({
      lists: 20,
      objects: OWN_NAMESPACES.length * 2,
    });
    expect(
      (
        await tenantApi.request('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'fresh' },
        })
      ).status,
    ).to.equal(201);
    expect((await tenantApi.request('POST', '/api/v1/namespaces/fresh/pods', pod('new'))).status).to.equal(201);
    const out = await tenant.ok(['get', 'pods', '-A', '-o', 'name']);
    expect(out.trim().split('\n')).to.have.length(OWN_NAMESPACES.length * 2 + 1);
    expect((await tenantApi.request('DELETE', '/api/v1/namespaces/fresh/pods/new')).status).to.equal(200);
  });

  it('pages across namespaces with --chunk-size, every object once and in order', async () => {
    const table = await tenant.ok(['get', 'pods', '-A', '--chunk-size', '3']);
    const rows = table
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/).slice(0, 2).join('/'));
    expect(rows).to.deep.equal(OWN_NAMESPACES.flatMap((ns) => [`${ns}/one`, `${ns}/two`]));
  });

  it("a watch across namespaces gets every event of the tenant's, including new namespaces', and reads no other tenant's", async () => {
    const namespacesNow = (await tenantApi.request('GET', '/api/v1/namespaces')).body.items.length;
    const listed = await tenantApi.request('GET', '/api/v1/pods?limit=1');
    expect(listed.status).to.equal(200);
    let watch!: WatchStream;
    const cost = await upstreamCost(async () => {
      watch = tenantApi.watch(`/api/v1/pods?watch=1&resourceVersion=${listed.body.metadata.resourceVersion}`);
      watches.push(watch);
      // Another tenant's Pods change meanwhile: none of it may cross the wire to this watch.
      const others = upstream.api.registryOf('', 'pods')!;
      for (let i = 0; i < 50; i++) await others.create(`o00007-ns${i % NAMESPACES_EACH}`, pod(`late${i}`));
      expect((await tenantApi.request('POST', '/api/v1/namespaces/ns03/pods', pod('three'))).status).to.equal(201);
      expect(
        (
          await tenantApi.request('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: 'later' },
          })
        ).status,
      ).to.equal(201);
      expect((await tenantApi.request('POST', '/api/v1/namespaces/later/pods', pod('new'))).status).to.equal(201);
      expect((await tenantApi.request('DELETE', '/api/v1/namespaces/ns05/pods/one')).status).to.equal(200);
      await watch.waitFor((events) => events.some((e) => e.type === 'DELETED'));
    });
    expect(watch.status).to.equal(200);
    const seen = watch.events
      .filter((e) => e.type !== 'BOOKMARK')
      .map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`);
    expect(seen.filter((s) => s.startsWith('ADDED'))).to.deep.equal(['ADDED ns03/three', 'ADDED later/new']);
    expect(seen).to.include('DELETED ns05/one');
    expect(seen.filter((s) => /o00007|late\d/.test(s))).to.deep.equal([]);
    // New namespaces are news from the namespace index, which watches for every tenant at once.
    expect(cost.watches, 'one watch per tenant namespace and one for the namespace made later').to.equal(
      namespacesNow + 1,
    );
    expect(cost.events, "upstream events read: the tenant's own only").to.equal(seen.length);
  });

  it('a streaming list (sendInitialEvents) across namespaces: every Pod once, then one initial-events-end bookmark at or above every initial event', async () => {
    const watch = tenantApi.watch(
      '/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    watches.push(watch);
    await watch.waitFor((events) => events.some((e) => e.type === 'BOOKMARK'));
    // Later bookmarks (the devcluster's carry each namespace's last event) may follow; wait a few intervals.
    await sleep(1000);
    watch.close();
    const endAt = watch.events.findIndex(
      (e) => e.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true',
    );
    expect(endAt, 'the initial-events-end bookmark').to.be.greaterThan(0);
    const initial = watch.events.slice(0, endAt);
    expect(initial.every((e) => e.type === 'ADDED')).to.equal(true);
    const names = initial.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`);
    expect(new Set(names).size).to.equal(names.length);
    expect(names.filter((n) => !n.startsWith('kube-') && n !== 'default')).to.have.length.at.least(
      OWN_NAMESPACES.length * 2 - 1,
    );
    const bookmarks = watch.events.filter((e) => e.type === 'BOOKMARK');
    expect(bookmarks.filter((e) => e.object.metadata.annotations?.['k8s.io/initial-events-end'])).to.have.length(1);
    const revisions = bookmarks.map((e) => BigInt(e.object.metadata.resourceVersion));
    // Every initial event is at or below the first bookmark: resuming from it skips nothing.
    for (const e of initial) expect(BigInt(e.object.metadata.resourceVersion) <= revisions[0]).to.equal(true);
    for (let i = 1; i < revisions.length; i++) expect(revisions[i] > revisions[i - 1]).to.equal(true);
  });

  it("a cross-namespace watch from a compacted resourceVersion ends with one ERROR event (410 Expired), as kube's does", async () => {
    const res = await tenantApi.request('GET', '/api/v1/pods?watch=1&resourceVersion=1&timeoutSeconds=2');
    // kube-apiserver answers a watch from a compacted revision with 200 and one ERROR event.
    expect(res.status).to.equal(200);
    const events = res.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events).to.have.length(1);
    expect(events[0].type).to.equal('ERROR');
    expect(events[0].object).to.include({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(res.text).to.not.match(/fanout-|o0000/);
  });
});
