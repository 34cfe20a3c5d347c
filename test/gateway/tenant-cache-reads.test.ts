/**
 * Tenant reads from the cache, end to end: three gateway replicas on one etcd in front of one
 * devcluster — A and B answer tenants' reads of the default resources from their caches, F
 * forwards every read (`tenantCache: ''`). The real kubectl, @kubernetes/client-node and
 * python3-kubernetes read through B; the metric `paddock_tenant_cache_reads_total` proves which
 * path answered; F gives what forwarding answers, to compare with.
 */
import { CoreV1Api, KubeConfig, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createCertificateAuthority, parseKubeconfig, renderKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { rawTlsRequest } from '../support/raw-tls-request.js';
import { testSeed } from '../support/seed.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const PYTHON_CLIENT = fileURLToPath(new URL('../../../test/support/python-client.py', import.meta.url));
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

/** One tenant's ways in, one per replica. */
interface Reader {
  kubeconfig: Record<'a' | 'b' | 'f', string>;
  kubectl: Record<'a' | 'b' | 'f', Kubectl>;
  api: Record<'a' | 'b' | 'f', ApiClient>;
}

/** A metric of one replica, by name and label set; 0 when it has no such series yet. */
async function gauge(gateway: ApiClient, name: string, labels: string): Promise<number> {
  const text = (await gateway.request('GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** `paddock_tenant_cache_reads_total{verb,answer}` of one replica. */
function cacheReads(gateway: ApiClient, verb: string, answer: string): Promise<number> {
  return gauge(gateway, 'paddock_tenant_cache_reads_total', `verb="${verb}",answer="${answer}"`);
}

describe('gateway: tenant reads from the cache (three replicas on etcd, one forwarding)', function () {
  let etcd: EtcdServer;
  let upstream: DevCluster;
  let dirs: { remove(): Promise<void>; dir: string }[] = [];
  const gateways: Record<'a' | 'b' | 'f', Gateway> = {} as never;
  const admins: Record<'a' | 'b' | 'f', ApiClient> = {} as never;
  let alice: Reader;
  let bobby: Reader;
  let ca: Awaited<ReturnType<typeof createCertificateAuthority>>;

  async function readerFor(kubeconfigText: string, name: string): Promise<Reader> {
    const reader = { kubeconfig: {}, kubectl: {}, api: {} } as Reader;
    for (const replica of ['a', 'b', 'f'] as const) {
      const text = kubeconfigText.replace(/server: \S+/, `server: ${gateways[replica].url}`);
      const file = `${dirs[0].dir}/${name}-${replica}.kubeconfig`;
      await writeFile(file, text, { mode: 0o600 });
      reader.kubeconfig[replica] = file;
      reader.kubectl[replica] = await Kubectl.create(file);
      reader.api[replica] = await ApiClient.load(file);
    }
    return reader;
  }

  before(async function () {
    this.timeout(120_000);
    etcd = await startEtcd();
    const work = await makeTempDir('tenant-cache');
    dirs.push(work);
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    const upstreams = [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }];
    ca = await createCertificateAuthority({ commonName: 'paddock-test-ca' });
    await writeFile(`${work.dir}/ca.crt`, ca.certPem);
    await writeFile(`${work.dir}/ca.key`, ca.keyPem, { mode: 0o600 });
    for (const replica of ['a', 'b', 'f'] as const) {
      gateways[replica] = await startGateway({
        listen: '127.0.0.1:0',
        dataDir: `${work.dir}/gateway-${replica}`,
        etcdEndpoints: [etcd.endpoint],
        caCert: `${work.dir}/ca.crt`,
        caKey: `${work.dir}/ca.key`,
        upstreams,
        ...(replica === 'f' ? { tenantCache: '' } : {}),
      });
      admins[replica] = await ApiClient.load(gateways[replica].adminKubeconfigPath);
    }
    const created = [
      await createActiveTenant(admins.a, 'alice1', work.dir),
      await createActiveTenant(admins.a, 'bobby2', work.dir),
    ];
    alice = await readerFor(created[0].kubeconfig, 'alice1');
    bobby = await readerFor(created[1].kubeconfig, 'bobby2');
    // Both caching replicas have listed the tenants' resources.
    for (const replica of ['a', 'b'] as const)
      await waitUntil(
        `replica ${replica} caches configmaps`,
        async () =>
          /paddock_cache_objects\{cluster="member1",resource="configmaps"\}/.test(
            (await admins[replica].request('GET', '/metrics')).text,
          ),
        { timeout: 60_000, interval: 100 },
      );
    await alice.kubectl.a.ok(['create', 'namespace', 'apps']);
    await alice.kubectl.a.ok(['create', 'namespace', 'web']);
    for (const [ns, name, labels] of [
      ['apps', 'one', 'tier=front'],
      ['apps', 'two', 'tier=back'],
      ['web', 'three', 'tier=front'],
      ['default', 'four', 'tier=back'],
    ]) {
      await alice.kubectl.a.ok(['create', 'configmap', name, '-n', ns, `--from-literal=name=${name}`]);
      await alice.kubectl.a.ok(['label', 'configmap', name, '-n', ns, labels]);
    }
    await bobby.kubectl.a.ok(['create', 'configmap', 'neighbour', '--from-literal=secret=bobby']);
  });

  after(async () => {
    for (const reader of [alice, bobby])
      for (const replica of ['a', 'b', 'f'] as const) {
        await reader?.kubectl[replica].dispose();
        reader?.api[replica].close();
      }
    for (const replica of ['a', 'b', 'f'] as const) {
      admins[replica]?.close();
      await gateways[replica]?.stop();
    }
    await upstream?.stop();
    await etcd?.stop();
    for (const dir of dirs) await dir.remove();
    dirs = [];
  });

  it('kubectl gets, lists and watches from the cache, answering what forwarding answers', async () => {
    const before = {
      list: await cacheReads(admins.b, 'list', 'cache'),
      get: await cacheReads(admins.b, 'get', 'cache'),
    };
    const viaCache = JSON.parse(await alice.kubectl.b.ok(['get', 'configmaps', '-n', 'apps', '-o', 'json']));
    const forwarded = JSON.parse(await alice.kubectl.f.ok(['get', 'configmaps', '-n', 'apps', '-o', 'json']));
    expect(viaCache.items.map((i: any) => i.metadata.name)).to.include.members(['one', 'two']);
    expect(viaCache.items).to.deep.equal(forwarded.items);
    const one = JSON.parse(await alice.kubectl.b.ok(['get', 'configmap', 'one', '-n', 'apps', '-o', 'json']));
    expect(one).to.deep.equal(
      JSON.parse(await alice.kubectl.f.ok(['get', 'configmap', 'one', '-n', 'apps', '-o', 'json'])),
    );
    expect(one.metadata.labels).to.deep.equal({ tier: 'front' });
    // The Table kubectl prints, across the tenant's namespaces, with a selector.
    const table = await alice.kubectl.b.ok(['get', 'configmaps', '-A', '-l', 'tier=front']);
    expect(table.split('\n')[0]).to.match(/^NAMESPACE\s+NAME\s+DATA\s+AGE$/);
    expect(
      table
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => l.split(/\s+/).slice(0, 3).join(' ')),
    ).to.deep.equal(['apps one 1', 'web three 1']);
    expect(await cacheReads(admins.b, 'list', 'cache')).to.be.at.least(before.list + 2);
    expect(await cacheReads(admins.b, 'get', 'cache')).to.be.at.least(before.get + 1);
    expect(await cacheReads(admins.f, 'list', 'cache'), 'the forwarding replica never reads its cache').to.equal(0);
    // Another tenant's objects never show, and neither do its names.
    expect(table).not.to.contain('neighbour');
    expect(await bobby.kubectl.b.ok(['get', 'configmaps', '-A', '-o', 'name'])).to.not.match(/one|two|three|four/);

    const watchesBefore = await cacheReads(admins.b, 'watch', 'cache');
    const watching = alice.kubectl.b.start(['get', 'configmaps', '-n', 'web', '-w', '-o', 'name']);
    try {
      await watching.waitFor(/configmap\/three/);
      await alice.kubectl.a.ok(['create', 'configmap', 'watched', '-n', 'web']);
      await watching.waitFor(/configmap\/watched/);
    } finally {
      await watching.stop();
    }
    expect(await cacheReads(admins.b, 'watch', 'cache')).to.equal(watchesBefore + 1);
  });

  it('@kubernetes/client-node lists, gets and watches from the cache', async () => {
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(alice.kubeconfig.b);
    const core = kubeconfig.makeApiClient(CoreV1Api);
    const forwardedConfig = new KubeConfig();
    forwardedConfig.loadFromFile(alice.kubeconfig.f);
    const forwardedCore = forwardedConfig.makeApiClient(CoreV1Api);
    const before = await cacheReads(admins.b, 'list', 'cache');
    const listed = await core.listConfigMapForAllNamespaces({ labelSelector: 'tier' });
    const forwarded = await forwardedCore.listConfigMapForAllNamespaces({ labelSelector: 'tier' });
    const names = (items: V1ConfigMap[]) => items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`).sort();
    expect(names(listed.items)).to.deep.equal(['apps/one', 'apps/two', 'default/four', 'web/three']);
    expect(names(listed.items)).to.deep.equal(names(forwarded.items));
    expect(await cacheReads(admins.b, 'list', 'cache')).to.equal(before + 1);
    const read = await core.readNamespacedConfigMap({ name: 'two', namespace: 'apps' });
    expect(read.data).to.deep.equal({ name: 'two' });

    const events: string[] = [];
    const watch = await new Watch(kubeconfig).watch(
      '/api/v1/namespaces/apps/configmaps',
      { resourceVersion: listed.metadata!.resourceVersion },
      (type: string, object: V1ConfigMap) => events.push(`${type} ${object.metadata!.name}`),
      () => {},
    );
    try {
      await alice.kubectl.a.ok(['create', 'configmap', 'from-node', '-n', 'apps']);
      await alice.kubectl.a.ok(['delete', 'configmap', 'from-node', '-n', 'apps']);
      await eventually(
        () => events,
        (seen) => expect(seen).to.deep.equal(['ADDED from-node', 'DELETED from-node']),
      );
    } finally {
      watch.abort();
    }
  });

  it('python3-kubernetes lists, creates, watches and deletes, its reads from the cache', async function () {
    this.timeout(60_000);
    const before = {
      list: await cacheReads(admins.b, 'list', 'cache'),
      watch: await cacheReads(admins.b, 'watch', 'cache'),
    };
    const { stdout } = await run(PYTHON, [PYTHON_CLIENT, alice.kubeconfig.b, 'web', 'from-python', 'python'], {
      timeout: 50_000,
    });
    const result = JSON.parse(stdout);
    expect(result.listed).to.include('three');
    expect(await cacheReads(admins.b, 'list', 'cache')).to.be.greaterThan(before.list);
    expect(await cacheReads(admins.b, 'watch', 'cache')).to.be.greaterThan(before.watch);
  });

  it('a write through replica A is read at once through replica B, from its cache', async () => {
    const path = '/api/v1/namespaces/apps/configmaps';
    const before = {
      cache: await cacheReads(admins.b, 'get', 'cache'),
      forwarded: await cacheReads(admins.b, 'get', 'forwarded'),
    };
    for (let i = 0; i < 20; i++) {
      const name = `ryw-${i}`;
      const created = await alice.api.a.request('POST', path, { metadata: { name }, data: { round: String(i) } });
      expect(created.status, created.text).to.equal(201);
      const read = await alice.api.b.request('GET', `${path}/${name}`);
      expect(read.status, read.text).to.equal(200);
      expect(read.body.data).to.deep.equal({ round: String(i) });
      const updated = await alice.api.a.request('PUT', `${path}/${name}`, {
        ...created.body,
        data: { round: `${i}b` },
      });
      expect(updated.status, updated.text).to.equal(200);
      expect((await alice.api.b.request('GET', `${path}/${name}`)).body.data).to.deep.equal({ round: `${i}b` });
      expect((await alice.api.a.request('DELETE', `${path}/${name}`)).status).to.equal(200);
      expect((await alice.api.b.request('GET', `${path}/${name}`)).status).to.equal(404);
    }
    // Each read was answered from the cache, or — when the store could not be shown to have reached
    // the cluster's revision in time (the devcluster's node Lease moves it every 10 s) — by the cluster.
    const cached = (await cacheReads(admins.b, 'get', 'cache')) - before.cache;
    const forwarded = (await cacheReads(admins.b, 'get', 'forwarded')) - before.forwarded;
    expect(cached + forwarded).to.equal(60);
    expect(cached, `${forwarded} of 60 forwarded`).to.be.greaterThan(30);
  });

  it('one watch set per tenant and request: each event converted once, written to every watcher of the set', async () => {
    const watchers = Array.from({ length: 12 }, () =>
      alice.api.b.watch('/api/v1/namespaces/apps/configmaps?watch=1&resourceVersion=0&labelSelector=shared%3Dyes'),
    );
    const other = bobby.api.b.watch(
      '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&labelSelector=shared%3Dyes',
    );
    try {
      await eventually(
        () => gauge(admins.b, 'paddock_tenant_watch_sets', 'count="watchers"'),
        (n) => expect(n).to.be.at.least(13),
      );
      expect(await gauge(admins.b, 'paddock_tenant_watch_sets', 'count="sets"')).to.be.at.least(2);
      await alice.kubectl.a.ok(['create', 'configmap', 'shared', '-n', 'apps']);
      await alice.kubectl.a.ok(['label', 'configmap', 'shared', '-n', 'apps', 'shared=yes']);
      for (const watcher of watchers)
        await watcher.waitFor((events) =>
          events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'shared'),
        );
      for (const watcher of watchers) {
        expect(
          watcher.events.map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`),
        ).to.deep.equal(['ADDED apps/shared']);
      }
      expect(other.events, "bobby's watch of its own default namespace").to.deep.equal([]);
    } finally {
      for (const watcher of [...watchers, other]) watcher.close();
    }
    await eventually(
      () => gauge(admins.b, 'paddock_tenant_watch_sets', 'count="watchers"'),
      (n) => expect(n).to.equal(0),
    );
  });

  it('a RoleBinding removed takes the access away from the cache path', async () => {
    const issued = await ca.issueClientCertificate({
      commonName: 'alice1-bob',
      organizationalUnits: ['alice1'],
      organizations: ['dev'],
    });
    const tenant = (await admins.a.request('GET', `${TENANTS}/alice1`)).body;
    tenant.status.certificateSerials = [...tenant.status.certificateSerials, issued.serial];
    const put = await admins.a.request('PUT', `${TENANTS}/alice1/status`, tenant);
    expect(put.status, put.text).to.equal(200);
    const aliceConfig = parseKubeconfig(await readFile(alice.kubeconfig.b, 'utf8'));
    const bobFile = `${dirs[0].dir}/alice1-bob.kubeconfig`;
    await writeFile(
      bobFile,
      renderKubeconfig({
        clusterName: 'paddock',
        server: aliceConfig.server,
        caPem: aliceConfig.caPem,
        userName: 'bob',
        certPem: issued.certPem,
        keyPem: issued.keyPem,
        contextName: 'bob@paddock',
      }),
      { mode: 0o600 },
    );
    const bob = await Kubectl.create(bobFile);
    try {
      await eventually(
        () => bob.run(['get', 'configmaps', '-n', 'apps', '-o', 'name']),
        (result) => expect(result.stderr).to.contain('forbidden'),
      );
      await alice.kubectl.a.ok([
        'create',
        'role',
        'cm-reader',
        '--verb=get,list',
        '--resource=configmaps',
        '-n',
        'apps',
      ]);
      await alice.kubectl.a.ok(['create', 'rolebinding', 'bob-reads', '--role=cm-reader', '--user=bob', '-n', 'apps']);
      const before = await cacheReads(admins.b, 'list', 'cache');
      // A replica whose RBAC watch has not yet seen the binding still holds its denial: the read is
      // forwarded (and allowed upstream) until the watch drops it; from then on it comes from the cache.
      await eventually(
        async () => ({
          result: await bob.run(['get', 'configmaps', '-n', 'apps', '-o', 'name']),
          reads: await cacheReads(admins.b, 'list', 'cache'),
        }),
        ({ result, reads }) => {
          expect(result.stdout).to.contain('configmap/one');
          expect(reads, 'allowed reads come from the cache').to.be.greaterThan(before);
        },
      );
      await alice.kubectl.a.ok(['delete', 'rolebinding', 'bob-reads', '-n', 'apps']);
      const denied = await cacheReads(admins.b, 'list', 'denied');
      await eventually(
        () => bob.run(['get', 'configmaps', '-n', 'apps', '-o', 'name']),
        (result) =>
          expect(result.stderr, result.stderr).to.contain(
            'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "apps"',
          ),
      );
      expect(await cacheReads(admins.b, 'list', 'denied')).to.be.greaterThan(denied);
    } finally {
      await bob.dispose();
    }
  });

  it("never answers one tenant with another's objects: other namespaces by name or field selector, any resourceVersion", async () => {
    for (const query of ['', '?resourceVersion=0']) {
      const byField = await bobby.api.b.request(
        'GET',
        `/api/v1/configmaps${query ? `${query}&` : '?'}fieldSelector=metadata.namespace%3Dalice1-apps`,
      );
      expect(byField.status, byField.text).to.equal(200);
      expect(byField.body.items, 'a field selector naming the other tenant namespace').to.deep.equal([]);
      const named = await bobby.api.b.request('GET', `/api/v1/namespaces/alice1-apps/configmaps/one${query}`);
      expect(named.status, named.text).to.be.oneOf([403, 404]);
      expect(named.body.kind, named.text).to.equal('Status');
      expect(named.text).not.to.contain('alice1');
      const everywhere = await bobby.api.b.request('GET', `/api/v1/configmaps${query}`);
      expect(everywhere.text).not.to.match(/alice1|"one"|"two"|"three"|"four"/);
    }
    const watch = bobby.api.b.watch('/api/v1/configmaps?watch=1&resourceVersion=0');
    try {
      await alice.kubectl.a.ok(['create', 'configmap', 'unseen', '-n', 'apps']);
      await alice.kubectl.a.ok(['delete', 'configmap', 'unseen', '-n', 'apps']);
      await bobby.kubectl.a.ok(['create', 'configmap', 'seen']);
      await watch.waitFor((events) => events.some((e) => e.object.metadata.name === 'seen'));
      expect(watch.events.map((e) => e.object.metadata.name)).to.not.include('unseen');
      expect(JSON.stringify(watch.events)).not.to.contain('alice1');
    } finally {
      watch.close();
    }
  });

  it('property: random objects and selectors answer the same from the cache as forwarded', async function () {
    this.timeout(120_000);
    const seed = testSeed(import.meta.url);
    const next = seed.random();
    const random = { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] };
    const namespaces = ['p1', 'p2', 'p3'];
    for (const ns of namespaces) await alice.kubectl.a.ok(['create', 'namespace', ns]);
    const colours = ['red', 'green', 'blue'];
    const sizes = ['s', 'm'];
    for (let i = 0; i < 40; i++) {
      const ns = random.pick(namespaces);
      const labels: Record<string, string> = {};
      if (random.next() < 0.7) labels.colour = random.pick(colours);
      if (random.next() < 0.5) labels.size = random.pick(sizes);
      const created = await alice.api.a.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: `obj-${i}`, labels },
        data: { i: String(i) },
      });
      expect(created.status, created.text).to.equal(201);
    }
    const selectors = [
      '',
      'colour=red',
      'colour!=red',
      'colour in (green,blue)',
      '!size',
      'size,colour notin (blue)',
      'colour=red,size=m',
    ];
    const fieldSelectors = ['', 'metadata.name=obj-3', 'metadata.name!=obj-5'];
    const list = async (api: ApiClient, path: string) => {
      const res = await api.request('GET', path);
      expect(res.status, res.text).to.equal(200);
      return res.body;
    };
    const key = (item: any) => `${item.metadata.namespace}/${item.metadata.name}`;
    for (let round = 0; round < 30; round++) {
      const query = new URLSearchParams();
      const selector = random.pick(selectors);
      if (selector) query.set('labelSelector', selector);
      const field = random.pick(fieldSelectors);
      if (field) query.set('fieldSelector', field);
      const everywhere = random.next() < 0.4;
      const path = everywhere ? '/api/v1/configmaps' : `/api/v1/namespaces/${random.pick(namespaces)}/configmaps`;
      const url = `${path}?${query.toString()}`;
      const cached = await list(alice.api.b, url);
      const forwarded = await list(alice.api.f, url);
      const what = `${url} (${seed.note})`;
      if (everywhere) {
        // kube's order is by key (namespace/name); the forwarding fan-out goes namespace by namespace.
        expect(cached.items.map(key), what).to.deep.equal([...cached.items.map(key)].sort());
        expect(
          [...cached.items].sort((a: any, b: any) => key(a).localeCompare(key(b))),
          what,
        ).to.deep.equal([...forwarded.items].sort((a: any, b: any) => key(a).localeCompare(key(b))));
      } else {
        expect(cached.items, what).to.deep.equal(forwarded.items);
      }
      // Paged from the cache, the pages add up to the whole list.
      const limit = 1 + Math.floor(random.next() * 5);
      const pages: any[] = [];
      let token = '';
      for (let page = 0; page < 100; page++) {
        const paged = new URLSearchParams(query);
        paged.set('limit', String(limit));
        if (token) paged.set('continue', token);
        const body = await list(alice.api.b, `${path}?${paged.toString()}`);
        expect(body.items.length, what).to.be.at.most(limit);
        pages.push(...body.items);
        token = body.metadata.continue ?? '';
        if (!token) break;
      }
      expect(pages.map(key), `${what} paged by ${limit}`).to.deep.equal(cached.items.map(key));
      const pick = forwarded.items.length ? random.pick(forwarded.items as any[]) : undefined;
      if (pick) {
        const one = `/api/v1/namespaces/${pick.metadata.namespace}/configmaps/${pick.metadata.name}`;
        expect(await list(alice.api.b, one), one).to.deep.equal(await list(alice.api.f, one));
      }
    }
    // A continue token is the tenant's alone.
    const first = await list(alice.api.b, '/api/v1/configmaps?limit=1');
    const stolen = await bobby.api.b.request(
      'GET',
      `/api/v1/configmaps?limit=1&continue=${encodeURIComponent(first.metadata.continue)}`,
    );
    expect(stolen.status, stolen.text).to.equal(400);
  });

  it('a watcher that stops reading is ended once its unsent answer passes the bound; the others go on', async function () {
    this.timeout(120_000);
    const path = '/api/v1/namespaces/web/configmaps?watch=1&resourceVersion=0&labelSelector=bulk%3Dyes';
    const reading = alice.api.b.watch(path);
    const stalled = await rawTlsRequest(
      alice.kubeconfig.b,
      gateways.b.url,
      `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n`,
    );
    stalled.pause();
    try {
      await eventually(
        () => gauge(admins.b, 'paddock_tenant_watch_sets', 'count="watchers"'),
        (n) => expect(n).to.equal(2),
      );
      // 32 MiB of events: past the bound and whatever the kernel buffers between the two.
      const data = 'x'.repeat(512 * 1024);
      for (let i = 0; i < 64; i++) {
        const name = `bulk-${i}`;
        const body = { metadata: { name, labels: { bulk: 'yes' } }, data: { data } };
        const created = await alice.api.a.request('POST', '/api/v1/namespaces/web/configmaps', body);
        expect(created.status, created.text).to.equal(201);
      }
      await eventually(
        () => gauge(admins.b, 'paddock_tenant_watch_sets', 'count="watchers"'),
        (n) => expect(n, 'the stalled watcher is ended, the reading one stays').to.equal(1),
        30_000,
      );
      await reading.waitFor((events) => events.filter((e) => e.type === 'ADDED').length === 64);
      expect(reading.events.map((e) => e.object.metadata.name)).to.deep.equal(
        Array.from({ length: 64 }, (_, i) => `bulk-${i}`),
      );
    } finally {
      stalled.destroy();
      reading.close();
      await alice.kubectl.a.ok(['delete', 'configmaps', '-n', 'web', '-l', 'bulk=yes']);
    }
  });

  it("a resourceVersion that is not a number gets the cluster's 400, for a list and a watch, as forwarding does", async () => {
    for (const query of ['resourceVersion=abc', 'resourceVersion=-5', 'watch=1&resourceVersion=abc&timeoutSeconds=1']) {
      const path = `/api/v1/namespaces/apps/configmaps?${query}`;
      const [cached, forwarded] = await Promise.all([
        alice.api.b.request('GET', path),
        alice.api.f.request('GET', path),
      ]);
      expect([cached.status, cached.body?.reason], query).to.deep.equal([400, 'BadRequest']);
      expect(cached.body?.message, query).to.equal(forwarded.body?.message);
    }
  });

  it('an HTTP/1.0 watch gets its events as plain lines, without chunked framing', async () => {
    const socket = await rawTlsRequest(
      alice.kubeconfig.b,
      gateways.b.url,
      'GET /api/v1/namespaces/apps/configmaps?watch=1&resourceVersion=0&labelSelector=tier%3Dfront HTTP/1.0\r\nHost: localhost\r\n\r\n',
    );
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    try {
      await waitUntil('the first event', async () => text.includes('\r\n\r\n{'), { timeout: 10_000, interval: 20 });
      await alice.kubectl.a.ok(['create', 'configmap', 'plain', '-n', 'apps']);
      await alice.kubectl.a.ok(['label', 'configmap', 'plain', '-n', 'apps', 'tier=front']);
      await waitUntil('the label event', async () => text.includes('"name":"plain"'), {
        timeout: 10_000,
        interval: 20,
      });
      const [head, body] = text.split('\r\n\r\n');
      expect(head).to.match(/^HTTP\/1\.1 200 OK\r\n/);
      expect(head.toLowerCase()).not.to.include('transfer-encoding');
      const events = body
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(['ADDED one', 'ADDED plain']);
    } finally {
      socket.destroy();
      await alice.kubectl.a.ok(['delete', 'configmap', 'plain', '-n', 'apps']);
    }
  });

  it('a watch from a version the cluster reached but the store has not is served from the cache at once, without a relist, from N on', async () => {
    const relists = () => gauge(admins.b, 'paddock_cache_relists_total', 'cluster="member1",resource="configmaps"');
    const watchesFromCache = () => cacheReads(admins.b, 'watch', 'cache');
    // A write of another resource moves the cluster's revision past the ConfigMaps' last event.
    await alice.kubectl.a.ok(['create', 'namespace', 'moved']);
    const listed = await alice.api.f.request('GET', '/api/v1/namespaces/apps/configmaps');
    const n: string = JSON.parse(listed.text).metadata.resourceVersion;
    const [relistsBefore, watchesBefore] = [await relists(), await watchesFromCache()];
    const watch = alice.api.b.watch(`/api/v1/namespaces/apps/configmaps?watch=1&resourceVersion=${n}`);
    try {
      await eventually(watchesFromCache, (count) => expect(count).to.equal(watchesBefore + 1));
      await alice.kubectl.a.ok(['create', 'configmap', 'after-n', '-n', 'apps']);
      await watch.waitFor((events) => events.some((e) => e.object.metadata.name === 'after-n'));
      expect(watch.events.map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(['ADDED after-n']);
      expect(BigInt(watch.events[0].object.metadata.resourceVersion) > BigInt(n), 'after N').to.equal(true);
      expect(await relists(), 'the store was not listed again for the watch').to.equal(relistsBefore);
    } finally {
      watch.close();
      await alice.kubectl.a.ok(['delete', 'configmap', 'after-n', '-n', 'apps']);
      await alice.kubectl.a.ok(['delete', 'namespace', 'moved', '--wait=false']);
    }
  });
});
