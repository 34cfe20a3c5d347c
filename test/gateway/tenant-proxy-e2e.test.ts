import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { RestClient } from '../../apiserver/client/rest-client.js';
import type { DevCluster } from '../../devcluster/devcluster.js';
import { sleep, waitUntil } from '../support/eventually.js';
import { Kubectl, KUBECTL_DISPATCHER } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';

const crd = (group: string, plural: string, kind: string, scope = 'Namespaced') =>
  JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: plural.slice(0, -1), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });

const deployment = (name: string, image: string) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    },
  });

describe('gateway: the tenant proxy with the real kubectl, two tenants', function () {
  let upstream: DevCluster;
  let stage: Stage;
  let alice: Kubectl;
  let bob: Kubectl;
  let member: Kubectl;

  before(async () => {
    stage = await startStage('proxy');
    ({ upstream } = stage);
    alice = await Kubectl.create((await stage.tenant('alice1')).kubeconfigPath);
    bob = await Kubectl.create((await stage.tenant('bobby2')).kubeconfigPath);
    member = await Kubectl.create(upstream.kubeconfigPath);
  });
  after(async () => {
    for (const k of [alice, bob, member]) await k?.dispose();
    await stage?.stop();
  });

  it("the machine's kubectl (the Cloud SDK dispatcher) runs kubectl 1.32 for the gateway's /version", async () => {
    const dispatched = await Kubectl.create(alice.kubeconfig, KUBECTL_DISPATCHER);
    try {
      const version = JSON.parse(await dispatched.ok(['version', '-o', 'json']));
      expect(version.serverVersion).to.include({ major: '1', minor: '32' });
      expect(version.clientVersion.gitVersion).to.match(/^v1\.32\./);
    } finally {
      await dispatched.dispose();
    }
  });

  it("get ns shows exactly the four namespaces of a fresh cluster, then the tenant's own", async () => {
    expect(await alice.ok(['get', 'ns', '-o', 'name'])).to.equal(
      'namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n',
    );
    await alice.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n');
    expect(await alice.ok(['get', 'ns', '-o', 'name'])).to.contain('namespace/shop\n');
    expect(await bob.ok(['get', 'ns', '-o', 'name'])).to.not.contain('shop');
    const table = await alice.ok(['get', 'ns', 'shop']);
    expect(table).to.match(/^NAME\s+STATUS\s+AGE\nshop\s+Active\s+\d+s\n$/);
  });

  it('applies a Deployment, a Service, a ConfigMap and a CRD with objects, and reads them back every way', async () => {
    expect(await alice.ok(['apply', '-f', '-'], deployment('web', 'nginx:1.26'))).to.equal(
      'deployment.apps/web created\n',
    );
    expect(await alice.ok(['apply', '-f', '-'], deployment('web', 'nginx:1.27'))).to.equal(
      'deployment.apps/web configured\n',
    );
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
      }),
    );
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', labels: { tier: 'web' } },
        data: { a: 'b' },
      }),
    );
    await alice.ok(['apply', '-f', '-'], crd('stable.example.com', 'crontabs', 'CronTab'));
    await waitUntil('alice can list crontabs', async () => (await alice.run(['get', 'crontabs'])).code === 0);
    expect(
      await alice.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'stable.example.com/v1',
          kind: 'CronTab',
          metadata: { name: 'nightly' },
          spec: { cron: '0 0 * * *' },
        }),
      ),
    ).to.equal('crontab.stable.example.com/nightly created\n');

    const all = await alice.ok(['get', 'all']);
    expect(all).to.match(/^service\/web\s+ClusterIP/m);
    expect(all).to.match(/^deployment\.apps\/web\s+/m);
    const yaml = await alice.ok(['get', 'deployment', 'web', '-o', 'yaml']);
    expect(yaml).to.match(/^ {2}namespace: default$/m);
    expect(yaml).to.match(/image: nginx:1\.27/);
    expect(yaml).to.not.contain('alice1');
    // Every namespace's kube-root-ca.crt aside, which kube-controller-manager put there.
    const everywhere = await alice.ok([
      'get',
      'configmaps',
      '-A',
      '--field-selector',
      'metadata.name!=kube-root-ca.crt',
      '-o',
      'name',
    ]);
    expect(everywhere).to.equal('configmap/settings\n');
    expect(
      await alice.ok(['get', 'crontab', 'nightly', '-o', 'jsonpath={.apiVersion} {.metadata.namespace} {.spec.cron}']),
    ).to.equal('stable.example.com/v1 default 0 0 * * *');
    expect(await alice.ok(['get', 'cm', '-l', 'tier=web', '-o', 'name'])).to.equal('configmap/settings\n');
    expect(await alice.ok(['get', 'ns', '--field-selector', 'metadata.name=shop', '-o', 'name'])).to.equal(
      'namespace/shop\n',
    );
  });

  it('pages with --chunk-size 10 over 25 objects and returns all 25', async () => {
    const items = Array.from({ length: 25 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `page-${String(i).padStart(2, '0')}`, namespace: 'shop' },
    }));
    await alice.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await bob.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: items.map((i) => ({ ...i, metadata: { ...i.metadata, namespace: 'default' } })),
      }),
    );
    const names = (await alice.ok(['get', 'configmaps', '-A', '--chunk-size', '10', '-o', 'name']))
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('configmap/page-'));
    expect(names).to.have.length(25);
    const table = (await alice.ok(['get', 'configmaps', '-n', 'shop', '--chunk-size', '10'])).trim().split('\n');
    expect(table.filter((l) => l.startsWith('page-'))).to.have.length(25);
  });

  it('streams a list of more than 128 KiB: kubectl reads all of it; gzipped when asked, else chunked', async () => {
    const blob = 'x'.repeat(1500);
    const items = Array.from({ length: 200 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `big-${i}`, namespace: 'big' },
      data: { blob },
    }));
    await alice.ok(['create', 'namespace', 'big']);
    await bob.ok(['create', 'namespace', 'big']);
    await alice.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await bob.ok(['create', 'configmap', 'bobs-own', '-n', 'big']);
    const listed = JSON.parse(await alice.ok(['get', 'configmaps', '-n', 'big', '-o', 'json']));
    const names = listed.items.map((i: any) => i.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt');
    expect(names).to.have.members(items.map((i) => i.metadata.name));
    expect(listed.items.every((i: any) => i.metadata.namespace === 'big')).to.equal(true);
    expect(await alice.ok(['get', 'configmaps', '-n', 'big', '--chunk-size', '7', '-o', 'name']))
      .to.have.string('configmap/big-199\n')
      .and.not.contain('bobs-own');

    const client = RestClient.fromKubeconfig(await readFile(alice.kubeconfig, 'utf8'));
    try {
      for (const encoding of ['gzip', 'identity']) {
        const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
          const req = client.open('GET', '/api/v1/namespaces/big/configmaps', {
            Accept: 'application/json',
            'Accept-Encoding': encoding,
          });
          req.on('response', (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (chunk: Buffer) => chunks.push(chunk));
            r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(chunks) }));
            r.on('error', reject);
          });
          req.on('error', reject);
          req.end();
        });
        expect(res.headers['content-encoding'], encoding).to.equal(encoding === 'gzip' ? 'gzip' : undefined);
        expect(res.headers['transfer-encoding'], encoding).to.equal('chunked');
        const list = JSON.parse((encoding === 'gzip' ? gunzipSync(res.body) : res.body).toString('utf8'));
        expect(list.kind).to.equal('ConfigMapList');
        expect(list.items.filter((i: any) => i.metadata.name.startsWith('big-'))).to.have.length(200);
      }
    } finally {
      client.close();
    }
  });

  it('get -w sees changes live; label and delete work', async () => {
    const watch = alice.start(['get', 'configmaps', '-w', '--output-watch-events']);
    try {
      await sleep(800);
      await alice.ok(
        ['apply', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live' } }),
      );
      await watch.waitFor(/ADDED\s+live/);
      await bob.ok(
        ['apply', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bobs-secret-plan' } }),
      );
      await alice.ok(['label', 'configmap', 'live', 'x=y']);
      await watch.waitFor(/MODIFIED\s+live/);
      expect(await alice.ok(['delete', 'configmap', 'live'])).to.equal('configmap "live" deleted\n');
      await watch.waitFor(/DELETED\s+live/);
      expect(watch.output()).to.not.contain('bobs-secret-plan');
    } finally {
      watch.child.kill();
    }
  });

  it("api-resources shows the tenant's own CRD and not the other's", async () => {
    await bob.ok(['apply', '-f', '-'], crd('gizmos.example.org', 'gadgets', 'Gadget'));
    await waitUntil('bob can list gadgets', async () => (await bob.run(['get', 'gadgets'])).code === 0);
    const aliceResources = await alice.ok(['api-resources']);
    expect(aliceResources).to.match(/^crontabs\s+stable\.example\.com\/v1\s+true\s+CronTab$/m);
    expect(aliceResources).to.not.contain('gadgets');
    const bobResources = await bob.ok(['api-resources']);
    expect(bobResources).to.contain('gadgets');
    expect(bobResources).to.not.contain('crontabs');
  });

  it("keeps tenant B away from tenant A's namespace, CRD, ClusterRole and PV, while upstream holds both under their prefixes", async () => {
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      }),
    );
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'disk' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/disk' } },
      }),
    );
    expect(await alice.ok(['get', 'pv', 'disk', '-o', 'name'])).to.equal('persistentvolume/disk\n');
    for (const [kind, name, expected] of [
      ['namespace', 'shop', 'namespaces "shop" not found'],
      [
        'crd',
        'crontabs.stable.example.com',
        'customresourcedefinitions.apiextensions.k8s.io "crontabs.stable.example.com" not found',
      ],
      ['clusterrole', 'reader', 'clusterroles.rbac.authorization.k8s.io "reader" not found'],
      ['pv', 'disk', 'persistentvolumes "disk" not found'],
    ] as const) {
      const res = await bob.run(['get', kind, name]);
      expect(res.stderr.trim(), `${kind}/${name}`).to.equal(`Error from server (NotFound): ${expected}`);
    }
    expect(await bob.ok(['get', 'pv', '-o', 'name'])).to.equal('');
    expect(await bob.ok(['get', 'clusterroles', '-o', 'name'])).to.not.contain('reader');
    const upstreamNames = await member.ok(['get', 'namespaces,clusterroles,persistentvolumes,crds', '-o', 'name']);
    for (const name of [
      'namespace/alice1-shop',
      'clusterrole.rbac.authorization.k8s.io/alice1-reader',
      'persistentvolume/alice1-disk',
      'customresourcedefinition.apiextensions.k8s.io/crontabs.alice1-stable.example.com',
      'customresourcedefinition.apiextensions.k8s.io/gadgets.bobby2-gizmos.example.org',
      'namespace/bobby2-default',
    ]) {
      expect(upstreamNames).to.contain(`${name}\n`);
    }
  });
});
