/**
 * kube 1.32's HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation), its test
 * table ported (validation_test.go: TestValidateHorizontalPodAutoscaler and the behavior and
 * update cases): each case names the field and message kube reports, on the autoscaling/v2 form
 * the devcluster stores and validates.
 */
import { expect } from 'chai';
import { validateHorizontalPodAutoscaler } from '../../apiserver/validation/kinds/horizontal-pod-autoscaler.js';

type Json = Record<string, any>;

const cpu = (averageUtilization: number) => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
});

function hpa(spec: Json = {}, status: Json = {}): Json {
  return {
    metadata: { name: 'myautoscaler', namespace: 'default' },
    spec: {
      scaleTargetRef: { kind: 'ReplicationController', name: 'myrc' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [cpu(70)],
      ...spec,
    },
    status,
  };
}

const rules = (value: Json) => ({
  behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 1 }], ...value } },
});

describe('HorizontalPodAutoscaler validation (kube 1.32)', () => {
  describe('valid objects', () => {
    const valid: [string, Json][] = [
      ['a CPU utilization target', hpa()],
      [
        'a CPU average value',
        hpa({
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '300m' } } },
          ],
        }),
      ],
      [
        'a container resource',
        hpa({
          metrics: [
            {
              type: 'ContainerResource',
              containerResource: {
                name: 'cpu',
                container: 'app',
                target: { type: 'Utilization', averageUtilization: 70 },
              },
            },
          ],
        }),
      ],
      [
        'a pods metric',
        hpa({
          metrics: [
            {
              type: 'Pods',
              pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '300m' } },
            },
          ],
        }),
      ],
      [
        'an object metric',
        hpa({
          metrics: [
            {
              type: 'Object',
              object: {
                describedObject: { kind: 'ReplicationController', name: 'myrc' },
                metric: { name: 'somemetric' },
                target: { type: 'Value', value: '300m' },
              },
            },
          ],
        }),
      ],
      [
        'an external metric with a per-pod target',
        hpa({
          metrics: [
            {
              type: 'External',
              external: {
                metric: { name: 'somemetric', selector: { matchLabels: { label: 'value' } } },
                target: { type: 'AverageValue', averageValue: '300m' },
              },
            },
          ],
        }),
      ],
      ['no metrics', hpa({ metrics: undefined })],
      [
        'a behavior at its limits',
        hpa({
          behavior: {
            scaleUp: {
              stabilizationWindowSeconds: 3600,
              selectPolicy: 'Min',
              policies: [{ type: 'Percent', value: 1, periodSeconds: 1800 }],
            },
            scaleDown: {
              stabilizationWindowSeconds: 0,
              selectPolicy: 'Disabled',
              policies: [{ type: 'Pods', value: 1, periodSeconds: 1 }],
            },
          },
        }),
      ],
    ];
    for (const [name, object] of valid)
      it(name, () => expect(validateHorizontalPodAutoscaler(object)).to.deep.equal([]));
  });

  describe('invalid objects: the first cause, as kube reports it', () => {
    const cases: [string, Json, string, string][] = [
      ['no target kind', hpa({ scaleTargetRef: { name: 'myrc' } }), 'spec.scaleTargetRef.kind', 'Required value'],
      [
        'a target kind ..',
        hpa({ scaleTargetRef: { kind: '..', name: 'myrc' } }),
        'spec.scaleTargetRef.kind',
        `Invalid value: "..": may not be '..'`,
      ],
      [
        'no target name',
        hpa({ scaleTargetRef: { kind: 'ReplicationController' } }),
        'spec.scaleTargetRef.name',
        'Required value',
      ],
      [
        'a target name with a slash',
        hpa({ scaleTargetRef: { kind: 'ReplicationController', name: 'a/b' } }),
        'spec.scaleTargetRef.name',
        `Invalid value: "a/b": may not contain '/'`,
      ],
      [
        'minReplicas -1',
        hpa({ minReplicas: -1 }),
        'spec.minReplicas',
        'Invalid value: -1: must be greater than or equal to 1',
      ],
      [
        'minReplicas 0',
        hpa({ minReplicas: 0 }),
        'spec.minReplicas',
        'Invalid value: 0: must be greater than or equal to 1',
      ],
      [
        'maxReplicas 0',
        hpa({ minReplicas: undefined, maxReplicas: 0 }),
        'spec.maxReplicas',
        'Invalid value: 0: must be greater than 0',
      ],
      [
        'maxReplicas below minReplicas',
        hpa({ minReplicas: 7 }),
        'spec.maxReplicas',
        'Invalid value: 5: must be greater than or equal to `minReplicas`',
      ],
      [
        'a negative utilization',
        hpa({ metrics: [cpu(-70)] }),
        'spec.metrics[0].resource.target.averageUtilization',
        'Invalid value: -70: must be greater than 0',
      ],
      [
        'both a utilization and an average value',
        hpa({
          metrics: [
            {
              type: 'Resource',
              resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70, averageValue: '300m' } },
            },
          ],
        }),
        'spec.metrics[0].resource.target.averageValue',
        'Forbidden: may not set both a target raw value and a target utilization',
      ],
      [
        'no resource name',
        hpa({ metrics: [{ type: 'Resource', resource: { target: { type: 'Utilization', averageUtilization: 70 } } }] }),
        'spec.metrics[0].resource.name',
        'Required value: must specify a resource name',
      ],
      [
        'neither a utilization nor a value',
        hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] }),
        'spec.metrics[0].resource.target.averageUtilization',
        'Required value: must set either a target raw value or a target utilization',
      ],
      [
        'a target of no type',
        hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { averageUtilization: 70 } } }] }),
        'spec.metrics[0].resource.target.type',
        'Required value: must specify a metric target type',
      ],
      [
        'a target of an unknown type',
        hpa({
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Percent', averageUtilization: 70 } } },
          ],
        }),
        'spec.metrics[0].resource.target.type',
        'Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
      ],
      [
        'a zero average value',
        hpa({
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '0' } } },
          ],
        }),
        'spec.metrics[0].resource.target.averageValue',
        'Invalid value: "0": must be positive',
      ],
      [
        'a pods metric without a name',
        hpa({
          metrics: [{ type: 'Pods', pods: { metric: {}, target: { type: 'AverageValue', averageValue: '100m' } } }],
        }),
        'spec.metrics[0].pods.metric.name',
        'Required value: must specify a metric name',
      ],
      [
        'a pods metric without an average value',
        hpa({
          metrics: [
            { type: 'Pods', pods: { metric: { name: 'somemetric' }, target: { type: 'Value', value: '100m' } } },
          ],
        }),
        'spec.metrics[0].pods.target.averageValue',
        'Required value: must specify a positive target averageValue',
      ],
      [
        'an object metric without a described kind',
        hpa({
          metrics: [
            {
              type: 'Object',
              object: {
                describedObject: { name: 'myrc' },
                metric: { name: 'somemetric' },
                target: { type: 'Value', value: '100m' },
              },
            },
          ],
        }),
        'spec.metrics[0].object.describedObject.kind',
        'Required value',
      ],
      [
        'an object metric without a target',
        hpa({
          metrics: [
            {
              type: 'Object',
              object: {
                describedObject: { kind: 'ReplicationController', name: 'myrc' },
                metric: { name: 'somemetric' },
                target: { type: 'Value' },
              },
            },
          ],
        }),
        'spec.metrics[0].object.target.averageValue',
        'Required value: must set either a target value or averageValue',
      ],
      [
        'an external metric with both targets',
        hpa({
          metrics: [
            {
              type: 'External',
              external: {
                metric: { name: 'somemetric' },
                target: { type: 'Value', value: '300m', averageValue: '100m' },
              },
            },
          ],
        }),
        'spec.metrics[0].external.target.value',
        'Forbidden: may not set both a target value for metric and a per-pod target',
      ],
      [
        'an external metric without a target',
        hpa({
          metrics: [{ type: 'External', external: { metric: { name: 'somemetric' }, target: { type: 'Value' } } }],
        }),
        'spec.metrics[0].external.target.averageValue',
        'Required value: must set either a target value for metric or a per-pod target',
      ],
      [
        'a container resource without a container',
        hpa({
          metrics: [
            {
              type: 'ContainerResource',
              containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
            },
          ],
        }),
        'spec.metrics[0].containerResource.container',
        'Required value: must specify a container',
      ],
      [
        'a container resource that is no container resource',
        hpa({
          metrics: [
            {
              type: 'ContainerResource',
              containerResource: {
                name: 'pods',
                container: 'app',
                target: { type: 'Utilization', averageUtilization: 70 },
              },
            },
          ],
        }),
        'spec.metrics[0].containerResource.name',
        'Invalid value: "pods": must be a standard resource for containers',
      ],
      [
        'a metric of no type',
        hpa({ metrics: [{}] }),
        'spec.metrics[0].type',
        'Required value: must specify a metric source type',
      ],
      [
        'a metric of an unknown type',
        hpa({ metrics: [{ type: 'InvalidType' }] }),
        'spec.metrics[0].type',
        'Unsupported value: "InvalidType": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      ],
      [
        'a metric without its source',
        hpa({ metrics: [{ type: 'Resource' }] }),
        'spec.metrics[0].resource',
        'Required value: must populate information for the given metric source',
      ],
      [
        'a metric with two sources',
        hpa({
          metrics: [
            {
              type: 'Resource',
              resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
              pods: { metric: { name: 'somemetric' }, target: { type: 'AverageValue', averageValue: '100m' } },
            },
          ],
        }),
        'spec.metrics[0].pods',
        'Forbidden: must populate the given metric source only',
      ],
      [
        'a scale-up rule without policies',
        hpa(rules({ policies: [] })),
        'spec.behavior.scaleUp.policies',
        'Required value: must specify at least one Policy',
      ],
      [
        'a negative stabilization window',
        hpa(rules({ stabilizationWindowSeconds: -1 })),
        'spec.behavior.scaleUp.stabilizationWindowSeconds',
        'Invalid value: -1: must be greater than or equal to zero',
      ],
      [
        'a stabilization window over an hour',
        hpa(rules({ stabilizationWindowSeconds: 3601 })),
        'spec.behavior.scaleUp.stabilizationWindowSeconds',
        'Invalid value: 3601: must be less than or equal to 3600',
      ],
      [
        'an unknown select policy',
        hpa(rules({ selectPolicy: 'Avg' })),
        'spec.behavior.scaleUp.selectPolicy',
        'Unsupported value: "Avg": supported values: "Disabled", "Max", "Min"',
      ],
      [
        'a policy of an unknown type',
        hpa(rules({ policies: [{ type: 'Repetition', value: 1, periodSeconds: 1 }] })),
        'spec.behavior.scaleUp.policies[0].type',
        'Unsupported value: "Repetition": supported values: "Percent", "Pods"',
      ],
      [
        'a policy of value 0',
        hpa(rules({ policies: [{ type: 'Pods', value: 0, periodSeconds: 1 }] })),
        'spec.behavior.scaleUp.policies[0].value',
        'Invalid value: 0: must be greater than zero',
      ],
      [
        'a policy period over half an hour',
        hpa(rules({ policies: [{ type: 'Pods', value: 1, periodSeconds: 1801 }] })),
        'spec.behavior.scaleUp.policies[0].periodSeconds',
        'Invalid value: 1801: must be less than or equal to 1800',
      ],
      [
        'a negative current replica count',
        hpa({}, { currentReplicas: -1 }),
        'status.currentReplicas',
        'Invalid value: -1: must be greater than or equal to 0',
      ],
    ];
    for (const [name, object, field, message] of cases) {
      it(name, () => {
        const [first] = validateHorizontalPodAutoscaler(object);
        expect(first, 'no cause').to.not.equal(undefined);
        expect({ field: first.field, message: first.message }).to.deep.equal({ field, message });
      });
    }
  });

  it('reports an unknown metric type as kube does: twice, as its two checks find it', () => {
    const causes = validateHorizontalPodAutoscaler(hpa({ metrics: [{ type: 'InvalidType' }] }));
    expect(causes.map((c) => c.field)).to.deep.equal(['spec.metrics[0].type', 'spec.metrics[0].type']);
  });

  it('lets an object that already has minReplicas 0 keep it, with an Object or External metric', () => {
    const external = {
      type: 'External',
      external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '10' } },
    };
    const before = hpa({ minReplicas: 0, metrics: [external] });
    expect(validateHorizontalPodAutoscaler(hpa({ minReplicas: 0, metrics: [external] }), before)).to.deep.equal([]);
    expect(validateHorizontalPodAutoscaler(hpa({ minReplicas: 0, metrics: [cpu(50)] }), before)).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field: 'spec.metrics',
        message: 'Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
      },
    ]);
  });
});
