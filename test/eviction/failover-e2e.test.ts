/**
 * Failover end to end: three devclusters (member1 a process of its own), 30 tenants on member1,
 * member1's process killed. Ready turns
 * False with Karmada's reason and taints; with an admin's NoExecute taint (`paddock cluster
 * taint`) the taint manager moves the tenants at the set rate — none at rate 0, all once a rate
 * is set — each with its objects (custom ones too) replayed on member2 or member3, where kubectl finds them; open
 * watches end with 410; Karmada's metrics say what happened; member1 back, the tenants' spaces
 * there are purged by purge mode (Never keeps its own).
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, sleep, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startDevclusterProcess, stopProcess, type ServerProcess } from '../../bench/harness/processes.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';
import { exampleCrd } from '../support/crd-fixture.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
type Json = Record<string, any>;
const TENANT_COUNT = 30;
const RATE = 5;

const ids = Array.from({ length: TENANT_COUNT }, (_, i) => `fo${String(i).padStart(4, '0')}`);
/** The last two tenants choose their purge mode; the others take the gateway's (Gracefully). */
const DIRECTLY = ids[TENANT_COUNT - 2];
const NEVER = ids[TENANT_COUNT - 1];
/** Tenants with custom resources of their own: a namespaced Widget and a cluster-scoped Gadget. */
const WITH_CUSTOM = ids.slice(0, 4);

describe('eviction: tenants move off a failed cluster at the set rate, with their objects (three devclusters)', function () {
  this.timeout(240_000);
  let work: { dir: string; remove(): Promise<void> };
  const members = new Map<string, DevCluster>();
  let member1: ServerProcess;
  let member1Port: string;
  let gateway: Gateway;
  let admin: ApiClient;
  const tenants = new Map<string, { api: ApiClient; kubeconfigPath: string }>();

  const startMember = (name: string) =>
    startDevCluster({ name, listen: '127.0.0.1:0', dataDir: `${work.dir}/${name}` });
  const metric = async (name: string, labels: string) => {
    const line = (await admin.request('GET', '/metrics')).text
      .split('\n')
      .find((l) => l.startsWith(`${name}{${labels}} `));
    return line ? Number(line.split(' ').at(-1)) : undefined;
  };
  const clusterOf = async (id: string) => (await admin.request('GET', `${TENANTS}/${id}`)).body?.status?.cluster;
  const placements = async () => Promise.all(ids.map(clusterOf));
  const setTaints = async (cluster: string, change: (taints: any[]) => any[]) => {
    for (;;) {
      const current = (await admin.request('GET', `${CLUSTERS}/${cluster}`)).body;
      current.spec.taints = change(current.spec.taints ?? []);
      const res = await admin.request('PUT', `${CLUSTERS}/${cluster}`, current);
      if (res.status === 200) return;
      if (res.status !== 409) throw new Error(`tainting ${cluster}: ${res.status} ${res.text}`);
    }
  };
  const ready = async (cluster: string) =>
    ((await admin.request('GET', `${CLUSTERS}/${cluster}`)).body?.status?.conditions ?? []).find(
      (c: { type: string }) => c.type === 'Ready',
    );

  before(async function () {
    work = await makeTempDir('failover');
    member1 = await startDevclusterProcess(`${work.dir}/member1`);
    member1Port = new URL(member1.url).port;
    for (const name of ['member2', 'member3']) members.set(name, await startMember(name));
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [
        { name: 'member1', kubeconfig: await readFile(member1.kubeconfigPath, 'utf8') },
        ...(await Promise.all(
          [...members].map(async ([name, m]) => ({ name, kubeconfig: await readFile(m.kubeconfigPath, 'utf8') })),
        )),
      ],
      clusterStatusUpdateFrequencyMs: 300,
      clusterFailureThresholdMs: 1000,
      clusterSuccessThresholdMs: 1000,
      enableNoExecuteTaintEviction: true,
      eviction: { resourceEvictionRate: 0 },
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    await waitUntil('three Ready clusters', async () => {
      const states = await Promise.all(['member1', 'member2', 'member3'].map(ready));
      return states.every((c) => c?.status === 'True');
    });
    // Every tenant on member1: the others keep new tenants off for now.
    for (const name of ['member2', 'member3'])
      await setTaints(name, (taints) => [...taints, { key: 'setup', effect: 'NoSchedule' }]);
    await Promise.all(
      ids.map(async (id) => {
        const spec =
          id === DIRECTLY
            ? { failover: { purgeMode: 'Directly' } }
            : id === NEVER
              ? { failover: { purgeMode: 'Never' } }
              : undefined;
        const { kubeconfigPath } = await createActiveTenant(admin, id, work.dir, spec);
        const api = await ApiClient.load(kubeconfigPath);
        tenants.set(id, { api, kubeconfigPath });
        for (const [path, body] of [
          ['/api/v1/namespaces', { metadata: { name: 'app' } }],
          ['/api/v1/namespaces/default/configmaps', { metadata: { name: 'settings' }, data: { owner: id } }],
          ['/api/v1/namespaces/app/configmaps', { metadata: { name: 'state' }, data: { step: '1' } }],
          ['/api/v1/namespaces/app/secrets', { metadata: { name: 'token' }, stringData: { token: `t-${id}` } }],
          [
            '/apis/batch/v1/namespaces/app/cronjobs',
            {
              metadata: { name: 'nightly' },
              spec: {
                schedule: '0 0 * * *',
                jobTemplate: {
                  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'op' }] } } },
                },
              },
            },
          ],
          ...(WITH_CUSTOM.includes(id)
            ? ([
                [
                  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
                  exampleCrd('widgets', 'Widget', 'Namespaced'),
                ],
                ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', exampleCrd('gadgets', 'Gadget', 'Cluster')],
                [
                  '/apis/example.com/v1/namespaces/app/widgets',
                  { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, size: id },
                ],
                [
                  '/apis/example.com/v1/gadgets',
                  { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, size: id },
                ],
              ] as const)
            : []),
        ] as const) {
          // RBAC reaches the cluster's authorizer by watch, as kube's does: a grant made a moment ago may not be there yet;
          // nor is a custom resource served the moment its CRD is made.
          let res = await api.request('POST', path, body);
          for (let tries = 0; (res.status === 403 || res.status === 404) && tries < 50; tries++) {
            await sleep(100);
            res = await api.request('POST', path, body);
          }
          expect(res.status, `${id} ${path}: ${res.text}`).to.equal(201);
        }
      }),
    );
    for (const name of ['member2', 'member3'])
      await setTaints(name, (taints) => taints.filter((t: { key: string }) => t.key !== 'setup'));
    // The cache holds what will be replayed: every tenant's five namespaces, and the objects in them.
    await waitUntil(
      'member1 cached',
      async () =>
        ((await metric('paddock_cache_objects', 'cluster="member1",resource="namespaces"')) ?? 0) >= TENANT_COUNT * 5 &&
        ((await metric('paddock_cache_objects', 'cluster="member1",resource="secrets"')) ?? 0) >= TENANT_COUNT &&
        // Each tenant's custom resources too, once member1's apiEnablements list them: a Widget and a Gadget
        // each, counted together since their names hold tenant ids (no --metrics-per-tenant).
        (await metric('paddock_cache_objects', 'cluster="member1",resource="(tenant custom resources)"')) ===
          WITH_CUSTOM.length * 2,
      { timeout: 30_000 },
    );
  });

  after(async () => {
    for (const { api } of tenants.values()) api.close();
    admin?.close();
    await gateway?.stop();
    for (const member of members.values()) await member.stop();
    if (member1) await stopProcess(member1.child);
    await work?.remove();
  });

  it('places every tenant on member1 while the others are tainted NoSchedule', async () => {
    expect(new Set(await placements())).to.deep.equal(new Set(['member1']));
  });

  it('turns member1 Ready False when its process is killed, and taints it not-ready NoSchedule', async () => {
    member1.child.kill('SIGKILL');
    await new Promise((resolve) =>
      member1.child.exitCode !== null ? resolve(undefined) : member1.child.once('exit', resolve),
    );
    await waitUntil('member1 not Ready', async () => (await ready('member1'))?.status === 'False', {
      timeout: 20_000,
    });
    expect(await ready('member1')).to.include({ reason: 'ClusterNotReachable' });
    await eventually(
      async () => ((await admin.request('GET', `${CLUSTERS}/member1`)).body.spec.taints ?? []) as any[],
      (taints) =>
        expect(taints.map((t: { key: string; effect: string }) => `${t.key}:${t.effect}`)).to.include(
          'cluster.karmada.io/not-ready:NoSchedule',
        ),
    );
    expect(await metric('cluster_ready_state', 'member_cluster="member1"')).to.equal(0);
    expect(await metric('cluster_ready_state', 'member_cluster="member2"')).to.equal(1);
  });

  it('moves no tenant at rate 0, though all are queued for the NoExecute taint an admin adds', async () => {
    const tainted = await run(process.execPath, [
      CLI,
      'cluster',
      'taint',
      'member1',
      'outage=true:NoExecute',
      '--kubeconfig',
      gateway.adminKubeconfigPath,
    ]);
    expect(tainted.stdout).to.equal('cluster/member1 tainted\n');
    await eventually(
      () => metric('eviction_kind_pending', 'member_cluster="member1",resource_kind="Tenant"'),
      (queued) => expect(queued).to.equal(TENANT_COUNT),
    );
    await sleep(2000);
    expect(new Set(await placements()), 'paused').to.deep.equal(new Set(['member1']));
    expect(await metric('eviction_processing_total', 'name="tenant-eviction",result="success"')).to.equal(0);
  });

  it(`moves every tenant once the rate is ${RATE}/s, paced, spread over member2 and member3`, async () => {
    const resumed = Date.now();
    gateway.setEvictionRate(RATE);
    const movedAt = new Map<string, number>();
    await waitUntil(
      'every tenant moved',
      async () => {
        const now = Date.now();
        (await placements()).forEach((cluster, i) => {
          if (cluster !== 'member1' && !movedAt.has(ids[i])) movedAt.set(ids[i], now);
        });
        return movedAt.size === TENANT_COUNT;
      },
      { timeout: 60_000, interval: 50 },
    );
    const times = [...movedAt.values()].sort((a, b) => a - b);
    // One start each 1/RATE s: the last one cannot come sooner than (n - 1) / RATE after the first.
    expect(times.at(-1)! - resumed, 'paced').to.be.at.least(((TENANT_COUNT - 1) / RATE) * 1000 * 0.9);
    const counts = new Map<string, number>();
    for (const cluster of await placements()) counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
    expect([...counts.keys()].sort()).to.deep.equal(['member2', 'member3']);
    expect(Math.abs(counts.get('member2')! - counts.get('member3')!), 'fewest tenants first').to.be.at.most(1);
  });

  it("serves each moved tenant's objects from its new cluster, to its API client and to kubectl", async () => {
    for (const id of ids) {
      const { api } = tenants.get(id)!;
      const settings = await api.request('GET', '/api/v1/namespaces/default/configmaps/settings');
      expect([settings.status, settings.body?.data], id).to.deep.equal([200, { owner: id }]);
      const token = await api.request('GET', '/api/v1/namespaces/app/secrets/token');
      expect(Buffer.from(token.body?.data?.token ?? '', 'base64').toString(), id).to.equal(`t-${id}`);
      // Isolation across the move: everything the tenant lists across its namespaces is its own.
      const everything = await api.request('GET', '/api/v1/configmaps');
      const text = `${everything.text}${(await api.request('GET', '/api/v1/secrets')).text}`;
      const others = ids.filter((other) => other !== id && text.includes(other));
      expect(others, `${id} sees other tenants' objects`).to.deep.equal([]);
      expect(
        everything.body.items.filter((cm: Json) => cm.metadata.name === 'settings').map((cm: Json) => cm.data.owner),
      ).to.deep.equal([id]);
      if (!WITH_CUSTOM.includes(id)) continue;
      // Its CRDs were replayed first, then its custom objects, namespaced and cluster-scoped.
      const widget = await api.request('GET', '/apis/example.com/v1/namespaces/app/widgets/w1');
      expect([widget.status, widget.body?.size], `${id} widget`).to.deep.equal([200, id]);
      const gadgets = await api.request('GET', '/apis/example.com/v1/gadgets');
      expect(
        [gadgets.status, gadgets.body?.items?.map((g: Json) => [g.metadata.name, g.size])],
        `${id} gadgets`,
      ).to.deep.equal([200, [['g1', id]]]);
    }
    // A workload replayed is pointed at the gateway on its new cluster, as the tenant's own writes are there.
    const moved = members.get(await clusterOf(ids[3]))!;
    const upstream = RestClient.fromKubeconfig(await readFile(moved.kubeconfigPath, 'utf8'));
    const cronJob = await upstream.request('GET', `/apis/batch/v1/namespaces/${ids[3]}-app/cronjobs/nightly`);
    upstream.close();
    const template = cronJob.body?.spec?.jobTemplate?.spec?.template;
    expect(template?.spec?.automountServiceAccountToken).to.equal(false);
    expect(template?.spec?.volumes?.map((v: Json) => v.name)).to.deep.equal(['kube-api-access-pddck']);
    expect(template?.spec?.containers?.[0]?.env?.[0]).to.deep.equal({
      name: 'KUBERNETES_SERVICE_HOST',
      value: '127.0.0.1',
    });
    const kubectl = await Kubectl.create(tenants.get(ids[3])!.kubeconfigPath);
    try {
      // And reads back as written.
      const own = JSON.parse(await kubectl.ok(['get', 'cronjob', 'nightly', '-n', 'app', '-o', 'json']));
      const spec = own.spec.jobTemplate.spec.template.spec;
      expect([spec.automountServiceAccountToken, spec.volumes, spec.hostAliases, spec.containers[0].env]).to.deep.equal(
        [undefined, undefined, undefined, undefined],
      );
      expect(await kubectl.ok(['get', 'namespaces', 'app', '-o', 'name'])).to.equal('namespace/app\n');
      expect(await kubectl.ok(['get', 'configmap', 'state', '-n', 'app', '-o', 'jsonpath={.data.step}'])).to.equal('1');
      expect(await kubectl.ok(['get', 'widgets', '-n', 'app', '-o', 'name'])).to.equal('widget.example.com/w1\n');
      expect(await kubectl.ok(['get', 'gadget', 'g1', '-o', 'jsonpath={.size}'])).to.equal(ids[3]);
      await kubectl.ok(['create', 'configmap', 'after-the-move', '-n', 'app']);
      expect(await kubectl.ok(['get', 'configmaps', '-n', 'app', '-o', 'name'])).to.include('configmap/after-the-move');
    } finally {
      await kubectl.dispose();
    }
  });

  it("records each eviction as Karmada's task, and the metrics count them", async () => {
    const tenant = (await admin.request('GET', `${TENANTS}/${ids[0]}`)).body;
    expect(tenant.status.evictionTasks).to.have.length(1);
    expect(tenant.status.evictionTasks[0]).to.include({
      fromCluster: 'member1',
      purgeMode: 'Gracefully',
      reason: 'TaintUntolerated',
      producer: 'TaintManager',
      toCluster: tenant.status.cluster,
      replayComplete: true,
    });
    expect(Date.parse(tenant.status.evictionTasks[0].creationTimestamp)).to.be.closeTo(Date.now(), 120_000);
    expect(await metric('eviction_processing_total', 'name="tenant-eviction",result="success"')).to.be.at.least(
      TENANT_COUNT,
    );
    await eventually(
      () => metric('eviction_kind_pending', 'member_cluster="member1",resource_kind="Tenant"'),
      (waiting) => expect(waiting, 'every queued eviction done').to.equal(0),
    );
    expect(await metric('eviction_processing_latency_seconds_count', 'name="tenant-eviction"')).to.be.at.least(
      TENANT_COUNT,
    );
  });

  it('purges the tenants from member1 once it is back, but for the one whose purge mode is Never', async () => {
    member1 = await startDevclusterProcess(`${work.dir}/member1`, `127.0.0.1:${member1Port}`);
    const client = RestClient.fromKubeconfig(await readFile(member1.kubeconfigPath, 'utf8'));
    try {
      const leftOn1 = async () =>
        ((await client.request('GET', '/api/v1/namespaces')).body?.items ?? [])
          .map((ns: { metadata: { name: string } }) => ns.metadata.name.slice(0, 6))
          .filter((prefix: string) => ids.includes(prefix));
      expect(new Set(await leftOn1()).size, 'every tenant was still there').to.equal(TENANT_COUNT);
      await waitUntil('member1 purged', async () => new Set(await leftOn1()).size === 1, { timeout: 60_000 });
      expect([...new Set(await leftOn1())]).to.deep.equal([NEVER]);
      const tasks = async (id: string) => (await admin.request('GET', `${TENANTS}/${id}`)).body.status.evictionTasks;
      await eventually(
        () => tasks(DIRECTLY),
        (left) => expect(left).to.deep.equal([]),
      );
      expect(await tasks(ids[0])).to.deep.equal([]);
      expect((await tasks(NEVER)).map((t: { purgeMode: string }) => t.purgeMode)).to.deep.equal(['Never']);
    } finally {
      client.close();
    }
  });

  it('drains a Ready cluster an admin taints NoExecute: its tenants move from its live cache, their open watches end with 410, and it is purged at once', async () => {
    const onMember2 = ids.filter((_, i) => i < TENANT_COUNT - 2);
    const placed = await Promise.all(onMember2.map(clusterOf));
    const drained = onMember2.filter((_, i) => placed[i] === 'member2');
    expect(drained.length).to.be.greaterThan(0);
    const watched = tenants.get(drained[0])!;
    const watch = watched.api.watch('/api/v1/namespaces/app/configmaps?watch=1');
    try {
      await watch.waitFor((events) => events.some((e) => e.object?.metadata?.name === 'state'));
      await setTaints('member2', (taints) => [
        ...taints,
        { key: 'maintenance', effect: 'NoExecute', timeAdded: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
      ]);
      await waitUntil(
        'member2 drained',
        async () => (await Promise.all(drained.map(clusterOf))).every((c) => c === 'member3'),
        {
          timeout: 60_000,
        },
      );
      await watch.waitFor((events) => events.some((e) => e.type === 'ERROR'));
      const error = watch.events.find((e) => e.type === 'ERROR')!;
      expect(error.object).to.include({ kind: 'Status', reason: 'Expired', code: 410 });
      expect(error.object.message, 'no cluster name reaches a tenant').not.to.match(/member/);
    } finally {
      watch.close();
    }
    const state = await watched.api.request('GET', '/api/v1/namespaces/app/configmaps/state');
    expect([state.status, state.body?.data]).to.deep.equal([200, { step: '1' }]);
    const member2 = RestClient.fromKubeconfig(await readFile(members.get('member2')!.kubeconfigPath, 'utf8'));
    try {
      await waitUntil(
        'member2 purged',
        async () =>
          ((await member2.request('GET', '/api/v1/namespaces')).body?.items ?? []).every(
            (ns: { metadata: { name: string } }) => !drained.includes(ns.metadata.name.slice(0, 6)),
          ),
        { timeout: 30_000 },
      );
    } finally {
      member2.close();
    }
  });
});
