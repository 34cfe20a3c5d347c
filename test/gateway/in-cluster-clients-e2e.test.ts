/**
 * A tenant's pods use their own API, the gateway, the way every in-cluster client finds one: by
 * `KUBERNETES_SERVICE_HOST`/`PORT` and the token, CA and namespace at
 * /var/run/secrets/kubernetes.io/serviceaccount (translate/kinds/pod-api.ts). The devcluster runs no
 * containers, so each client runs here with what the devcluster gives the pod: its environment
 * (`kubectl exec -- env`) and its files (`kubectl exec -- cat`), kubectl itself with them at the
 * standard path in a mount namespace of its own.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import { exampleCrd } from '../support/crd-fixture.js';
import { waitUntil } from '../support/eventually.js';
import { KUBECTL, type Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const run = promisify(execFile);
const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const PYTHON = '/usr/bin/python3';
/** The controllers' programs; the compiled test runs from dist/test/gateway. */
const PYTHON_CONTROLLER = fileURLToPath(new URL('../../../test/support/in-cluster-controller.py', import.meta.url));
const NODE_CONTROLLER = fileURLToPath(new URL('../support/in-cluster-controller.js', import.meta.url));

const ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'widget-controller', namespace: 'dev' },
  rules: [
    { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['example.com'], resources: ['widgets/status'], verbs: ['get', 'update', 'patch'] },
  ],
};

/** A pod's environment as `env` prints it. */
const environment = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

describe("gateway: a tenant's pods reach their own API, the gateway, with in-cluster config", function () {
  let stage: TwoTenants;
  let tenant: Kubectl;
  let other: Kubectl;
  let gatewayCa: string;
  let temp: { dir: string; remove: () => Promise<void> };
  /** The files of the pod `ctl` at the standard path under `root`, and what its container's env says. */
  let root: string;
  let podEnv: Record<string, string>;
  let token: string;

  /** What a client in the pod runs with: the pod's two variables, nothing of this machine's kubeconfig. */
  const clientEnv = () => ({
    PATH: process.env.PATH,
    HOME: temp.dir,
    KUBERNETES_SERVICE_HOST: podEnv.KUBERNETES_SERVICE_HOST,
    KUBERNETES_SERVICE_PORT: podEnv.KUBERNETES_SERVICE_PORT,
  });

  /** kubectl with in-cluster config: the pod's files at the standard path, in a mount namespace of its own. */
  const inClusterKubectl = (args: string[]) =>
    run(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        `mount -t tmpfs tmpfs /run && mkdir -p ${TOKEN_DIR} && cp "$POD_FILES"/* ${TOKEN_DIR}/ && exec "$KUBECTL" "$@"`,
        'sh',
        ...args,
      ],
      { env: { ...clientEnv(), POD_FILES: path.join(root, TOKEN_DIR), KUBECTL } },
    );

  before(async () => {
    stage = await startTwoTenants('in-cluster', ['incls1', 'incls2']);
    [tenant, other] = stage.tenants.map((t) => t.kubectl);
    temp = await makeTempDir('in-cluster');
    root = path.join(temp.dir, 'pod');
    gatewayCa = Buffer.from(
      parse(stage.tenants[0].kubeconfig).clusters[0].cluster['certificate-authority-data'],
      'base64',
    ).toString('utf8');

    await tenant.ok(['create', 'namespace', 'dev']);
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        ...exampleCrd('widgets', 'Widget', 'Namespaced'),
        spec: {
          ...exampleCrd('widgets', 'Widget', 'Namespaced').spec,
          versions: [
            { ...exampleCrd('widgets', 'Widget', 'Namespaced').spec.versions[0], subresources: { status: {} } },
          ],
        },
      }),
    );
    await tenant.ok(['create', 'serviceaccount', 'ctl', '-n', 'dev']);
    await tenant.ok(['apply', '-f', '-'], JSON.stringify(ROLE));
    await tenant.ok([
      'create',
      'rolebinding',
      'ctl',
      '-n',
      'dev',
      '--role=widget-controller',
      '--serviceaccount=dev:ctl',
    ]);
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'ctl', namespace: 'dev', labels: { app: 'ctl' } },
        spec: { serviceAccountName: 'ctl', containers: [{ name: 'main', image: 'widget-controller' }] },
      }),
    );
    await waitUntil(
      'the widgets kind is served',
      async () => (await tenant.run(['get', 'widgets', '-n', 'dev'])).code === 0,
    );
    const exec = (args: string[]) => tenant.ok(['exec', 'ctl', '-n', 'dev', '--', ...args]);
    podEnv = environment(await exec(['env']));
    await mkdir(path.join(root, TOKEN_DIR), { recursive: true });
    for (const file of ['token', 'ca.crt', 'namespace'])
      await writeFile(path.join(root, TOKEN_DIR, file), await exec(['cat', `${TOKEN_DIR}/${file}`]));
    token = await exec(['cat', `${TOKEN_DIR}/token`]);
  });
  after(async () => {
    await stage?.stop();
    await temp?.remove();
  });

  it('a pod reads back as written, with kube’s token volume; inside, the gateway’s address, CA and token, and its namespace’s own name', async () => {
    const pod = JSON.parse(await tenant.ok(['get', 'pod', 'ctl', '-n', 'dev', '-o', 'json']));
    expect(Object.keys(pod.metadata.annotations)).to.deep.equal(['kubectl.kubernetes.io/last-applied-configuration']);
    expect(pod.spec.hostAliases).to.equal(undefined);
    expect(pod.spec.containers[0].env).to.equal(undefined);
    const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'));
    expect(volume.projected.sources).to.deep.equal([
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ]);
    expect(pod.spec.containers[0].volumeMounts).to.deep.equal([
      { name: volume.name, readOnly: true, mountPath: TOKEN_DIR },
    ]);

    const gateway = new URL(stage.gateway.url);
    expect(podEnv).to.include({
      KUBERNETES_SERVICE_HOST: gateway.hostname,
      KUBERNETES_SERVICE_PORT: gateway.port,
      KUBERNETES_PORT: `tcp://${gateway.host}`,
    });
    expect(await tenant.ok(['exec', 'ctl', '-n', 'dev', '--', 'cat', `${TOKEN_DIR}/ca.crt`])).to.equal(gatewayCa);
    expect(await tenant.ok(['exec', 'ctl', '-n', 'dev', '--', 'cat', `${TOKEN_DIR}/namespace`])).to.equal('dev');
    const claims = claimsOf(token);
    expect(claims.aud).to.deep.equal([GATEWAY_AUDIENCE]);
    expect(claims['kubernetes.io'].pod.name).to.equal('ctl');
  });

  it('the pod’s token is the pod’s account through the gateway, and nothing at the cluster itself', async () => {
    const whoami = await inClusterKubectl(['auth', 'whoami', '-o', 'json']);
    const user = JSON.parse(whoami.stdout).status.userInfo;
    expect(user.username).to.equal('system:serviceaccount:dev:ctl');
    expect(user.extra['authentication.kubernetes.io/pod-name']).to.deep.equal(['ctl']);
    const upstream = await tenant.run([
      'get',
      'pods',
      '--kubeconfig=/dev/null',
      `--server=${stage.upstream.url}`,
      '--insecure-skip-tls-verify',
      `--token=${token}`,
    ]);
    expect(upstream.code).to.equal(1);
    expect(upstream.stderr).to.include('the server has asked for the client to provide credentials');
  });

  it('@kubernetes/client-node’s loadFromCluster() runs a controller that sees and writes only the tenant’s names', async () => {
    await tenant.ok(['apply', '-f', '-'], JSON.stringify(widget('w-node')));
    const { stdout } = await run(
      process.execPath,
      [NODE_CONTROLLER, path.join(root, TOKEN_DIR), 'example.com', 'v1', 'widgets', 'w-node'],
      { env: clientEnv() },
    );
    const saw = JSON.parse(stdout);
    expect(saw.namespace).to.equal('dev');
    expect(saw.seen).to.deep.include(['ADDED', 'example.com/v1', 'dev', 'w-node']);
    expect(saw.status).to.deep.equal({ seenBy: 'client-node', namespace: 'dev' });
    expect(await widgetStatus('w-node')).to.deep.equal({ seenBy: 'client-node', namespace: 'dev' });
  });

  it('python3-kubernetes’s in-cluster config runs the same controller', async () => {
    await tenant.ok(['apply', '-f', '-'], JSON.stringify(widget('w-python')));
    const { stdout } = await run(
      PYTHON,
      [PYTHON_CONTROLLER, path.join(root, TOKEN_DIR), 'example.com', 'v1', 'widgets', 'w-python'],
      { env: clientEnv() },
    );
    const saw = JSON.parse(stdout);
    expect(saw.namespace).to.equal('dev');
    expect(saw.seen).to.deep.include(['ADDED', 'example.com/v1', 'dev', 'w-python']);
    expect(await widgetStatus('w-python')).to.deep.equal({ seenBy: 'python', namespace: 'dev' });
  });

  it('kubectl in the pod lists its namespace’s widgets and is refused what its Role does not grant, in the tenant’s words', async () => {
    await tenant.ok(['apply', '-f', '-'], JSON.stringify(widget('w-kubectl')));
    const listed = await inClusterKubectl(['get', 'widgets', '-o', 'name']);
    expect(listed.stdout.split('\n')).to.include('widget.example.com/w-kubectl');
    const refused = await inClusterKubectl(['create', 'configmap', 'x']).then(
      () => ({ stderr: 'kubectl created the ConfigMap' }),
      (err: { stderr: string }) => err,
    );
    expect(refused.stderr).to.include(
      'configmaps is forbidden: User "system:serviceaccount:dev:ctl" cannot create resource "configmaps" in API group "" in the namespace "dev"',
    );
  });

  it('a Deployment’s pods are pointed at the gateway too, and its template reads back as written', async () => {
    await tenant.ok(['create', 'deployment', 'op', '--image=operator', '-n', 'dev']);
    await tenant.ok(['rollout', 'status', 'deployment/op', '-n', 'dev', '--timeout=60s']);
    const template = JSON.parse(await tenant.ok(['get', 'deployment', 'op', '-n', 'dev', '-o', 'json'])).spec.template;
    expect(template.metadata.annotations).to.equal(undefined);
    expect(template.spec.volumes).to.equal(undefined);
    expect(template.spec.containers[0].env).to.equal(undefined);
    const pod = JSON.parse(await tenant.ok(['get', 'pods', '-n', 'dev', '-l', 'app=op', '-o', 'json'])).items[0];
    const env = environment(await tenant.ok(['exec', pod.metadata.name, '-n', 'dev', '--', 'env']));
    expect(env.KUBERNETES_SERVICE_HOST).to.equal(podEnv.KUBERNETES_SERVICE_HOST);
    expect(await tenant.ok(['exec', pod.metadata.name, '-n', 'dev', '--', 'cat', `${TOKEN_DIR}/namespace`])).to.equal(
      'dev',
    );
  });

  it('a pod’s own token for the cluster’s audience or another tenant’s is for an audience of its own: the cluster refuses it', async () => {
    await other.ok(['create', 'namespace', 'dev']);
    const audiences = ['https://kubernetes.default.svc.cluster.local', 'incls2-vault'];
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'sly', namespace: 'dev', annotations: { 'paddock.io/api-ca': 'a CA of my choosing' } },
        spec: {
          serviceAccountName: 'ctl',
          containers: [{ name: 'main', image: 'x', volumeMounts: [{ name: 'tokens', mountPath: '/tokens' }] }],
          volumes: [
            {
              name: 'tokens',
              projected: {
                sources: audiences.map((audience, i) => ({ serviceAccountToken: { audience, path: `t${i}` } })),
              },
            },
          ],
        },
      }),
    );
    const upstreamPod = (await stage.member.request('GET', '/api/v1/namespaces/incls1-dev/pods/sly')).body;
    expect(upstreamPod.metadata.annotations['paddock.io/api-ca']).to.equal(gatewayCa);
    const tokens = upstreamPod.spec.volumes.find((v: { name: string }) => v.name === 'tokens');
    expect(tokens.projected.sources.map((s: any) => s.serviceAccountToken.audience)).to.deep.equal(
      audiences.map((audience) => `incls1-${audience}`),
    );
    for (const file of ['t0', 't1']) {
      const held = await tenant.ok(['exec', 'sly', '-n', 'dev', '--', 'cat', `/tokens/${file}`]);
      expect(claimsOf(held).aud[0]).to.match(/^incls1-/);
      const review = await stage.member.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token: held },
      });
      expect(review.body.status.authenticated ?? false, file).to.equal(false);
    }
    // Read back, the pod holds what the tenant wrote, but for the annotation only the gateway writes.
    const mine = JSON.parse(await tenant.ok(['get', 'pod', 'sly', '-n', 'dev', '-o', 'json']));
    expect(Object.keys(mine.metadata.annotations)).to.deep.equal(['kubectl.kubernetes.io/last-applied-configuration']);
    expect(mine.spec.volumes.find((v: { name: string }) => v.name === 'tokens').projected.sources).to.deep.equal(
      audiences.map((audience, i) => ({ serviceAccountToken: { audience, expirationSeconds: 3600, path: `t${i}` } })),
    );
  });

  const widget = (name: string) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'dev' },
  });
  const widgetStatus = async (name: string) =>
    JSON.parse(await tenant.ok(['get', 'widget', name, '-n', 'dev', '-o', 'json'])).status;
});
