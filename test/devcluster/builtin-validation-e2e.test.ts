/**
 * kube's validation of built-in kinds as the real kubectl meets it on the devcluster: an invalid
 * manifest is refused (also by a server-side dry run) with kube's causes, and a StatefulSet whose
 * claim template kube 1.32 lets through is refused where kube refuses it, when its controller
 * creates the claim, with kube's FailedCreate events.
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { getJson } from '../support/workloads.js';

describe('devcluster: kube validation of built-in kinds through the real kubectl', function () {
  this.timeout(60_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let admin: Kubectl;

  before(async () => {
    const dir = await makeTempDir('builtin-validation');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await Kubectl.create(cluster.kubeconfigPath);
  });
  after(async () => {
    await admin?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  it('refuses, also on a dry run, a Service with a port out of range and a Deployment its selector does not match, printing every cause', async () => {
    const manifest = [
      'apiVersion: v1',
      'kind: Service',
      'metadata: {name: web, namespace: default}',
      'spec:',
      '  selector: {app: web}',
      '  ports: [{name: http, port: 80, targetPort: 70000}, {port: 443}]',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: web, namespace: default}',
      'spec:',
      '  selector: {matchLabels: {app: web}}',
      '  template:',
      '    metadata: {labels: {app: api}}',
      '    spec: {containers: [{name: web, image: nginx}]}',
      '',
    ].join('\n');
    for (const dryRun of [['--dry-run=server'], []]) {
      const result = await admin.run(['apply', ...dryRun, '-f', '-'], manifest);
      expect(result.code, result.stdout).to.equal(1);
      // apply prints the Status message, in which kube lists several causes in brackets.
      expect(result.stderr).to.equal(
        'Error from server (Invalid): error when creating "STDIN": Service "web" is invalid: [spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[1].name: Required value]\n' +
          'Error from server (Invalid): error when creating "STDIN": Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"api"}: `selector` does not match template `labels`\n',
      );
    }
    const left = await admin.run(['get', 'service,deployment', 'web', '-n', 'default']);
    expect(left.stderr).to.include('services "web" not found').and.to.include('deployments.apps "web" not found');
  });

  it('takes a StatefulSet whose claim template has no access modes, as kube 1.32 does, and reports the refused claim as its controller does', async () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
      spec: {
        serviceName: 'db',
        replicas: 1,
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }],
      },
    };
    expect(await admin.ok(['apply', '-f', '-'], JSON.stringify(sts))).to.equal('statefulset.apps/db created\n');
    const claimError =
      'PersistentVolumeClaim "data-db-0" is invalid: spec.accessModes: Required value: at least 1 access mode is required';
    await eventually(
      async () =>
        (await getJson(admin, ['events', '-n', 'default', '--field-selector', 'involvedObject.name=db'])).items.map(
          (event: any) => `${event.type} ${event.reason} ${event.message}`,
        ),
      (events: string[]) =>
        expect(events).to.include.members([
          `Warning FailedCreate create Claim data-db-0 for Pod db-0 in StatefulSet db failed error: ${claimError}`,
          `Warning FailedCreate create Pod db-0 in StatefulSet db failed error: failed to create PVC data-db-0: ${claimError}`,
        ]),
    );
    expect(await admin.ok(['get', 'pods,pvc', '-n', 'default', '-o', 'name'])).to.equal('');
  });
});
