import { expect } from 'chai';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { eventually, waitUntil } from '../support/eventually.js';
import type { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

describe("gateway: a tenant's namespace defaults and pod files, as on a cluster of its own", function () {
  let stage: TwoTenants;
  let tenant: Kubectl;
  let other: Kubectl;
  let local: string;
  let removeLocal: () => Promise<void>;
  let upstreamCa: string;
  let gatewayCa: string;

  before(async () => {
    stage = await startTwoTenants('pod-files', ['podfls', 'podoth']);
    [tenant, other] = stage.tenants.map((t) => t.kubectl);
    ({ dir: local, remove: removeLocal } = await makeTempDir('pod-files-local'));
    const kubeconfig = parse(stage.upstreamKubeconfig);
    upstreamCa = Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    const tenantKubeconfig = parse(stage.tenants[0].kubeconfig);
    gatewayCa = Buffer.from(tenantKubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString(
      'utf8',
    );
  });
  after(async () => {
    await stage?.stop();
    await removeLocal?.();
  });

  it("gives a new namespace its default ServiceAccount and kube-root-ca.crt (the gateway's CA), in the tenant's names", async () => {
    await tenant.ok(['create', 'namespace', 'fresh']);
    await waitUntil('both in fresh', async () => {
      const names = await tenant.ok(['get', 'serviceaccounts,configmaps', '-n', 'fresh', '-o', 'name']);
      return names === 'serviceaccount/default\nconfigmap/kube-root-ca.crt\n';
    });
    const configMap = JSON.parse(
      await tenant.ok(['get', 'configmap', 'kube-root-ca.crt', '-n', 'fresh', '-o', 'json']),
    );
    expect(configMap.metadata.namespace).to.equal('fresh');
    // The CA in-cluster clients verify their API with: the gateway's (upstream it stays the cluster's).
    expect(configMap.data).to.deep.equal({ 'ca.crt': gatewayCa });
    const upstreamConfigMap = await stage.member.request(
      'GET',
      '/api/v1/namespaces/podfls-fresh/configmaps/kube-root-ca.crt',
    );
    expect(upstreamConfigMap.body.data).to.deep.equal({ 'ca.crt': upstreamCa });
    // Upstream they live in the tenant's prefixed namespace: another tenant sees no `fresh`.
    expect(
      (await stage.member.request('GET', '/api/v1/namespaces/podfls-fresh/serviceaccounts/default')).status,
    ).to.equal(200);
    expect((await other.run(['get', 'serviceaccounts', '-n', 'fresh'])).stderr).to.equal(
      'No resources found in fresh namespace.\n',
    );

    const token = (await tenant.ok(['create', 'token', 'default', '-n', 'fresh'])).trim();
    const review = await stage.member.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, audiences: [GATEWAY_AUDIENCE] },
    });
    // A token through the gateway is for the gateway's audience, and names the prefixed account upstream.
    expect(review.body.status.audiences).to.deep.equal([GATEWAY_AUDIENCE]);
    expect(review.body.status.user.username).to.equal('system:serviceaccount:podfls-fresh:default');
  });

  it("mounts the pod's token files for its API, the gateway (its CA, the namespace's own name), and kubectl cp works both ways", async () => {
    await waitUntil(
      'the default ServiceAccount',
      async () => (await tenant.run(['get', 'serviceaccount', 'default', '-n', 'default'])).code === 0,
    );
    await tenant.ok(['run', 'web', '--image=nginx', '-n', 'default']);
    const pod = JSON.parse(await tenant.ok(['get', 'pod', 'web', '-o', 'json']));
    expect(pod.spec.serviceAccountName).to.equal('default');
    expect(pod.spec.containers[0].volumeMounts[0]).to.include({ mountPath: TOKEN_DIR, readOnly: true });
    const exec = (args: string[]) => tenant.run(['exec', 'web', '--', ...args]);
    expect((await exec(['ls', TOKEN_DIR])).stdout).to.equal('ca.crt\nnamespace\ntoken\n');
    expect((await exec(['cat', `${TOKEN_DIR}/ca.crt`])).stdout).to.equal(gatewayCa);
    expect((await exec(['cat', `${TOKEN_DIR}/namespace`])).stdout).to.equal('default');

    const blob = randomBytes(100_000);
    await writeFile(path.join(local, 'blob.bin'), blob);
    await mkdir(path.join(local, 'tree'), { recursive: true });
    await writeFile(path.join(local, 'tree', 'a.txt'), 'a\n');
    await tenant.ok(['cp', path.join(local, 'blob.bin'), 'default/web:/tmp/blob.bin']);
    await tenant.ok(['cp', path.join(local, 'tree'), 'default/web:/tmp/tree']);
    expect((await exec(['cat', '/tmp/tree/a.txt'])).stdout).to.equal('a\n');
    await tenant.ok(['cp', 'default/web:/tmp/blob.bin', path.join(local, 'blob.back')]);
    expect((await readFile(path.join(local, 'blob.back'))).equals(blob)).to.equal(true);
    await tenant.ok(['cp', 'default/web:/tmp/tree', path.join(local, 'tree.back')]);
    expect(await readFile(path.join(local, 'tree.back', 'a.txt'), 'utf8')).to.equal('a\n');

    // Another tenant's pod of the same name is another pod: none of these files.
    await waitUntil(
      'the other default ServiceAccount',
      async () => (await other.run(['get', 'serviceaccount', 'default', '-n', 'default'])).code === 0,
    );
    await other.ok(['run', 'web', '--image=nginx', '-n', 'default']);
    expect((await other.run(['exec', 'web', '--', 'ls', '/tmp'])).stdout).to.equal('');
  });

  it("mounts no token where the pod's ServiceAccount turns automount off and the pod says nothing, as kube's admission", async () => {
    await tenant.ok(['create', 'namespace', 'quiet']);
    await tenant.ok(['create', 'serviceaccount', 'quiet', '-n', 'quiet']);
    await tenant.ok([
      'patch',
      'serviceaccount',
      'quiet',
      '-n',
      'quiet',
      '-p',
      '{"automountServiceAccountToken":false}',
    ]);
    const pod = (name: string, automount?: boolean) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'quiet' },
        spec: {
          serviceAccountName: 'quiet',
          ...(automount === undefined ? {} : { automountServiceAccountToken: automount }),
          containers: [{ name: 'app', image: 'nginx' }],
        },
      });
    await writeFile(path.join(local, 'silent.json'), pod('silent'));
    await writeFile(path.join(local, 'asks.json'), pod('asks', true));
    await tenant.ok(['create', '-f', path.join(local, 'silent.json')]);
    await tenant.ok(['apply', '--server-side', '-f', path.join(local, 'asks.json')]);
    await writeFile(
      path.join(local, 'deployment.json'),
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'quiet', namespace: 'quiet' },
        spec: {
          selector: { matchLabels: { app: 'quiet' } },
          template: { metadata: { labels: { app: 'quiet' } }, spec: JSON.parse(pod('x')).spec },
        },
      }),
    );
    await tenant.ok(['apply', '-f', path.join(local, 'deployment.json')]);

    const upstream = async (path: string) => (await stage.member.request('GET', path)).body as Record<string, any>;
    const silent = await upstream('/api/v1/namespaces/podfls-quiet/pods/silent');
    expect(silent.spec.volumes ?? []).to.deep.equal([]);
    expect(silent.spec.containers[0].volumeMounts ?? []).to.deep.equal([]);
    // Still pointed at the gateway: only the token is left out.
    expect(silent.spec.containers[0].env.map((e: { name: string }) => e.name)).to.include('KUBERNETES_SERVICE_HOST');
    expect((await tenant.run(['exec', 'silent', '-n', 'quiet', '--', 'ls', TOKEN_DIR])).code).not.to.equal(0);
    const asks = await upstream('/api/v1/namespaces/podfls-quiet/pods/asks');
    expect(asks.spec.volumes.map((v: { name: string }) => v.name)).to.deep.equal(['kube-api-access-pddck']);
    // A workload's template likewise, and so the pods made from it.
    const deployment = await upstream('/apis/apps/v1/namespaces/podfls-quiet/deployments/quiet');
    expect(deployment.spec.template.spec.volumes ?? []).to.deep.equal([]);
    await eventually(
      async () =>
        (await stage.member.request('GET', '/api/v1/namespaces/podfls-quiet/pods?labelSelector=app%3Dquiet')).body,
      (list: any) => {
        expect(list.items).to.have.length(1);
        expect(list.items[0].spec.volumes ?? []).to.deep.equal([]);
      },
    );
    // Moved to an account that mounts (`kubectl set serviceaccount`, a patch), and back: the token follows the account.
    await tenant.ok(['create', 'serviceaccount', 'talks', '-n', 'quiet']);
    const tokenVolumes = async () =>
      (
        (await upstream('/apis/apps/v1/namespaces/podfls-quiet/deployments/quiet')).spec.template.spec.volumes ?? []
      ).map((v: { name: string }) => v.name);
    await tenant.ok(['set', 'serviceaccount', 'deployment/quiet', 'talks', '-n', 'quiet']);
    expect(await tokenVolumes()).to.deep.equal(['kube-api-access-pddck']);
    const moved = JSON.parse(await tenant.ok(['get', 'deployment', 'quiet', '-n', 'quiet', '-o', 'json']));
    expect(moved.spec.template.spec).to.include({ serviceAccountName: 'talks' });
    expect(moved.spec.template.spec.volumes).to.equal(undefined);
    // Its new pods have the files, for the gateway: its CA, the namespace's own name.
    let talking = '';
    await eventually(
      async () =>
        (await stage.member.request('GET', '/api/v1/namespaces/podfls-quiet/pods?labelSelector=app%3Dquiet')).body,
      (list: any) => {
        const pod = list.items.find((p: any) => p.spec.serviceAccountName === 'talks' && !p.metadata.deletionTimestamp);
        expect(pod?.spec.volumes?.map((v: { name: string }) => v.name)).to.deep.equal(['kube-api-access-pddck']);
        talking = pod.metadata.name;
      },
    );
    const read = (file: string) => tenant.ok(['exec', talking, '-n', 'quiet', '--', 'cat', `${TOKEN_DIR}/${file}`]);
    expect(await read('namespace')).to.equal('quiet');
    expect(await read('ca.crt')).to.equal(gatewayCa);
    await tenant.ok(['set', 'serviceaccount', 'deployment/quiet', 'quiet', '-n', 'quiet']);
    expect(await tokenVolumes()).to.deep.equal([]);
    // A JSON patch of the name does the same.
    await tenant.ok([
      'patch',
      'deployment',
      'quiet',
      '-n',
      'quiet',
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/spec/template/spec/serviceAccountName","value":"talks"}]',
    ]);
    expect(await tokenVolumes()).to.deep.equal(['kube-api-access-pddck']);
  });

  it("never lets the cluster mount a token of its own, which its API would accept, whatever a patch does to the gateway's", async () => {
    await tenant.ok(['create', 'deployment', 'bare', '--image=nginx', '-n', 'default']);
    const patch = (type: string, body: unknown) =>
      tenant.run(['patch', 'deployment', 'bare', '-n', 'default', '--type', type, '-p', JSON.stringify(body)]);
    const spec = '/spec/template/spec';
    // The gateway's volume taken out; then each way to unset the field that keeps the cluster's admission from adding its own.
    expect(
      (
        await patch('json', [
          { op: 'remove', path: `${spec}/volumes` },
          { op: 'remove', path: `${spec}/containers/0/volumeMounts` },
        ])
      ).code,
    ).to.equal(0);
    expect(
      (await patch('merge', { spec: { template: { spec: { automountServiceAccountToken: null } } } })).code,
    ).to.equal(0);
    const moved = await patch('json', [
      { op: 'copy', from: '/spec/paused', path: `${spec}/automountServiceAccountToken` },
    ]);
    expect((await patch('json', [{ op: 'remove', path: `${spec}/automountServiceAccountToken` }])).code).to.equal(0);
    expect(moved.stderr).to.include('automountServiceAccountToken');
    const deployment = (await stage.member.request('GET', '/apis/apps/v1/namespaces/podfls-default/deployments/bare'))
      .body as Record<string, any>;
    expect(deployment.spec.template.spec.automountServiceAccountToken).to.equal(false);
    expect(deployment.spec.template.spec.volumes).to.equal(undefined);
    // The tenant reads its template as it wrote it.
    const own = JSON.parse(await tenant.ok(['get', 'deployment', 'bare', '-n', 'default', '-o', 'json']));
    expect(own.spec.template.spec.automountServiceAccountToken).to.equal(undefined);

    await tenant.ok(['delete', 'pods', '-l', 'app=bare', '-n', 'default', '--wait=false']);
    await eventually(
      async () =>
        (await stage.member.request('GET', '/api/v1/namespaces/podfls-default/pods?labelSelector=app%3Dbare')).body,
      (list: any) => {
        const live = list.items.filter((pod: any) => !pod.metadata.deletionTimestamp);
        expect(live).to.have.length(1);
        // No token at all, rather than one for the cluster's own audience.
        expect(live[0].spec.volumes ?? []).to.deep.equal([]);
      },
    );
  });
});
