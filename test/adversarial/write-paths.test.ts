/**
 * Writes that would undo the conversion rules: each test tries, by one class of write path, to
 * leave upstream an object outside its tenant (read back with the devcluster's admin
 * credentials, since the tenant's own view hides it) and sees the gateway refuse it or store it
 * normalized. Tenant `alice1` attacks; `bobby2` is the neighbour whose namespace it aims at.
 */
import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';

type Json = Record<string, any>;

const ALICE = 'alice1';
const NEIGHBOUR_NAMESPACE = 'bobby2-default';
const TENANT_REQUIREMENT = { key: 'kubezoo.io/tenant', operator: 'In', values: [ALICE] };
const WEBHOOKS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const STRATEGIC_PATCH = { 'Content-Type': 'application/strategic-merge-patch+json' };

const webhookConfiguration = (name: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name, annotations: { victim: 'bobby2-default' } },
  webhooks: [
    {
      name: 'a.example.com',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      clientConfig: { service: { namespace: 'default', name: 'hook' } },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    },
  ],
});

describe('adversarial: every write path keeps the isolation invariants', function () {
  let stage: Stage;
  let alice: ApiClient;
  let admin: RestClient;
  let kubectl: Kubectl;

  before(async () => {
    stage = await startStage('writes');
    const aliceKubeconfig = (await stage.tenant(ALICE)).kubeconfigPath;
    await stage.tenant('bobby2');
    alice = await ApiClient.load(aliceKubeconfig);
    kubectl = await Kubectl.create(aliceKubeconfig);
    admin = RestClient.fromKubeconfig(stage.upstreamKubeconfig);
  });
  after(async () => {
    alice?.close();
    admin?.close();
    await kubectl?.dispose();
    await stage?.stop();
  });

  /** The object as the upstream holds it. */
  async function upstreamObject(path: string): Promise<Json> {
    const got = await admin.request('GET', path);
    expect(got.status, got.text).to.equal(200);
    return got.body;
  }

  async function created(path: string, body: Json): Promise<void> {
    const answer = await alice.request('POST', path, body);
    expect(answer.status, answer.text).to.equal(201);
  }

  const expectRefused = (answer: { status: number; body: any; text: string }, field: string) => {
    expect(answer.status, answer.text).to.equal(403);
    expect(answer.body.kind).to.equal('Status');
    expect(answer.body.message).to.include(field);
    expect(answer.text).to.not.include('alice1-');
  };

  it('create: a PersistentVolume whose iSCSI secret lives in the neighbour\u2019s namespace gets the secret in its own', async () => {
    await created('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'iscsi' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        iscsi: {
          targetPortal: '10.0.0.1:3260',
          iqn: 'iqn.2001-04.com.example:storage',
          lun: 0,
          secretRef: { name: 'chap', namespace: NEIGHBOUR_NAMESPACE },
        },
      },
    });
    const stored = await upstreamObject('/api/v1/persistentvolumes/alice1-iscsi');
    expect(stored.spec.iscsi.secretRef.namespace).to.equal(`alice1-${NEIGHBOUR_NAMESPACE}`);
  });

  it('update: a StorageClass PUT naming kube-system for its provisioner\u2019s secrets names the tenant\u2019s namespace', async () => {
    await created('/apis/storage.k8s.io/v1/storageclasses', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'csi.example.com',
    });
    const current = (await alice.request('GET', '/apis/storage.k8s.io/v1/storageclasses/fast')).body;
    const put = await alice.request('PUT', '/apis/storage.k8s.io/v1/storageclasses/fast', {
      ...current,
      parameters: { 'csi.storage.k8s.io/provisioner-secret-namespace': 'kube-system' },
    });
    expect(put.status, put.text).to.equal(200);
    const stored = await upstreamObject('/apis/storage.k8s.io/v1/storageclasses/alice1-fast');
    expect(stored.parameters['csi.storage.k8s.io/provisioner-secret-namespace']).to.equal('alice1-kube-system');
  });

  it('JSON patch remove: a webhook stripped of its namespaceSelector keeps the tenant requirement', async () => {
    await created(WEBHOOKS, webhookConfiguration('remove'));
    const patched = await alice.request(
      'PATCH',
      `${WEBHOOKS}/remove`,
      [{ op: 'remove', path: '/webhooks/0/namespaceSelector' }],
      JSON_PATCH,
    );
    expect(patched.status, patched.text).to.equal(200);
    const stored = await upstreamObject(`${WEBHOOKS}/alice1-remove`);
    expect(stored.webhooks[0].namespaceSelector.matchExpressions).to.deep.include(TENANT_REQUIREMENT);
    // The tenant still sees its webhook as it wrote it.
    expect(patched.body.webhooks[0].namespaceSelector ?? {}).to.deep.equal({});
  });

  it('JSON patch copy: a webhook service pointed at the neighbour\u2019s namespace by copying a value is refused', async () => {
    await created(WEBHOOKS, webhookConfiguration('copy'));
    const patched = await alice.request(
      'PATCH',
      `${WEBHOOKS}/copy`,
      [{ op: 'copy', from: '/metadata/annotations/victim', path: '/webhooks/0/clientConfig/service/namespace' }],
      JSON_PATCH,
    );
    expectRefused(patched, 'clientConfig');
    expect((await upstreamObject(`${WEBHOOKS}/alice1-copy`)).webhooks[0].clientConfig.service.namespace).to.equal(
      'alice1-default',
    );
  });

  it('JSON patch add: an annotation of a pod template that only the gateway writes is refused, the stored one kept', async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    await created(deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'marked' },
      spec: {
        selector: { matchLabels: { app: 'marked' } },
        template: { metadata: { labels: { app: 'marked' } }, spec: { containers: [{ name: 'm', image: 'nginx' }] } },
      },
    });
    const upstream = `/apis/apps/v1/namespaces/alice1-default/deployments/marked`;
    const before = (await upstreamObject(upstream)).spec.template.metadata.annotations;
    const patched = await alice.request(
      'PATCH',
      `${deployments}/marked`,
      [{ op: 'add', path: '/spec/template/metadata/annotations/paddock.io~1automount', value: 'true' }],
      JSON_PATCH,
    );
    expectRefused(patched, 'paddock.io/automount');
    expect((await upstreamObject(upstream)).spec.template.metadata.annotations).to.deep.equal(before);
  });

  it('JSON patch move: a Namespace whose labels are moved away keeps its tenant label', async () => {
    await created('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'moved', labels: { team: 'a' } },
    });
    const patched = await alice.request(
      'PATCH',
      '/api/v1/namespaces/moved',
      [{ op: 'move', from: '/metadata/labels', path: '/metadata/annotations' }],
      JSON_PATCH,
    );
    expectRefused(patched, 'labels');
    expect((await upstreamObject('/api/v1/namespaces/alice1-moved')).metadata.labels['kubezoo.io/tenant']).to.equal(
      ALICE,
    );
  });

  it('merge patch null: IngressClass parameters turned cluster-scoped by nulling their scope are refused', async () => {
    await created('/apis/networking.k8s.io/v1/ingressclasses', {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'nginx' },
      spec: {
        controller: 'example.com/ingress',
        parameters: {
          apiGroup: 'k8s.example.com',
          kind: 'Params',
          name: 'cluster-admin',
          scope: 'Namespace',
          namespace: 'default',
        },
      },
    });
    const patched = await alice.request(
      'PATCH',
      '/apis/networking.k8s.io/v1/ingressclasses/nginx',
      { spec: { parameters: { scope: null, namespace: null } } },
      MERGE_PATCH,
    );
    expectRefused(patched, 'spec.parameters');
    const stored = await upstreamObject('/apis/networking.k8s.io/v1/ingressclasses/alice1-nginx');
    expect(stored.spec.parameters).to.include({ scope: 'Namespace', namespace: 'alice1-default' });
  });

  it('strategic $patch: delete: a webhook namespaceSelector deleted by directive keeps the tenant requirement', async () => {
    await created(WEBHOOKS, webhookConfiguration('directive'));
    const patched = await alice.request(
      'PATCH',
      `${WEBHOOKS}/directive`,
      { webhooks: [{ name: 'a.example.com', namespaceSelector: { $patch: 'delete' } }] },
      STRATEGIC_PATCH,
    );
    expect(patched.status, patched.text).to.equal(200);
    expect(
      (await upstreamObject(`${WEBHOOKS}/alice1-directive`)).webhooks[0].namespaceSelector.matchExpressions,
    ).to.deep.include(TENANT_REQUIREMENT);
  });

  it('strategic $patch: delete: a Namespace whose labels map is deleted by directive keeps its tenant label (kubectl patch)', async () => {
    await created('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'unlabelled', labels: { team: 'a' } },
    });
    await kubectl.ok([
      'patch',
      'namespace',
      'unlabelled',
      '--type',
      'strategic',
      '-p',
      JSON.stringify({ metadata: { labels: { $patch: 'delete' } } }),
    ]);
    expect(
      (await upstreamObject('/api/v1/namespaces/alice1-unlabelled')).metadata.labels['kubezoo.io/tenant'],
    ).to.equal(ALICE);
    expect(await kubectl.ok(['get', 'namespaces', '-o', 'name'])).to.include('namespace/unlabelled');
  });

  it('strategic merge by key: an owner reference merged by uid without its kind cannot name an unprefixed ClusterRole', async () => {
    // A real owner: the garbage collector deletes an object whose owner does not exist.
    const role = await alice.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'mine' },
      rules: [],
    });
    expect(role.status, role.text).to.equal(201);
    const owner = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: 'mine',
      uid: role.body.metadata.uid as string,
    };
    await created('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', ownerReferences: [owner] },
    });
    const patched = await alice.request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/owned',
      { metadata: { ownerReferences: [{ uid: owner.uid, name: 'cluster-admin' }] } },
      STRATEGIC_PATCH,
    );
    expectRefused(patched, 'metadata.ownerReferences[0]');
    expect(
      (await upstreamObject('/api/v1/namespaces/alice1-default/configmaps/owned')).metadata.ownerReferences[0].name,
    ).to.equal('alice1-mine');
  });

  it('server-side apply: a StorageClass applied with a secret namespace stores it in the tenant\u2019s namespace', async () => {
    const applied = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'applied' },
      provisioner: 'csi.example.com',
      parameters: { 'csi.storage.k8s.io/node-stage-secret-namespace': NEIGHBOUR_NAMESPACE },
    };
    await kubectl.ok(['apply', '--server-side', '-f', '-'], JSON.stringify(applied));
    await kubectl.ok(
      ['apply', '--server-side', '-f', '-'],
      JSON.stringify({ ...applied, parameters: { 'csi.storage.k8s.io/node-stage-secret-namespace': 'kube-system' } }),
    );
    const stored = await upstreamObject('/apis/storage.k8s.io/v1/storageclasses/alice1-applied');
    expect(stored.parameters['csi.storage.k8s.io/node-stage-secret-namespace']).to.equal('alice1-kube-system');
  });

  it('status subresource: a JSON patch of namespaces/<ns>/status that moves the tenant label away is refused', async () => {
    await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'status' } });
    const patched = await alice.request(
      'PATCH',
      '/api/v1/namespaces/status/status',
      [{ op: 'move', from: '/metadata/labels/kubezoo.io~1tenant', path: '/metadata/annotations/x' }],
      JSON_PATCH,
    );
    expectRefused(patched, 'labels');
    expect((await upstreamObject('/api/v1/namespaces/alice1-status')).metadata.labels['kubezoo.io/tenant']).to.equal(
      ALICE,
    );
  });
});
