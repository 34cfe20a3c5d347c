import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

function deploymentYaml(options: { replicas: number; image: string; labels?: string }): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {${options.labels ?? 'app: web'}}
spec:
  replicas: ${options.replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: ${options.image}
`;
}

const CONTROLLER = 'kube-controller-manager';

describe('devcluster: server-side apply with the real kubectl 1.32', function () {
  let cluster: DevCluster;
  let kubectl: Kubectl;
  let api: ApiClient;
  let removeDir: () => Promise<void>;
  let namespaceCounter = 0;

  before(async () => {
    const temp = await makeTempDir('server-side-apply');
    removeDir = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
    await removeDir?.();
  });
  beforeEach(async () => {
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
  });
  afterEach(async () => {
    await kubectl.dispose();
  });

  async function freshNamespace(): Promise<string> {
    const name = `ssa-${++namespaceCounter}`;
    await kubectl.ok(['create', 'namespace', name]);
    return name;
  }

  /** The clients' entries: the deployment controller's own (an Update of status, as on kube) is left out. */
  async function managedFields(ns: string): Promise<Record<string, any>[]> {
    const entries: Record<string, any>[] = JSON.parse(
      await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json', '--show-managed-fields']),
    ).metadata.managedFields;
    const controller = entries.filter((e) => e.manager === CONTROLLER);
    expect(controller.map((e) => [e.operation, e.subresource])).to.deep.equal(
      controller.map(() => ['Update', 'status']),
    );
    return entries.filter((e) => e.manager !== CONTROLLER);
  }

  it('creates (201), re-applies, reports a conflict as kubectl expects it, and hands the field over with --force-conflicts', async () => {
    const ns = await freshNamespace();
    // -v=6 makes kubectl log each request with its response status.
    const created = await kubectl.run(
      ['apply', '--server-side', '-n', ns, '-f', '-', '-v=6'],
      deploymentYaml({ replicas: 2, image: 'nginx:1.26', labels: 'app: web, tier: front' }),
    );
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.equal('deployment.apps/web serverside-applied\n');
    expect(created.stderr).to.match(
      /PATCH \S+\/deployments\/web\?fieldManager=kubectl&fieldValidation=Strict&force=false 201 Created/,
    );

    const reapplied = await kubectl.run(
      ['apply', '--server-side', '-n', ns, '-f', '-', '-v=6'],
      deploymentYaml({ replicas: 2, image: 'nginx:1.27' }),
    );
    expect(reapplied.stdout).to.equal('deployment.apps/web serverside-applied\n');
    expect(reapplied.stderr).to.match(/PATCH \S+\/deployments\/web\?\S+ 200 OK/);
    const live = JSON.parse(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'json']));
    expect(live.spec.template.spec.containers.map((c: any) => [c.name, c.image])).to.deep.equal([
      ['app', 'nginx:1.27'],
    ]);
    expect(live.metadata.labels, 'the label kubectl stopped applying is gone').to.deep.equal({ app: 'web' });
    expect(live.metadata, 'kubectl hides managedFields unless asked').not.to.have.property('managedFields');

    const conflicting = await kubectl.run(
      ['apply', '--server-side', '--field-manager=other', '-n', ns, '-f', '-'],
      deploymentYaml({ replicas: 5, image: 'nginx:1.27' }),
    );
    expect(conflicting.code).to.equal(1);
    const [first, ...advice] = conflicting.stderr.trimEnd().split('\n');
    expect(first).to.equal('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect(advice[0]).to.equal('Please review the fields above--they currently have other managers. Here');
    expect(advice.join('\n')).to.contain('`--force-conflicts`');
    expect(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).to.equal('2');

    const forced = await kubectl.run(
      ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-n', ns, '-f', '-'],
      deploymentYaml({ replicas: 5, image: 'nginx:1.27' }),
    );
    expect(forced.code, forced.stderr).to.equal(0);
    expect(forced.stdout).to.equal('deployment.apps/web serverside-applied\n');
    expect(await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).to.equal('5');
    const entries = await managedFields(ns);
    const byManager = Object.fromEntries(entries.map((e) => [e.manager, e]));
    expect(entries.map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsType])).to.deep.equal([
      ['kubectl', 'Apply', 'apps/v1', 'FieldsV1'],
      ['other', 'Apply', 'apps/v1', 'FieldsV1'],
    ]);
    expect(byManager.other.fieldsV1['f:spec']).to.have.property('f:replicas');
    expect(byManager.kubectl.fieldsV1['f:spec']).not.to.have.property('f:replicas');
    expect(
      byManager.kubectl.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}'],
    ).to.deep.equal({ '.': {}, 'f:image': {}, 'f:name': {} });

    const yaml = await kubectl.ok(['get', 'deployment', 'web', '-n', ns, '-o', 'yaml', '--show-managed-fields']);
    // Each entry as kubectl prints it: its fieldsV1 block, then its manager and operation.
    const printed = [
      ...yaml.matchAll(
        /^ {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n([\s\S]*?)^ {4}manager: (\S+)\n {4}operation: (\S+)$/gm,
      ),
    ];
    expect(printed.filter((m) => m[2] !== CONTROLLER).map((m) => [m[2], m[3]])).to.deep.equal([
      ['kubectl', 'Apply'],
      ['other', 'Apply'],
    ]);
    expect(printed.filter((m) => m[2] !== CONTROLLER).map((m) => /^ {8}f:replicas: \{\}$/m.test(m[1]))).to.deep.equal([
      false,
      true,
    ]);
  });

  it('ordinary writes record Update entries that take the fields they change', async () => {
    const ns = await freshNamespace();
    await kubectl.ok(
      ['apply', '--server-side', '-n', ns, '-f', '-'],
      deploymentYaml({ replicas: 2, image: 'nginx:1.27' }),
    );
    await kubectl.ok(['scale', 'deployment', 'web', '-n', ns, '--replicas=3']);
    await kubectl.ok(['label', 'deployment', 'web', '-n', ns, 'team=blue']);
    const entries = await managedFields(ns);
    // kubectl scale sends no field manager: kube names it after the User-Agent, with the subresource.
    expect(entries.map((e) => [e.manager, e.operation, e.subresource ?? ''])).to.have.deep.members([
      ['kubectl', 'Apply', ''],
      ['kubectl', 'Update', 'scale'],
      ['kubectl-label', 'Update', ''],
    ]);
    expect(entries.find((e) => e.manager === 'kubectl-label')!.fieldsV1).to.deep.equal({
      'f:metadata': { 'f:labels': { 'f:team': {} } },
    });

    const conflicting = await kubectl.run(
      ['apply', '--server-side', '-n', ns, '-f', '-'],
      deploymentYaml({ replicas: 2, image: 'nginx:1.27' }),
    );
    expect(conflicting.code).to.equal(1);
    expect(conflicting.stderr.split('\n')[0]).to.equal(
      'error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
    );
  });

  it('answers over HTTP as kube-apiserver does: 400 without a field manager, a 409 Status with causes on conflict', async () => {
    const ns = await freshNamespace();
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
    const body = deploymentYaml({ replicas: 1, image: 'nginx' });

    const anonymous = await api.request('PATCH', path, body, APPLY);
    expect(anonymous.status).to.equal(400);
    expect(anonymous.body).to.include({
      kind: 'Status',
      reason: 'BadRequest',
      message: 'fieldManager is required for apply requests',
    });

    const created = await api.request('PATCH', `${path}?fieldManager=first`, body, APPLY);
    expect(created.status).to.equal(201);
    expect(created.body.metadata.managedFields.map((e: any) => e.manager)).to.deep.equal(['first']);
    const again = await api.request('PATCH', `${path}?fieldManager=first`, body, APPLY);
    expect(again.status).to.equal(200);
    expect(again.body.metadata.resourceVersion, 'an unchanged apply writes nothing').to.equal(
      created.body.metadata.resourceVersion,
    );

    const conflict = await api.request(
      'PATCH',
      `${path}?fieldManager=second`,
      deploymentYaml({ replicas: 4, image: 'nginx' }),
      APPLY,
    );
    expect(conflict.status).to.equal(409);
    expect(conflict.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "first": .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.spec.replicas' }],
      },
      code: 409,
    });

    const wrongKind = await api.request(
      'PATCH',
      `${path}?fieldManager=first`,
      body.replace('kind: Deployment', 'kind: StatefulSet'),
      APPLY,
    );
    expect(wrongKind.status).to.equal(400);
    expect(wrongKind.body.message).to.equal('invalid object type: apps/v1, Kind=StatefulSet');
  });
});
