/**
 * HorizontalPodAutoscalers with the real kubectl: autoscaling/v2 (preferred) and v1 over one
 * stored object, kube's defaults, validation, table and unknown-field checks, the status
 * subresource, and the simulated controller that keeps the target between minReplicas and
 * maxReplicas and reports what it saw (there is no metrics API, as on a cluster without
 * metrics-server).
 */
import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { getJson } from '../support/workloads.js';

const AGE = '[0-9]+[smh]';
const NO_METRICS_API =
  'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: ' +
  'unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';

const v1Autoscaler = (name: string, target: string, cpu?: number) =>
  [
    'apiVersion: autoscaling/v1',
    'kind: HorizontalPodAutoscaler',
    `metadata: {name: ${name}}`,
    'spec:',
    `  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: ${target}}`,
    '  minReplicas: 2',
    '  maxReplicas: 5',
    ...(cpu === undefined ? [] : [`  targetCPUUtilizationPercentage: ${cpu}`]),
  ].join('\n');

describe('devcluster HorizontalPodAutoscalers with the real kubectl (autoscaling/v1 and v2)', function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let admin: Kubectl;

  before(async () => {
    const dir = await makeTempDir('hpa');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await Kubectl.create(cluster.kubeconfigPath);
  });
  after(async () => {
    await admin?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  const ns = (name: string) => ['-n', name];

  it('discovery serves both versions, v2 preferred, as hpa in the all category', async () => {
    expect(await admin.ok(['api-resources', '--api-group=autoscaling', '--no-headers'])).to.match(
      /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler\n$/,
    );
    const versions = (await admin.ok(['api-versions'])).split('\n');
    expect(versions).to.include.members(['autoscaling/v1', 'autoscaling/v2']);
    const group = JSON.parse(await admin.ok(['get', '--raw', '/apis/autoscaling']));
    expect(group.preferredVersion).to.deep.equal({ groupVersion: 'autoscaling/v2', version: 'v2' });
    expect(await admin.ok(['explain', 'hpa.spec.behavior.scaleDown'])).to.match(
      /^GROUP:\s+autoscaling\nKIND:\s+HorizontalPodAutoscaler\nVERSION:\s+v2\n/,
    );
  });

  it('an autoscaling/v1 HPA from kubectl create -f keeps its Deployment at minReplicas and shows in kubectl get hpa and get all', async () => {
    await admin.ok(['create', 'namespace', 'h1']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx', ...ns('h1')]);
    expect(await admin.ok(['create', '-f', '-', ...ns('h1')], v1Autoscaler('web', 'web', 70))).to.equal(
      'horizontalpodautoscaler.autoscaling/web created\n',
    );
    // The controller scales the Deployment up to minReplicas, then reports the two replicas it sees.
    await eventually(
      () => admin.ok(['get', 'hpa', ...ns('h1')]),
      (table) =>
        expect(table).to.match(
          new RegExp(
            `^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE\nweb +Deployment/web +cpu: <unknown>/70% +2 +5 +2 +${AGE}\n$`,
          ),
        ),
    );
    expect((await getJson(admin, ['deployment', 'web', ...ns('h1')])).spec.replicas).to.equal(2);
    expect(await admin.ok(['get', 'all', ...ns('h1')])).to.match(
      /horizontalpodautoscaler\.autoscaling\/web +Deployment\/web +cpu: <unknown>\/70% +2 +5 +2 /,
    );

    const hpa = await getJson(admin, ['hpa', 'web', ...ns('h1')]);
    expect(hpa.apiVersion).to.equal('autoscaling/v2');
    expect(hpa.spec).to.deep.equal({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
      ],
    });
    expect(hpa.metadata.annotations).to.equal(undefined);
    expect(hpa.status).to.include({ currentReplicas: 2, desiredReplicas: 2 });
    expect(hpa.status.currentMetrics).to.deep.equal([{ type: '' }]);
    expect(hpa.status.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      // Each pass reads the scale first: SucceededRescale lasted until the pass that saw 2 replicas.
      ['AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale"],
      ['ScalingActive', 'False', 'FailedGetResourceMetric', NO_METRICS_API],
    ]);
    const reasons = (
      await getJson(admin, ['events', ...ns('h1'), '--field-selector=involvedObject.kind=HorizontalPodAutoscaler'])
    ).items.map((e: any) => [e.reason, e.message]);
    expect(reasons).to.deep.include([
      'SuccessfulRescale',
      'New size: 2; reason: Current number of replicas below Spec.MinReplicas',
    ]);

    // The same object at v1: v1's fields, and what v1 cannot hold in kube's annotations.
    const v1 = JSON.parse(
      await admin.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/h1/horizontalpodautoscalers/web']),
    );
    expect(v1.apiVersion).to.equal('autoscaling/v1');
    expect(v1.spec).to.deep.equal({
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 2,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 70,
    });
    expect(v1.status).to.include({ currentReplicas: 2, desiredReplicas: 2 });
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/conditions'])).to.have.length(2);
  });

  it('a v1 HPA without a CPU target gets the 80% kube made explicit, and min 1 by default', async () => {
    await admin.ok(['create', 'namespace', 'h2']);
    const manifest = v1Autoscaler('web', 'missing').replace('  minReplicas: 2\n', '');
    await admin.ok(['create', '-f', '-', ...ns('h2')], manifest);
    const hpa = await getJson(admin, ['hpa', 'web', ...ns('h2')]);
    expect(hpa.spec.minReplicas).to.equal(1);
    expect(hpa.spec.metrics).to.deep.equal([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
    ]);
    // Its target does not exist: the controller says so, as kube's does.
    await eventually(
      async () => (await getJson(admin, ['hpa', 'web', ...ns('h2')])).status?.conditions ?? [],
      (conditions: any[]) =>
        expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
          [
            'AbleToScale',
            'False',
            'FailedGetScale',
            `the HPA controller was unable to get the target's current scale: deployments.apps "missing" not found`,
          ],
        ]),
    );
    expect(await admin.ok(['get', 'hpa', '--no-headers', ...ns('h2')])).to.match(
      new RegExp(`^web +Deployment/missing +cpu: <unknown>/80% +1 +5 +0 +${AGE}\n$`),
    );
  });

  it('an autoscaling/v2 HPA from JSON gets its behavior defaults, and a v1 client writing it back loses none of it', async () => {
    await admin.ok(['create', 'namespace', 'h3']);
    const v2 = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'api' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        maxReplicas: 4,
        metrics: [
          { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 60 } } },
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
      },
    };
    await admin.ok(['create', '-f', '-', ...ns('h3')], JSON.stringify(v2));
    const created = await getJson(admin, ['hpa', 'api', ...ns('h3')]);
    expect(created.spec.behavior).to.deep.equal({
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 300,
        selectPolicy: 'Max',
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
    });
    expect(await admin.ok(['get', 'hpa', 'api', '--no-headers', ...ns('h3')])).to.match(
      /^api +Deployment\/api +<unknown>\/100, memory: <unknown>\/60% \+ 1 more\.\.\. +1 +4 +0 /,
    );

    // kubectl replace at v1: the metrics and behavior v1 cannot hold come back from the annotations.
    const v1 = JSON.parse(
      await admin.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/h3/horizontalpodautoscalers/api']),
    );
    expect(v1.spec.targetCPUUtilizationPercentage).to.equal(50);
    expect(Object.keys(v1.metadata.annotations)).to.include.members([
      'autoscaling.alpha.kubernetes.io/metrics',
      'autoscaling.alpha.kubernetes.io/behavior',
    ]);
    v1.spec.maxReplicas = 6;
    expect(await admin.ok(['replace', '-f', '-', ...ns('h3')], JSON.stringify(v1))).to.equal(
      'horizontalpodautoscaler.autoscaling/api replaced\n',
    );
    const replaced = await getJson(admin, ['hpa', 'api', ...ns('h3')]);
    expect(replaced.spec.maxReplicas).to.equal(6);
    expect(replaced.spec.behavior).to.deep.equal(created.spec.behavior);
    expect(replaced.spec.metrics).to.deep.equal(created.spec.metrics);
    expect(replaced.metadata.annotations).to.equal(undefined);
  });

  it('refuses invalid HPAs and unknown fields as kube-apiserver does', async () => {
    await admin.ok(['create', 'namespace', 'h4']);
    const invalid = v1Autoscaler('bad', 'web').replace('maxReplicas: 5', 'maxReplicas: 1');
    const refused = await admin.run(['create', '-f', '-', ...ns('h4')], invalid);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal(
      'The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 1: must be greater than or equal to `minReplicas`\n',
    );
    const typo = await admin.run(['create', '-f', '-', ...ns('h4')], `${v1Autoscaler('typo', 'web')}\n  targetCPU: 5`);
    expect(typo.stderr).to.equal(
      'Error from server (BadRequest): error when creating "STDIN": HorizontalPodAutoscaler in version "v1" cannot be handled as a HorizontalPodAutoscaler: strict decoding error: unknown field "spec.targetCPU"\n',
    );
    // A v2 field sent at v1 is unknown there.
    const misplaced = await admin.run(
      ['create', '-f', '-', ...ns('h4')],
      `${v1Autoscaler('mixed', 'web', 60)}\n  behavior: {scaleUp: {selectPolicy: Max}}`,
    );
    expect(misplaced.stderr).to.contain('strict decoding error: unknown field "spec.behavior"');
  });

  it('status is a subresource: a write of the object keeps it, a write of status keeps the spec', async () => {
    await admin.ok(['create', 'namespace', 'h5']);
    await admin.ok(['create', '-f', '-', ...ns('h5')], v1Autoscaler('web', 'missing', 50));
    await admin.ok([
      'patch',
      'hpa',
      'web',
      '--type=merge',
      '-p',
      '{"spec":{"maxReplicas":7},"status":{"desiredReplicas":9}}',
      ...ns('h5'),
    ]);
    let hpa = await getJson(admin, ['hpa', 'web', ...ns('h5')]);
    expect(hpa.spec.maxReplicas).to.equal(7);
    expect(hpa.status.desiredReplicas).to.equal(0);
    await admin.ok([
      'patch',
      'hpa',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"spec":{"maxReplicas":3},"status":{"desiredReplicas":4}}',
      ...ns('h5'),
    ]);
    hpa = await getJson(admin, ['hpa', 'web', ...ns('h5')]);
    expect(hpa.spec.maxReplicas).to.equal(7);
    expect(hpa.status.desiredReplicas).to.equal(4);
  });

  it('kubectl autoscale creates one (its body is protobuf)', async () => {
    await admin.ok(['create', 'namespace', 'h6']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx', ...ns('h6')]);
    expect(
      await admin.ok(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=80', ...ns('h6')]),
    ).to.equal('horizontalpodautoscaler.autoscaling/web autoscaled\n');
    await eventually(
      () => admin.ok(['get', 'hpa', '--no-headers', ...ns('h6')]),
      (row) => expect(row).to.match(new RegExp(`^web +Deployment/web +cpu: <unknown>/80% +2 +5 +2 +${AGE}\n$`)),
    );
  });
});
