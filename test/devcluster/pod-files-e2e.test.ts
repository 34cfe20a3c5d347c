import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { waitUntil } from '../support/eventually.js';
import { KUBECTL, Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A shell pipeline's stdout; fails with its stderr unless it exits 0. */
function shell(pipeline: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', `set -o pipefail; ${pipeline}`], { env }, (err, stdout, stderr) =>
      err ? reject(new Error(`${pipeline}: ${stderr}`)) : resolve(stdout),
    ),
  );
}
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the ' +
  'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

describe("devcluster with the real kubectl: each namespace's default ServiceAccount and root CA, a pod's files, kubectl cp", function () {
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let kubectl: Kubectl;
  let local: string;
  let caPem: string;
  let serial = 0;

  before(async () => {
    const temp = await makeTempDir('pod-files');
    remove = temp.remove;
    local = path.join(temp.dir, 'local');
    await mkdir(local);
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: path.join(temp.dir, 'cluster') });
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
    const kubeconfig = parse(await readFile(cluster.kubeconfigPath, 'utf8'));
    caPem = Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    await writeFile(path.join(local, 'ca.crt'), caPem);
  });
  after(async () => {
    await kubectl?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  const json = async (args: string[]) => JSON.parse(await kubectl.ok([...args, '-o', 'json']));
  const exists = async (args: string[]) => (await kubectl.run(['get', ...args])).code === 0;
  /** A fresh namespace whose `default` ServiceAccount is there (kube's controller makes it just after). */
  const freshNamespace = async () => {
    const ns = `files${++serial}`;
    await kubectl.ok(['create', 'namespace', ns]);
    await waitUntil(`serviceaccount default in ${ns}`, () => exists(['serviceaccount', 'default', '-n', ns]));
    return ns;
  };
  /** kubectl with a bearer token and nothing else: the server and its CA, no client certificate. */
  const whoamiWith = async (token: string) => {
    const result = await whoamiRun(token);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout).status.userInfo;
  };
  const whoamiRun = (token: string) =>
    kubectl.run([
      'auth',
      'whoami',
      '--kubeconfig=/dev/null',
      `--server=${cluster.url}`,
      `--certificate-authority=${path.join(local, 'ca.crt')}`,
      `--token=${token}`,
      '-o',
      'json',
    ]);

  describe('the serviceaccount controller and the root CA publisher', () => {
    it('gave every namespace there was at start its default ServiceAccount and kube-root-ca.crt', async () => {
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
        // The bare account has no field to own, so no managedFields, as on kube.
        const account = await json(['get', 'serviceaccount', 'default', '-n', ns, '--show-managed-fields']);
        expect(Object.keys(account), ns).to.deep.equal(['apiVersion', 'kind', 'metadata']);
        const configMap = await json(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '--show-managed-fields']);
        expect(configMap.metadata.managedFields.map((m: { manager: string }) => m.manager)).to.deep.equal([
          'kube-controller-manager',
        ]);
        expect(configMap.data, ns).to.deep.equal({ 'ca.crt': caPem });
        expect(configMap.metadata.annotations, ns).to.deep.equal({ 'kubernetes.io/description': DESCRIPTION });
      }
    });

    it('gives a new namespace both, so kubectl create token default works on it', async () => {
      await kubectl.ok(['create', 'namespace', 'fresh']);
      await waitUntil('kube-root-ca.crt in fresh', () => exists(['configmap', 'kube-root-ca.crt', '-n', 'fresh']));
      await waitUntil('serviceaccount default in fresh', () => exists(['serviceaccount', 'default', '-n', 'fresh']));
      expect(await kubectl.ok(['get', 'serviceaccounts', '-n', 'fresh', '-o', 'name'])).to.equal(
        'serviceaccount/default\n',
      );
      const token = (await kubectl.ok(['create', 'token', 'default', '-n', 'fresh'])).trim();
      expect((await whoamiWith(token)).username).to.equal('system:serviceaccount:fresh:default');
    });

    it('creates the default ServiceAccount again when it is deleted', async () => {
      const ns = await freshNamespace();
      const before = await json(['get', 'serviceaccount', 'default', '-n', ns]);
      await kubectl.ok(['delete', 'serviceaccount', 'default', '-n', ns]);
      const after = await waitUntil('a new default ServiceAccount', async () => {
        const result = await kubectl.run(['get', 'serviceaccount', 'default', '-n', ns, '-o', 'json']);
        return result.code === 0 && JSON.parse(result.stdout);
      });
      expect(after.metadata.uid).to.not.equal(before.metadata.uid);
    });

    it('restores kube-root-ca.crt when it is deleted, its data changed or its description removed', async () => {
      const ns = await freshNamespace();
      await waitUntil('kube-root-ca.crt', () => exists(['configmap', 'kube-root-ca.crt', '-n', ns]));
      const restored = () =>
        waitUntil('kube-root-ca.crt restored', async () => {
          const result = await kubectl.run(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '-o', 'json']);
          if (result.code !== 0) return false;
          const configMap = JSON.parse(result.stdout);
          const described = configMap.metadata.annotations?.['kubernetes.io/description'] === DESCRIPTION;
          return described && JSON.stringify(configMap.data) === JSON.stringify({ 'ca.crt': caPem }) && configMap;
        });

      await kubectl.ok(['delete', 'configmap', 'kube-root-ca.crt', '-n', ns]);
      await restored();

      await kubectl.ok([
        'patch',
        'configmap',
        'kube-root-ca.crt',
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"data":{"ca.crt":"forged","extra":"x"},"metadata":{"annotations":{"team":"a"}}}',
      ]);
      // The data is put back whole; an annotation of someone else's stays.
      expect((await restored()).metadata.annotations.team).to.equal('a');

      await kubectl.ok(['annotate', 'configmap', 'kube-root-ca.crt', '-n', ns, 'kubernetes.io/description-']);
      await restored();
    });

    it('creates nothing in a terminating namespace', async () => {
      const ns = await freshNamespace();
      // A finalizer holds the namespace in Terminating after the namespace controller emptied it.
      await kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'held', namespace: ns, finalizers: ['example.com/hold'] },
        }),
      );
      await kubectl.ok(['delete', 'namespace', ns, '--wait=false']);
      await waitUntil('the namespace emptied', async () => {
        const left = await kubectl.ok(['get', 'serviceaccounts,configmaps', '-n', ns, '-o', 'name']);
        return left === 'configmap/held\n';
      });
      // Both controllers look at the namespace again, then at a new one: one worker each, in order.
      await kubectl.ok(['label', 'namespace', ns, 'looked=again']);
      const marker = await freshNamespace();
      await waitUntil('kube-root-ca.crt in the marker', () => exists(['configmap', 'kube-root-ca.crt', '-n', marker]));
      expect(await kubectl.ok(['get', 'serviceaccounts,configmaps', '-n', ns, '-o', 'name'])).to.equal(
        'configmap/held\n',
      );
      await kubectl.ok([
        'patch',
        'configmap',
        'held',
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"metadata":{"finalizers":null}}',
      ]);
    });
  });

  describe("the ServiceAccount admission plugin on a pod's create", () => {
    it('runs a pod as default and mounts kube-api-access into every container, init containers too', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'two', namespace: ns },
          spec: {
            initContainers: [{ name: 'setup', image: 'busybox' }],
            containers: [
              { name: 'main', image: 'nginx' },
              {
                name: 'own',
                image: 'nginx',
                volumeMounts: [{ name: 'mine', mountPath: TOKEN_DIR }],
              },
            ],
            volumes: [{ name: 'mine', emptyDir: {} }],
          },
        }),
      );
      const pod = await json(['get', 'pod', 'two', '-n', ns]);
      expect(pod.spec).to.include({ serviceAccountName: 'default', serviceAccount: 'default' });
      const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
      expect(volume.name).to.match(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(volume.projected).to.deep.equal({
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          {
            downwardAPI: {
              items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
            },
          },
        ],
      });
      const mount = { name: volume.name, readOnly: true, mountPath: TOKEN_DIR };
      expect(pod.spec.initContainers[0].volumeMounts).to.deep.equal([mount]);
      expect(pod.spec.containers[0].volumeMounts).to.deep.equal([mount]);
      // A container with its own mount at the path keeps it.
      expect(pod.spec.containers[1].volumeMounts).to.deep.equal([{ name: 'mine', mountPath: TOKEN_DIR }]);
    });

    it('mounts no token when the pod or its account turns automount off, the pod deciding first', async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['create', 'serviceaccount', 'quiet', '-n', ns]);
      await kubectl.ok(['patch', 'serviceaccount', 'quiet', '-n', ns, '-p', '{"automountServiceAccountToken":false}']);
      const pod = (name: string, spec: Record<string, unknown>) =>
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: ns },
          spec: { containers: [{ name: 'main', image: 'nginx' }], ...spec },
        });
      await kubectl.ok(['apply', '-f', '-'], pod('off', { automountServiceAccountToken: false }));
      await kubectl.ok(['apply', '-f', '-'], pod('quiet', { serviceAccountName: 'quiet' }));
      await kubectl.ok(
        ['apply', '-f', '-'],
        pod('loud', { serviceAccountName: 'quiet', automountServiceAccountToken: true }),
      );
      const volumes = async (name: string) => (await json(['get', 'pod', name, '-n', ns])).spec.volumes ?? [];
      expect(await volumes('off')).to.deep.equal([]);
      expect(await volumes('quiet')).to.deep.equal([]);
      expect((await volumes('loud')).map((v: { name: string }) => v.name.slice(0, 16))).to.deep.equal([
        'kube-api-access-',
      ]);
    });

    it('refuses a pod whose ServiceAccount does not exist, as kube words it', async () => {
      const ns = await freshNamespace();
      const result = await kubectl.run([
        'run',
        'lost',
        '--image=nginx',
        '-n',
        ns,
        '--overrides',
        '{"spec":{"serviceAccountName":"ghost"}}',
      ]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.equal(
        `Error from server (Forbidden): pods "lost" is forbidden: error looking up service account ${ns}/ghost: serviceaccount "ghost" not found\n`,
      );
    });

    it("reports a workload's pods refused for a missing account as FailedCreate, and creates them once it exists", async () => {
      const ns = await freshNamespace();
      await kubectl.ok(['create', 'deployment', 'web', '--image=nginx', '-n', ns]);
      await kubectl.ok(['set', 'serviceaccount', 'deployment/web', 'robot', '-n', ns]);
      const failed = await waitUntil('a FailedCreate event', async () => {
        const events = await json(['get', 'events', '-n', ns, '--field-selector', 'reason=FailedCreate']);
        return events.items[0];
      });
      expect(failed.type).to.equal('Warning');
      expect(failed.involvedObject.kind).to.equal('ReplicaSet');
      expect(failed.message).to.match(
        new RegExp(
          `^Error creating: pods "web-[a-z0-9]+-" is forbidden: error looking up service account ${ns}/robot: serviceaccount "robot" not found$`,
        ),
      );
      await kubectl.ok(['create', 'serviceaccount', 'robot', '-n', ns]);
      await kubectl.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=30s']);
      const pods = await json(['get', 'pods', '-n', ns, '-l', 'app=web']);
      expect(pods.items.map((p: { spec: { serviceAccountName: string } }) => p.spec.serviceAccountName)).to.include(
        'robot',
      );
    });
  });

  describe("a pod's files", () => {
    let ns: string;
    before(async () => {
      ns = await freshNamespace();
      await kubectl.ok(['run', 'web', '--image=nginx', '-n', ns]);
    });
    const exec = (args: string[], input?: string) => kubectl.run(['exec', '-i', 'web', '-n', ns, '--', ...args], input);

    it('holds the token, ca.crt and namespace at the ServiceAccount path', async () => {
      expect((await exec(['ls', TOKEN_DIR])).stdout).to.equal('ca.crt\nnamespace\ntoken\n');
      expect((await exec(['cat', `${TOKEN_DIR}/namespace`])).stdout).to.equal(ns);
      expect((await exec(['cat', `${TOKEN_DIR}/ca.crt`])).stdout).to.equal(caPem);
    });

    it("gives the downward API's fields, one annotation or label too, in files and env; the kubernetes Service's variables unless the container sets its own", async () => {
      await kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'downward', namespace: ns, annotations: { team: 'blue' }, labels: { tier: 'web' } },
          spec: {
            containers: [
              {
                name: 'main',
                image: 'nginx',
                env: [
                  { name: 'KUBERNETES_SERVICE_HOST', value: 'api.example' },
                  { name: 'MY_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                  { name: 'MY_TEAM', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['team']" } } },
                  { name: 'MY_ACCOUNT', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
                  { name: 'UNSET', valueFrom: { fieldRef: { fieldPath: "metadata.labels['none']" } } },
                ],
                volumeMounts: [{ name: 'facts', mountPath: '/facts' }],
              },
            ],
            volumes: [
              {
                name: 'facts',
                downwardAPI: {
                  items: [
                    { path: 'team', fieldRef: { fieldPath: "metadata.annotations['team']" } },
                    { path: 'tier', fieldRef: { fieldPath: "metadata.labels['tier']" } },
                  ],
                },
              },
            ],
          },
        }),
      );
      const run = (args: string[]) => kubectl.ok(['exec', 'downward', '-n', ns, '--', ...args]);
      expect(await run(['cat', '/facts/team'])).to.equal('blue');
      expect(await run(['cat', '/facts/tier'])).to.equal('web');
      expect((await run(['env'])).split('\n')).to.deep.equal([
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'HOSTNAME=downward',
        'KUBERNETES_SERVICE_HOST=api.example',
        `MY_NAMESPACE=${ns}`,
        'MY_TEAM=blue',
        'MY_ACCOUNT=default',
        'UNSET=',
        'KUBERNETES_SERVICE_PORT=443',
        'KUBERNETES_SERVICE_PORT_HTTPS=443',
        'KUBERNETES_PORT=tcp://10.96.0.1:443',
        'KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443',
        'KUBERNETES_PORT_443_TCP_PROTO=tcp',
        'KUBERNETES_PORT_443_TCP_PORT=443',
        'KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1',
        'HOME=/root',
        '',
      ]);
    });

    it("has a token that authenticates as the pod's ServiceAccount, bound to the pod", async () => {
      const token = (await exec(['cat', `${TOKEN_DIR}/token`])).stdout;
      const pod = await json(['get', 'pod', 'web', '-n', ns]);
      const user = await whoamiWith(token);
      expect(user.username).to.equal(`system:serviceaccount:${ns}:default`);
      expect(user.groups).to.deep.equal([
        'system:serviceaccounts',
        `system:serviceaccounts:${ns}`,
        'system:authenticated',
      ]);
      expect(user.extra['authentication.kubernetes.io/pod-name']).to.deep.equal(['web']);
      expect(user.extra['authentication.kubernetes.io/pod-uid']).to.deep.equal([pod.metadata.uid]);
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
      expect(claims['kubernetes.io'].pod).to.deep.equal({ name: 'web', uid: pod.metadata.uid });
      expect(claims.exp - claims.iat).to.equal(3607);
      // The kubelet keeps its token until it has to renew it.
      expect((await exec(['cat', `${TOKEN_DIR}/token`])).stdout).to.equal(token);
    });

    it('binds a token kubectl create token asks for to a pod of its account only', async () => {
      const bind = (account: string) =>
        kubectl.run(['create', 'token', account, '-n', ns, '--bound-object-kind=Pod', '--bound-object-name=web']);
      const bound = await bind('default');
      expect(bound.code, bound.stderr).to.equal(0);
      expect((await whoamiWith(bound.stdout.trim())).extra['authentication.kubernetes.io/pod-name']).to.deep.equal([
        'web',
      ]);
      await kubectl.ok(['create', 'serviceaccount', 'other', '-n', ns]);
      expect((await bind('other')).stderr).to.equal(
        'error: failed to create token: cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.\n',
      );
    });

    it('refuses a token once the pod it is bound to, or its account, is gone', async () => {
      const other = await freshNamespace();
      await kubectl.ok(['run', 'short', '--image=nginx', '-n', other]);
      await kubectl.ok(['run', 'long', '--image=nginx', '-n', other]);
      const tokenOf = async (pod: string) =>
        (await kubectl.run(['exec', pod, '-n', other, '--', 'cat', `${TOKEN_DIR}/token`])).stdout;
      const [short, long] = [await tokenOf('short'), await tokenOf('long')];
      const created = (await kubectl.ok(['create', 'token', 'default', '-n', other])).trim();
      await kubectl.ok(['delete', 'pod', 'short', '-n', other]);
      expect((await whoamiRun(short)).stderr).to.include('Unauthorized');
      expect((await whoamiWith(long)).username).to.equal(`system:serviceaccount:${other}:default`);
      await kubectl.ok(['delete', 'serviceaccount', 'default', '-n', other]);
      expect((await whoamiRun(long)).stderr).to.include('Unauthorized');
      expect((await whoamiRun(created)).stderr).to.include('Unauthorized');
    });

    it('copies a file and a directory into the container and back with kubectl cp', async () => {
      const binary = randomBytes(300_000);
      await writeFile(path.join(local, 'blob.bin'), binary);
      await mkdir(path.join(local, 'tree', 'sub'), { recursive: true });
      await writeFile(path.join(local, 'tree', 'top.txt'), 'top\n');
      await writeFile(path.join(local, 'tree', 'sub', 'deep.txt'), 'deep\n');

      await kubectl.ok(['cp', path.join(local, 'blob.bin'), `${ns}/web:/tmp/blob.bin`]);
      await kubectl.ok(['cp', path.join(local, 'tree'), `${ns}/web:/tmp/tree`]);
      expect((await exec(['ls', '/tmp', '/tmp/tree', '/tmp/tree/sub'])).stdout).to.equal(
        '/tmp:\nblob.bin\ntree\n\n/tmp/tree:\nsub\ntop.txt\n\n/tmp/tree/sub:\ndeep.txt\n',
      );
      expect((await exec(['cat', '/tmp/tree/sub/deep.txt'])).stdout).to.equal('deep\n');

      await kubectl.ok(['cp', `${ns}/web:/tmp/blob.bin`, path.join(local, 'blob.back')]);
      expect((await readFile(path.join(local, 'blob.back'))).equals(binary)).to.equal(true);
      await kubectl.ok(['cp', `${ns}/web:/tmp/tree`, path.join(local, 'tree.back')]);
      expect(await readFile(path.join(local, 'tree.back', 'top.txt'), 'utf8')).to.equal('top\n');
      expect(await readFile(path.join(local, 'tree.back', 'sub', 'deep.txt'), 'utf8')).to.equal('deep\n');
    });

    it('speaks tar with GNU tar, in the pipes kubectl cp --help suggests', async () => {
      await writeFile(path.join(local, 'piped.txt'), 'piped\n');
      const kubectlExec = `${KUBECTL} exec -i web -n ${ns} --`;
      await shell(`tar cf - -C ${local} piped.txt | ${kubectlExec} tar xf - -C /tmp`, kubectl.env);
      expect((await exec(['cat', '/tmp/piped.txt'])).stdout).to.equal('piped\n');
      const listed = await shell(`${kubectlExec} tar cf - /tmp/piped.txt | tar tvf -`, kubectl.env);
      expect(listed).to.match(/^-rw-r--r-- root\/root\s+6 \S+ \S+ tmp\/piped\.txt$/m);
    });

    it('copies into an existing directory under the file’s own name, also over SPDY', async () => {
      await writeFile(path.join(local, 'note.txt'), 'note\n');
      await exec(['mkdir', '-p', '/srv/drop']);
      const spdy = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
      const copied = await kubectl.run(['cp', path.join(local, 'note.txt'), `${ns}/web:/srv/drop`], undefined, spdy);
      expect(copied.code, copied.stderr).to.equal(0);
      expect((await exec(['cat', '/srv/drop/note.txt'])).stdout).to.equal('note\n');
    });

    it('answers as tar and the shell would when a path is missing or read-only', async () => {
      // kubectl prints the container's tar errors (its exit code races kubectl's own end: not asserted).
      const missing = await kubectl.run(['cp', `${ns}/web:/tmp/nothing`, path.join(local, 'nothing')]);
      expect(missing.stdout + missing.stderr).to.include('tar: /tmp/nothing: Cannot stat: No such file or directory');

      await writeFile(path.join(local, 'intruder'), 'x');
      const readOnly = await kubectl.run(['cp', path.join(local, 'intruder'), `${ns}/web:${TOKEN_DIR}/intruder`]);
      expect(readOnly.code).to.not.equal(0);
      expect(readOnly.stderr).to.include('tar: intruder: Cannot open: Read-only file system');

      const garbage = await exec(['tar', 'xf', '-', '-C', '/tmp'], 'not a tar archive\n');
      expect(garbage.code).to.equal(2);
      expect(garbage.stderr).to.equal(
        'tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors\ncommand terminated with exit code 2\n',
      );

      const cat = await exec(['cat', '/etc/motd']);
      expect(cat.code).to.equal(1);
      expect(cat.stderr).to.include('cat: /etc/motd: No such file or directory');
    });

    it('keeps each container’s files apart, and forgets them with the pod', async () => {
      const other = await freshNamespace();
      await kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'pair', namespace: other },
          spec: {
            containers: [
              { name: 'a', image: 'nginx' },
              { name: 'b', image: 'nginx' },
            ],
          },
        }),
      );
      await kubectl.ok(['cp', path.join(local, 'note.txt'), `${other}/pair:/tmp/note.txt`, '-c', 'a']);
      const read = (container: string) =>
        kubectl.run(['exec', 'pair', '-n', other, '-c', container, '--', 'cat', '/tmp/note.txt']);
      expect((await read('a')).stdout).to.equal('note\n');
      expect((await read('b')).code).to.equal(1);

      await kubectl.ok(['delete', 'pod', 'pair', '-n', other]);
      await kubectl.ok(['run', 'pair', '--image=nginx', '-n', other]);
      expect((await kubectl.run(['exec', 'pair', '-n', other, '--', 'ls', '/tmp'])).stdout).to.equal('');
    });
  });
});
