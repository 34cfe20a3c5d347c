import { expect } from 'chai';
import { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

type Json = Record<string, any>;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function deploymentYaml(replicas: number, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: ${image}
`;
}

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const cronTabYaml = (schedule: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly}
spec: {schedule: "${schedule}", image: backup}
`;

const entryOf = (object: Json, manager: string) =>
  (object.metadata.managedFields as Json[]).find((entry) => entry.manager === manager);
/** kubectl's managers; the deployment controller's own entries (revision annotation, status) are not in question. */
const managersOf = (object: Json) =>
  (object.metadata.managedFields as Json[])
    .filter((e) => e.manager !== 'kube-controller-manager')
    .map((e) => `${e.manager}/${e.operation}`);

describe('client-side apply, then server-side apply, with the real kubectl 1.32: directly and through the gateway', function () {
  let stage: TwoTenants;
  let direct: Kubectl;

  before(async () => {
    stage = await startTwoTenants('csa-to-ssa', ['csaone', 'csatwo']);
    direct = await Kubectl.create(stage.upstream.kubeconfigPath);
  });
  after(async () => {
    await direct?.dispose();
    await stage?.stop();
  });

  const paths: { name: string; kubectl: () => Kubectl }[] = [
    { name: 'directly on the devcluster', kubectl: () => direct },
    { name: 'through a tenant kubeconfig', kubectl: () => stage.tenants[0].kubectl },
  ];

  for (const [index, path] of paths.entries()) {
    it(`${path.name}: apply --server-side after apply has no conflict, hands the fields to kubectl, and later writes behave as kube`, async () => {
      const kubectl = path.kubectl();
      const ns = `migrate-${index}`;
      await kubectl.ok(['create', 'namespace', ns]);
      await kubectl.ok(['apply', '-n', ns, '-f', '-'], deploymentYaml(2, 'nginx:1.26'));
      const get = async () =>
        JSON.parse(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json', '--show-managed-fields']));
      expect(managersOf(await get())).to.deep.equal(['kubectl-client-side-apply/Update']);

      // A changed image: kube allows it without --force-conflicts, as the last client-side apply set it.
      const migrated = await kubectl.run(
        ['apply', '--server-side', '-n', ns, '-f', '-', '-v=6'],
        deploymentYaml(2, 'nginx:1.27'),
      );
      expect(migrated.code, migrated.stderr).to.equal(0);
      expect(migrated.stdout).to.equal('deployment.apps/web serverside-applied\n');
      expect(migrated.stderr).not.to.include('Warning');
      // kubectl's migration: a JSON patch of metadata.managedFields, then the apply again.
      expect(migrated.stderr).to.match(
        /PATCH \S+\/deployments\/web\?fieldManager=kubectl&fieldValidation=Strict 200 OK/,
      );

      const object = await get();
      expect(object.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
      expect(managersOf(object)).to.have.members(['kubectl/Apply', 'kubectl-last-applied/Apply']);
      const kubectlFields = entryOf(object, 'kubectl')!.fieldsV1;
      expect(kubectlFields['f:spec']['f:replicas']).to.deep.equal({});
      expect(kubectlFields['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}']).to.include.keys(
        'f:image',
      );
      expect(entryOf(object, 'kubectl-last-applied')!.fieldsV1).to.deep.equal({
        'f:metadata': { 'f:annotations': { [`f:${LAST_APPLIED}`]: {} } },
      });
      const lastApplied = JSON.parse(object.metadata.annotations[LAST_APPLIED]);
      expect(lastApplied.spec.template.spec.containers[0].image).to.equal('nginx:1.27');
      // Through the gateway it also holds the resourceVersion the gateway pins the apply to (docs/translate.md).
      expect(lastApplied.metadata).to.deep.include({ name: 'web', namespace: ns });

      // A later client-side apply works and is tracked again as the client-side manager.
      await kubectl.ok(['apply', '-n', ns, '-f', '-'], deploymentYaml(3, 'nginx:1.27'));
      const clientSide = await get();
      expect(clientSide.spec.replicas).to.equal(3);
      expect(entryOf(clientSide, 'kubectl-client-side-apply')!.fieldsV1['f:spec']).to.deep.equal({ 'f:replicas': {} });

      // Another manager changing that field gets kube's conflict.
      const other = await kubectl.run(
        ['apply', '--server-side', '--field-manager=other', '-n', ns, '-f', '-'],
        deploymentYaml(5, 'nginx:1.27'),
      );
      expect(other.code).to.equal(1);
      // The client-side apply took .spec.replicas from kubectl: an Update takes what it changes.
      expect(other.stderr).to.include(
        'error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas\n',
      );
    });
  }

  it('through a tenant kubeconfig, the migration of a custom resource keeps its group converted both ways', async () => {
    const kubectl = stage.tenants[0].kubectl;
    await kubectl.ok(['apply', '-f', '-'], CRD);
    await kubectl.ok(['apply', '-f', '-'], cronTabYaml('0 1 * * *'));
    // A changed value: the annotation, converted up like the object, lets the cluster allow it.
    const migrated = await kubectl.run(['apply', '--server-side', '-f', '-'], cronTabYaml('0 2 * * *'));
    expect(migrated.code, migrated.stderr).to.equal(0);
    expect(migrated.stderr).to.equal('');

    const object = JSON.parse(await kubectl.ok(['get', 'crontab', 'nightly', '-o', 'json', '--show-managed-fields']));
    expect(object.spec.schedule).to.equal('0 2 * * *');
    expect(managersOf(object)).to.have.members(['kubectl/Apply', 'kubectl-last-applied/Apply']);
    for (const entry of object.metadata.managedFields) expect(entry.apiVersion).to.equal('stable.example.com/v1');
    // The cluster rewrote the annotation from the converted configuration; it comes down in the
    // tenant's names, in a list (converted from its text) as in a single object.
    const listed = JSON.parse(await kubectl.ok(['get', 'crontabs', '-o', 'json'])).items[0];
    for (const seen of [object, listed])
      expect(JSON.parse(seen.metadata.annotations[LAST_APPLIED])).to.deep.include({
        apiVersion: 'stable.example.com/v1',
        metadata: { name: 'nightly', namespace: 'default' },
      });

    // Upstream, the entries kubectl wrote carry the tenant's group, as the object does.
    const answer = await stage.member.request(
      'GET',
      '/apis/csaone-stable.example.com/v1/namespaces/csaone-default/crontabs/nightly',
    );
    expect(answer.status, answer.text).to.equal(200);
    const upstream = answer.body;
    expect(managersOf(upstream)).to.have.members(['kubectl/Apply', 'kubectl-last-applied/Apply']);
    for (const entry of upstream.metadata.managedFields)
      expect(entry.apiVersion).to.equal('csaone-stable.example.com/v1');
    expect(JSON.parse(upstream.metadata.annotations[LAST_APPLIED]).apiVersion).to.equal('csaone-stable.example.com/v1');
  });
});
