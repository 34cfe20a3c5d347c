import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { sleep, waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

function namespaceYaml(name: string): string {
  return `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
}

function configMapYaml(
  name: string,
  namespace: string,
  labels: Record<string, string> = {},
  data: Record<string, string> = { key: 'value' },
): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data });
}

function deploymentJson(
  name: string,
  namespace: string,
  containers: { name: string; image: string }[],
  replicas = 2,
): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers } },
    },
  });
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;

for (const backend of ['embedded', 'etcd'] as const) {
  describe(`devcluster with the real kubectl 1.32 (${backend} store)`, function () {
    let etcd: EtcdServer | undefined;
    let cluster: DevCluster;
    let removeDir: () => Promise<void>;
    let kubectl: Kubectl;
    let namespaceCounter = 0;

    before(async () => {
      const temp = await makeTempDir('devcluster');
      removeDir = temp.remove;
      if (backend === 'etcd') etcd = await startEtcd();
      cluster = await startDevCluster({
        listen: '127.0.0.1:0',
        dataDir: temp.dir,
        etcdEndpoints: etcd ? [etcd.endpoint] : undefined,
        bookmarkIntervalMs: 500,
      });
    });
    after(async () => {
      await cluster?.stop();
      await etcd?.stop();
      await removeDir?.();
    });
    beforeEach(async () => {
      kubectl = await Kubectl.create(cluster.kubeconfigPath);
    });
    afterEach(async () => {
      await kubectl.dispose();
    });

    /**
     * A fresh namespace for one test, created the way a user would, once kube-controller-manager
     * has put its `kube-root-ca.crt` in it (as kube's e2e framework waits for the namespace's own objects).
     */
    async function freshNamespace(): Promise<string> {
      const name = `e2e-${backend}-${++namespaceCounter}`;
      await kubectl.ok(['apply', '-f', '-'], namespaceYaml(name));
      await waitUntil(
        `kube-root-ca.crt in ${name}`,
        async () => (await kubectl.run(['get', 'configmap', 'kube-root-ca.crt', '-n', name])).code === 0,
      );
      return name;
    }

    it('version: reports the server as 1.32', async () => {
      const out = JSON.parse(await kubectl.ok(['version', '-o', 'json']));
      expect(out.serverVersion.major).to.equal('1');
      expect(out.serverVersion.minor).to.equal('32');
    });

    it('api-resources: lists built-in kinds with short names, groups and scope', async () => {
      const out = await kubectl.ok(['api-resources']);
      const row = (name: string) =>
        out
          .split('\n')
          .find((line) => line.split(/\s+/)[0] === name)
          ?.split(/\s+/);
      expect(row('pods')).to.deep.equal(['pods', 'po', 'v1', 'true', 'Pod']);
      expect(row('deployments')).to.deep.equal(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
      expect(row('namespaces')).to.deep.equal(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
      expect(row('clusterroles')).to.deep.equal(
        ['clusterroles', '', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRole'].filter(Boolean),
      );
      expect(out).to.match(
        /^customresourcedefinitions\s+crd,crds\s+apiextensions\.k8s\.io\/v1\s+false\s+CustomResourceDefinition$/m,
      );
    });

    it('get: default namespaces exist from the start', async () => {
      const out = await kubectl.ok(['get', 'namespaces']);
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease'])
        expect(out).to.match(new RegExp(`^${ns}\\s+Active\\s+\\d+[smhd]`, 'm'));
    });

    it('get: table, -A, -o yaml, -o jsonpath, -l, --field-selector, --sort-by, --show-labels', async () => {
      const ns = await freshNamespace();
      for (const [name, tier] of [
        ['alpha', 'web'],
        ['bravo', 'db'],
        ['charlie', 'web'],
      ]) {
        await kubectl.ok(['apply', '-f', '-'], configMapYaml(name, ns, { tier: tier }, { a: '1', b: '2' }));
      }
      const table = await kubectl.ok(['get', 'configmaps', '-n', ns]);
      expect(table.split('\n')[0]).to.match(/^NAME\s+DATA\s+AGE$/);
      expect(table).to.match(/^alpha\s+2\s+\d+s$/m);

      const all = await kubectl.ok(['get', 'configmaps', '-A']);
      expect(all.split('\n')[0]).to.match(/^NAMESPACE\s+NAME\s+DATA\s+AGE$/);
      expect(all).to.match(new RegExp(`^${ns}\\s+bravo\\s+2\\s+`, 'm'));

      const yaml = await kubectl.ok(['get', 'configmap', 'alpha', '-n', ns, '-o', 'yaml']);
      expect(yaml).to.match(/^kind: ConfigMap$/m);
      expect(yaml).to.match(/^ {2}resourceVersion: "\d+"$/m);
      expect(yaml).to.match(/^ {2}uid: [0-9a-f-]{36}$/m);

      expect(await kubectl.ok(['get', 'configmaps', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}'])).to.equal(
        'alpha bravo charlie kube-root-ca.crt',
      );
      expect(await kubectl.ok(['get', 'configmaps', '-n', ns, '-l', 'tier=web', '-o', 'name'])).to.equal(
        'configmap/alpha\nconfigmap/charlie\n',
      );
      expect(await kubectl.ok(['get', 'configmaps', '-n', ns, '-l', 'tier in (db),tier!=web', '-o', 'name'])).to.equal(
        'configmap/bravo\n',
      );
      expect(
        await kubectl.ok([
          'get',
          'configmaps',
          '-A',
          '--field-selector',
          `metadata.name=bravo,metadata.namespace=${ns}`,
          '-o',
          'name',
        ]),
      ).to.equal('configmap/bravo\n');

      const sorted = await kubectl.ok([
        'get',
        'configmaps',
        '-n',
        ns,
        '-l',
        'tier',
        '--sort-by',
        '.metadata.labels.tier',
        '-o',
        'name',
      ]);
      expect(sorted.split('\n')[0]).to.equal('configmap/bravo');
      const labels = await kubectl.ok(['get', 'configmaps', '-n', ns, '--show-labels']);
      expect(labels.split('\n')[0]).to.match(/LABELS$/);
      expect(labels).to.match(/^charlie\s+2\s+\S+\s+tier=web$/m);
    });

    it('get: rejects an unsupported field label and a bad label selector as the apiserver does', async () => {
      const field = await kubectl.run(['get', 'pods', '--field-selector', 'status.foo=x']);
      expect(field.code).to.equal(1);
      // kubectl itself prefixes the server's message with the selectors it sent.
      expect(field.stderr.trim()).to.equal(
        'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "status.foo=x": field label not supported: status.foo',
      );
      const label = await kubectl.run(['get', 'pods', '-l', 'a in (b']);
      expect(label.code).to.equal(1);
      expect(label.stderr).to.contain('unable to parse requirement');
    });

    it('get --chunk-size: pages through many objects, every one exactly once', async () => {
      const ns = await freshNamespace();
      const items = Array.from({ length: 130 }, (_, i) =>
        JSON.parse(configMapYaml(`cm-${String(i).padStart(3, '0')}`, ns)),
      );
      await kubectl.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      const out = await kubectl.ok(['get', 'configmaps', '-n', ns, '--chunk-size', '7', '-o', 'name']);
      const names = out
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('configmap/cm-'));
      expect(names).to.have.length(130);
      expect(new Set(names).size).to.equal(130);
      const table = await kubectl.ok(['get', 'configmaps', '-n', ns, '--chunk-size', '9']);
      expect(
        table
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('cm-')),
      ).to.have.length(130);
    });

    it('get -w: sees ADDED, MODIFIED and DELETED as they happen', async () => {
      const ns = await freshNamespace();
      const watch = kubectl.start(['get', 'configmaps', '-n', ns, '-w', '--output-watch-events']);
      try {
        await sleep(1000);
        await kubectl.ok(['apply', '-f', '-'], configMapYaml('watched', ns));
        await watch.waitFor(/ADDED\s+watched/);
        await kubectl.ok(['label', 'configmap', 'watched', '-n', ns, 'x=y']);
        await watch.waitFor(/MODIFIED\s+watched/);
        await kubectl.ok(['delete', 'configmap', 'watched', '-n', ns]);
        await watch.waitFor(/DELETED\s+watched/);
        await sleep(300);
        expect(watch.child.exitCode, 'the watch stays open').to.equal(null);
      } finally {
        watch.child.kill();
      }
    });

    it('apply: creates, then re-applies a changed Deployment as a strategic merge (containers by name)', async () => {
      const ns = await freshNamespace();
      expect(
        await kubectl.ok(['apply', '-f', '-'], deploymentJson('web', ns, [{ name: 'app', image: 'nginx:1.26' }])),
      ).to.equal('deployment.apps/web created\n');
      await kubectl.ok(['annotate', 'deployment', 'web', '-n', ns, 'owner=ops']);
      const second = deploymentJson(
        'web',
        ns,
        [
          { name: 'sidecar', image: 'busybox:1' },
          { name: 'app', image: 'nginx:1.27' },
        ],
        3,
      );
      expect(await kubectl.ok(['apply', '-f', '-'], second)).to.equal('deployment.apps/web configured\n');
      const live = JSON.parse(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json']));
      expect(live.spec.replicas).to.equal(3);
      expect(
        live.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`),
      ).to.deep.equal(['sidecar=busybox:1', 'app=nginx:1.27']);
      expect(live.metadata.annotations.owner, 'fields applied by others survive').to.equal('ops');
      expect(live.metadata.generation).to.equal(2);
      expect(await kubectl.ok(['apply', '-f', '-'], second)).to.equal('deployment.apps/web unchanged\n');
      const table = await kubectl.ok(['get', 'deployments', '-n', ns]);
      expect(table.split('\n')[0]).to.match(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
    });

    it('scale, server-side dry run, and strict field validation of built-in kinds', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['apply', '-f', '-'], deploymentJson('scaled', ns, [{ name: 'app', image: 'nginx' }]));
      expect(await kubectl.ok(['scale', 'deployment', 'scaled', '-n', ns, '--replicas=5'])).to.equal(
        'deployment.apps/scaled scaled\n',
      );
      expect(await kubectl.ok(['get', 'deployment', 'scaled', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).to.equal(
        '5',
      );

      const dry = await kubectl.ok(
        ['apply', '--dry-run=server', '-f', '-'],
        deploymentJson('imaginary', ns, [{ name: 'app', image: 'nginx' }]),
      );
      expect(dry).to.equal('deployment.apps/imaginary created (server dry run)\n');
      expect((await kubectl.run(['get', 'deployment', 'imaginary', '-n', ns])).code).to.equal(1);

      const typo = JSON.parse(deploymentJson('typo', ns, [{ name: 'app', image: 'nginx' }]));
      typo.spec.replicass = 2;
      typo.spec.template.spec.containers[0].imagee = 'x';
      const strict = await kubectl.run(['apply', '-f', '-'], JSON.stringify(typo));
      expect(strict.code).to.equal(1);
      expect(strict.stderr.trim()).to.equal(
        'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass", unknown field "spec.template.spec.containers[0].imagee"',
      );
      const warned = await kubectl.run(['apply', '--validate=warn', '-f', '-'], JSON.stringify(typo));
      expect(warned.code).to.equal(0);
      expect(warned.stderr).to.contain('Warning: unknown field "spec.replicass"');
    });

    it('label and annotate: --overwrite rules and removal', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['apply', '-f', '-'], configMapYaml('labelled', ns, { a: 'b' }));
      const refused = await kubectl.run(['label', 'configmap', 'labelled', '-n', ns, 'a=c']);
      expect(refused.code).to.equal(1);
      expect(refused.stderr.trim()).to.equal("error: 'a' already has a value (b), and --overwrite is false");
      await kubectl.ok(['label', 'configmap', 'labelled', '-n', ns, 'a=c', '--overwrite']);
      await kubectl.ok(['annotate', 'configmap', 'labelled', '-n', ns, 'note=hello']);
      const annotateAgain = await kubectl.run(['annotate', 'configmap', 'labelled', '-n', ns, 'note=bye']);
      expect(annotateAgain.code).to.equal(1);
      await kubectl.ok(['label', 'configmap', 'labelled', '-n', ns, 'a-']);
      const live = JSON.parse(await kubectl.ok(['get', 'configmap', 'labelled', '-n', ns, '-o', 'json']));
      expect(live.metadata.labels ?? {}).to.not.have.property('a');
      expect(live.metadata.annotations.note).to.equal('hello');
    });

    it('delete --wait: returns once the object is gone', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['apply', '-f', '-'], configMapYaml('doomed', ns));
      expect(await kubectl.ok(['delete', 'configmap', 'doomed', '-n', ns, '--wait'])).to.equal(
        'configmap "doomed" deleted\n',
      );
      const gone = await kubectl.run(['get', 'configmap', 'doomed', '-n', ns]);
      expect(gone.stderr.trim()).to.equal('Error from server (NotFound): configmaps "doomed" not found');
    });

    it('delete --wait: follows a finalizer-held object through its informer until it is gone', async () => {
      const ns = await freshNamespace();
      const held = JSON.parse(configMapYaml('held', ns));
      held.metadata.finalizers = ['example.com/hold'];
      await kubectl.ok(['apply', '-f', '-'], JSON.stringify(held));
      const deleting = kubectl.start(['delete', 'configmap', 'held', '-n', ns, '--wait', '--timeout=30s']);
      await deleting.waitFor(/configmap "held" deleted/);
      await sleep(700);
      expect(deleting.child.exitCode, 'still waiting while the finalizer holds the object').to.equal(null);
      await kubectl.ok([
        'patch',
        'configmap',
        'held',
        '-n',
        ns,
        '--type=json',
        '-p',
        '[{"op":"remove","path":"/metadata/finalizers"}]',
      ]);
      const code = await new Promise<number | null>((resolve) => {
        if (deleting.child.exitCode !== null) resolve(deleting.child.exitCode);
        else deleting.child.once('exit', resolve);
      });
      expect(code).to.equal(0);
    });

    it('CRDs: established at once, objects with printer columns, merge-patch re-apply, deletion removes objects', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['apply', '-f', '-'], CRD);
      await kubectl.ok(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=10s']);
      const widget = (size: string) =>
        JSON.stringify({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w1', namespace: ns },
          spec: { size, extra: { kept: true } },
        });
      expect(await kubectl.ok(['apply', '-f', '-'], widget('small'))).to.equal('widget.example.com/w1 created\n');
      expect(await kubectl.ok(['apply', '-f', '-'], widget('large'))).to.equal('widget.example.com/w1 configured\n');
      const table = await kubectl.ok(['get', 'widgets', '-n', ns]);
      expect(table.split('\n')[0]).to.match(/^NAME\s+SIZE\s+AGE$/);
      expect(table).to.match(/^w1\s+large\s+\d+s$/m);
      const live = JSON.parse(await kubectl.ok(['get', 'wd', 'w1', '-n', ns, '-o', 'json']));
      expect(live.spec.extra).to.deep.equal({ kept: true });
      expect(await kubectl.ok(['delete', 'crd', 'widgets.example.com'])).to.contain('deleted');
      await waitUntil(
        'the CRD widgets.example.com gone',
        async () => (await kubectl.run(['get', 'crd', 'widgets.example.com'])).code !== 0,
        { timeout: 15_000, interval: 100 },
      );
      await kubectl.ok(['apply', '-f', '-'], CRD);
      await kubectl.ok(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=10s']);
      const empty = await kubectl.run(['get', 'widgets', '-n', ns]);
      expect(empty.stderr.trim()).to.equal(`No resources found in ${ns} namespace.`);
      await kubectl.ok(['delete', 'crd', 'widgets.example.com']);
    });

    it('namespace deletion removes everything in it', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['apply', '-f', '-'], configMapYaml('inside', ns));
      await kubectl.ok(['apply', '-f', '-'], deploymentJson('inside', ns, [{ name: 'app', image: 'nginx' }]));
      expect(await kubectl.ok(['delete', 'namespace', ns])).to.equal(`namespace "${ns}" deleted\n`);
      const gone = await kubectl.run(['get', 'namespace', ns]);
      expect(gone.stderr.trim()).to.equal(`Error from server (NotFound): namespaces "${ns}" not found`);
      const leftovers = await kubectl.ok([
        'get',
        'configmaps,deployments',
        '-A',
        '-o',
        'name',
        '--field-selector',
        `metadata.namespace=${ns}`,
      ]);
      expect(leftovers).to.equal('');
      const refused = await kubectl.run(['apply', '-f', '-'], configMapYaml('late', ns));
      expect(refused.stderr.trim()).to.equal(
        `Error from server (NotFound): error when creating "STDIN": namespaces "${ns}" not found`,
      );
    });

    it('errors: NotFound, AlreadyExists, Conflict and Invalid print as kubectl users know them', async () => {
      const ns = await freshNamespace();
      const missing = await kubectl.run(['get', 'pod', 'nope', '-n', ns]);
      expect([missing.code, missing.stderr.trim()]).to.deep.equal([
        1,
        'Error from server (NotFound): pods "nope" not found',
      ]);

      await kubectl.ok(['create', '-f', '-'], configMapYaml('twice', ns));
      const again = await kubectl.run(['create', '-f', '-'], configMapYaml('twice', ns));
      expect([again.code, again.stderr.trim()]).to.deep.equal([
        1,
        'Error from server (AlreadyExists): error when creating "STDIN": configmaps "twice" already exists',
      ]);

      const stale = JSON.parse(await kubectl.ok(['get', 'configmap', 'twice', '-n', ns, '-o', 'json']));
      await kubectl.ok(['label', 'configmap', 'twice', '-n', ns, 'bump=1']);
      const conflict = await kubectl.run(['replace', '-f', '-'], JSON.stringify(stale));
      expect(conflict.code).to.equal(1);
      expect(conflict.stderr.trim()).to.equal(
        'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "twice": the object has been modified; please apply your changes to the latest version and try again',
      );

      const invalid = await kubectl.run(['create', '-f', '-'], configMapYaml('Bad_Name', ns));
      expect(invalid.code).to.equal(1);
      expect(invalid.stderr.trim()).to.equal(
        `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      );
    });
  });
}
