import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

type Pod = Record<string, any>;

/**
 * `kubectl debug` on the devcluster with the real kubectl 1.32: ephemeral containers through the
 * `pods/ephemeralcontainers` subresource (a strategic merge patch, then a wait for the container
 * to run, then an attach), and `--copy-to`, whose Pod kubectl's typed client sends as protobuf.
 */
describe('devcluster with the real kubectl: kubectl debug, pods/ephemeralcontainers', function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let kubectl: Kubectl;
  let api: ApiClient;
  let namespaces = 0;

  before(async () => {
    const temp = await makeTempDir('kubectl-debug');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    await kubectl?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  /** A fresh namespace with a running pod `mypod` whose one container is `app`. */
  async function runningPod(): Promise<string> {
    const namespace = `debug-${++namespaces}`;
    await kubectl.ok(['create', 'namespace', namespace]);
    await kubectl.ok(['run', 'mypod', '--image=nginx:1.27', '-n', namespace, '--overrides', OVERRIDES]);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/mypod', '-n', namespace, '--timeout=20s']);
    return namespace;
  }
  const OVERRIDES = JSON.stringify({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });
  const getPod = async (namespace: string, name = 'mypod'): Promise<Pod> =>
    JSON.parse(await kubectl.ok(['get', 'pod', name, '-n', namespace, '-o', 'json']));
  const debug = (namespace: string, args: string[], input?: string) =>
    kubectl.run(['debug', 'mypod', '-n', namespace, '--profile=general', ...args], input);

  it('adds an ephemeral container that the kubelet starts, whose logs kubectl reads (-c)', async () => {
    const namespace = await runningPod();
    const result = await debug(namespace, ['--image=busybox', '-c', 'dbg', '--', 'echo', 'hi']);
    expect(result.code, result.stderr).to.equal(0);
    const pod = await waitUntil('the ephemeral container runs', async () => {
      const current = await getPod(namespace);
      return current.status.ephemeralContainerStatuses?.[0]?.state?.running && current;
    });
    expect(pod.spec.ephemeralContainers).to.have.length(1);
    expect(pod.spec.ephemeralContainers[0]).to.include({
      name: 'dbg',
      image: 'busybox',
      terminationMessagePolicy: 'File',
    });
    expect(pod.spec.ephemeralContainers[0].command).to.deep.equal(['echo', 'hi']);
    expect(pod.status.ephemeralContainerStatuses[0]).to.include({
      name: 'dbg',
      image: 'docker.io/library/busybox:latest',
      ready: false,
      restartCount: 0,
    });
    // The app container goes on as it was.
    expect(pod.spec.containers.map((c: Pod) => c.name)).to.deep.equal(['app']);
    expect(pod.status.containerStatuses[0].state.running).to.be.an('object');
    const events = await waitUntil('the kubelet records Started', async () => {
      const list = JSON.parse(
        await kubectl.ok([
          'get',
          'events',
          '-n',
          namespace,
          '--field-selector',
          'involvedObject.name=mypod',
          '-o',
          'json',
        ]),
      ).items as Pod[];
      return list.some((e) => e.reason === 'Started' && e.involvedObject.fieldPath?.includes('ephemeral')) && list;
    });
    const own = events.filter((e) => e.involvedObject.fieldPath === 'spec.ephemeralContainers{dbg}');
    expect(own.map((e) => e.reason)).to.include.members(['Created', 'Started']);
    expect(await kubectl.ok(['logs', 'mypod', '-c', 'dbg', '-n', namespace])).to.equal(
      'mypod dbg started\nmypod dbg image busybox\nmypod dbg ready\n',
    );
  });

  it('attaches to the ephemeral container it starts (-i), then exec reaches it too', async () => {
    const namespace = await runningPod();
    const result = await debug(
      namespace,
      ['-i', '--image=busybox', '-c', 'shell', '--target=app', '--', 'sh'],
      'hello from stdin\n',
    );
    expect(result.code, result.stderr).to.equal(0);
    // Attach echoes stdin (devcluster/streaming/README.md): what kubectl sent came back through the attach.
    expect(result.stdout).to.match(/^Targeting container "app"\. .*\nhello from stdin\n$/);
    const pod = await getPod(namespace);
    expect(pod.spec.ephemeralContainers[0]).to.include({ name: 'shell', targetContainerName: 'app', stdin: true });
    expect(await kubectl.ok(['exec', 'mypod', '-c', 'shell', '-n', namespace, '--', 'echo', 'inside'])).to.equal(
      'inside\n',
    );
  });

  it('copies the pod with a debug container (--copy-to: a protobuf Pod create)', async () => {
    const namespace = await runningPod();
    const result = await debug(namespace, ['--copy-to=mypod-copy', '--image=busybox', '-c', 'dbg', '--', 'echo', 'hi']);
    expect(result.code, result.stderr).to.equal(0);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/mypod-copy', '-n', namespace, '--timeout=20s']);
    const copy = await getPod(namespace, 'mypod-copy');
    expect(copy.spec.containers.map((c: Pod) => [c.name, c.image, c.command])).to.deep.equal([
      ['app', 'nginx:1.27', undefined],
      ['dbg', 'busybox', ['echo', 'hi']],
    ]);
    // Decoded from protobuf as Go's JSON would carry it: kubectl sets shareProcessNamespace (a pointer).
    expect(copy.spec.shareProcessNamespace).to.equal(true);
    expect(copy.metadata.labels).to.equal(undefined);
    expect(copy.status.phase).to.equal('Running');
    // The original is left alone.
    expect((await getPod(namespace)).spec.ephemeralContainers).to.equal(undefined);
  });

  it('reads and writes the subresource as kube does: GET answers the pod, only ephemeral containers change', async () => {
    const namespace = await runningPod();
    const path = `/api/v1/namespaces/${namespace}/pods/mypod/ephemeralcontainers`;
    const got = await api.request('GET', path);
    expect([got.status, (got.body as Pod).kind, (got.body as Pod).metadata.name]).to.deep.equal([200, 'Pod', 'mypod']);
    const pod = got.body as Pod;
    pod.metadata.labels = { sneaked: 'in' };
    pod.spec.containers[0].image = 'evil:1';
    pod.spec.ephemeralContainers = [{ name: 'dbg', image: 'busybox', command: ['sleep', '1d'] }];
    const put = await api.request('PUT', path, pod);
    expect(put.status, put.text).to.equal(200);
    const stored = await getPod(namespace);
    expect(stored.metadata.labels).to.deep.equal({ run: 'mypod' });
    expect(stored.spec.containers[0].image).to.equal('nginx:1.27');
    expect(stored.spec.ephemeralContainers.map((c: Pod) => c.name)).to.deep.equal(['dbg']);
    const { managedFields } = ((await api.request('GET', `/api/v1/namespaces/${namespace}/pods/mypod`)).body as Pod)
      .metadata;
    expect(managedFields.map((m: Pod) => m.subresource ?? '')).to.include('ephemeralcontainers');
  });

  it('needs its own permission: patch of pods/ephemeralcontainers, not of pods', async () => {
    const namespace = await runningPod();
    const n = ['-n', namespace];
    await kubectl.ok(['create', 'role', 'pods', '--verb=get,list,watch,patch,update', '--resource=pods', ...n]);
    await kubectl.ok(['create', 'rolebinding', 'bob-pods', '--role=pods', '--user=bob', ...n]);
    const args = ['--as=bob', '--image=busybox', '-c', 'dbg'];
    const refused = await debug(namespace, args);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(
      `pods "mypod" is forbidden: User "bob" cannot patch resource "pods/ephemeralcontainers" in API group "" in the namespace "${namespace}"`,
    );
    await kubectl.ok(['create', 'role', 'debug', '--verb=patch', '--resource=pods/ephemeralcontainers', ...n]);
    await kubectl.ok(['create', 'rolebinding', 'bob-debug', '--role=debug', '--user=bob', ...n]);
    const allowed = await debug(namespace, args);
    expect(allowed.code, allowed.stderr).to.equal(0);
  });

  it('debugs the node with a pod of its own (kubectl debug node/…: a protobuf Pod with host namespaces and the root filesystem)', async () => {
    const namespace = await runningPod();
    const result = await kubectl.run([
      'debug',
      'node/devcluster-control-plane',
      '-n',
      namespace,
      '--profile=general',
      '--image=busybox',
      '--',
      'echo',
      'hi',
    ]);
    expect(result.code, result.stderr).to.equal(0);
    const name = /Creating debugging pod (\S+) with container/.exec(result.stdout)?.[1];
    expect(name, result.stdout).to.be.a('string');
    const pod = await getPod(namespace, name);
    expect(pod.spec).to.deep.include({
      nodeName: 'devcluster-control-plane',
      hostPID: true,
      hostNetwork: true,
      hostIPC: true,
    });
    // kubectl's host root, beside the ServiceAccount token volume kube's admission adds to every pod.
    expect(pod.spec.volumes[0]).to.deep.equal({ name: 'host-root', hostPath: { path: '/', type: '' } });
    expect(pod.spec.volumes).to.have.lengthOf(2);
    expect(pod.spec.volumes[1].name).to.match(/^kube-api-access-[a-z0-9]{5}$/);
    expect(pod.spec.containers[0].volumeMounts[0]).to.deep.equal({ name: 'host-root', mountPath: '/host' });
  });

  describe('validation, as kube-apiserver 1.32', () => {
    let namespace: string;
    before(async () => {
      namespace = await runningPod();
      const added = await debug(namespace, ['--image=busybox', '-c', 'dbg', '--', 'sleep', '1d']);
      expect(added.code, added.stderr).to.equal(0);
    });

    const patch = (type: string, body: unknown) =>
      kubectl.run([
        'patch',
        'pod',
        'mypod',
        '-n',
        namespace,
        '--subresource=ephemeralcontainers',
        `--type=${type}`,
        '-p',
        JSON.stringify(body),
      ]);

    it('refuses removing an existing ephemeral container', async () => {
      const result = await patch('json', [{ op: 'remove', path: '/spec/ephemeralContainers/0' }]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(
        'The Pod "mypod" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed',
      );
    });

    it('refuses changing an existing ephemeral container', async () => {
      const result = await patch('json', [
        { op: 'replace', path: '/spec/ephemeralContainers/0/image', value: 'alpine' },
      ]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(
        'The Pod "mypod" is invalid: spec.ephemeralContainers[dbg]: Forbidden: existing ephemeral containers "dbg" may not be changed',
      );
    });

    it('refuses a name another container has, a target it does not have, and fields ephemeral containers may not set', async () => {
      const duplicateName = await debug(namespace, ['--image=busybox', '-c', 'app']);
      expect(duplicateName.code).to.equal(1);
      expect(duplicateName.stderr).to.include(
        'The Pod "mypod" is invalid: spec.ephemeralContainers[1].name: Duplicate value: "app"',
      );
      const target = await debug(namespace, ['--image=busybox', '-c', 'other', '--target=nope']);
      expect(target.code).to.equal(1);
      expect(target.stderr).to.include('spec.ephemeralContainers[1].targetContainerName: Not found: "nope"');
      const ports = await patch('strategic', {
        spec: { ephemeralContainers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] },
      });
      expect(ports.code).to.equal(1);
      // A strategic merge puts the patch's new items first.
      expect(ports.stderr).to.include(
        'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      );
      expect((await getPod(namespace)).spec.ephemeralContainers.map((c: Pod) => c.name)).to.deep.equal(['dbg']);
    });

    it('refuses ephemeral containers on create, and their change through the pod itself', async () => {
      const created = await kubectl.run(
        ['create', '-n', namespace, '-f', '-'],
        JSON.stringify(podWithEphemeral('born')),
      );
      expect(created.code).to.equal(1);
      expect(created.stderr).to.include(
        'The Pod "born" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create',
      );
      const viaPod = await kubectl.run([
        'patch',
        'pod',
        'mypod',
        '-n',
        namespace,
        '--type=strategic',
        '-p',
        JSON.stringify({ spec: { ephemeralContainers: [{ name: 'sneak', image: 'busybox' }] } }),
      ]);
      expect(viaPod.code).to.equal(1);
      expect(viaPod.stderr).to.include(
        'The Pod "mypod" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`',
      );
    });
  });

  it('answers a path it does not serve with empty details, which kubectl debug reads', async () => {
    const namespace = await runningPod();
    const missing = await api.request('GET', `/api/v1/namespaces/${namespace}/pods/mypod/nonesuch`);
    expect(missing.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    // A missing pod names itself in details: kubectl says so rather than "ephemeral containers are disabled".
    const absent = await kubectl.run(['debug', 'nope', '-n', namespace, '--image=busybox', '--profile=general']);
    expect(absent.code).to.equal(1);
    expect(absent.stderr).to.include('pods "nope" not found');
    expect(absent.stderr).to.not.include('panic');
  });
});

function podWithEphemeral(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'app', image: 'nginx' }],
      ephemeralContainers: [{ name: 'dbg', image: 'busybox' }],
    },
  };
}
