/**
 * HorizontalPodAutoscaler between autoscaling/v1 and v2 as kube 1.32 converts it
 * (pkg/apis/autoscaling/v1/conversion.go and its conversion_test.go): v1's CPU target is v2's CPU
 * utilization metric, everything else v1 cannot hold rides in annotations and comes back whole.
 */
import { expect } from 'chai';
import {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  horizontalPodAutoscalerConversion as conversion,
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
} from '../../apiserver/conversion/horizontal-pod-autoscaler.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';

const ref = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const cpu = (averageUtilization: number) => ({
  type: 'Resource',
  resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
});

/** A v2 HPA with every kind of metric, a behavior, current metrics and conditions. */
function richV2(): ApiObject {
  return {
    metadata: { name: 'web', namespace: 'default', annotations: { team: 'a' } },
    spec: {
      scaleTargetRef: ref,
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        cpu(70),
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' },
            target: { type: 'Value', value: '2k' },
            metric: { name: 'requests', selector: { matchLabels: { verb: 'GET' } } },
          },
        },
        {
          type: 'External',
          external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } },
        },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }],
        },
        scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
      },
    },
    status: {
      currentReplicas: 3,
      desiredReplicas: 4,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 85 } } },
      ],
      conditions: [
        {
          type: 'ScalingLimited',
          status: 'False',
          lastTransitionTime: '2024-01-02T03:04:05Z',
          reason: 'DesiredWithinRange',
          message: 'the desired count is within the acceptable range & <fine>',
        },
      ],
    },
  };
}

describe('HorizontalPodAutoscaler conversion between autoscaling/v1 and autoscaling/v2', () => {
  it("v1's CPU target is v2's CPU utilization metric, and back", () => {
    const v1 = {
      metadata: { name: 'web' },
      spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 1, desiredReplicas: 2, currentCPUUtilizationPercentage: 40 },
    };
    const v2 = conversion.toStorage(v1, 'v1');
    expect(v2.spec).to.deep.equal({ scaleTargetRef: ref, minReplicas: 2, maxReplicas: 5, metrics: [cpu(80)] });
    expect(v2.status).to.deep.equal({
      currentReplicas: 1,
      desiredReplicas: 2,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } }],
    });
    expect(conversion.fromStorage(v2, 'v1')).to.deep.equal({
      metadata: {
        name: 'web',
        annotations: {
          [METRIC_STATUSES_ANNOTATION]:
            '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"0"}}]',
        },
      },
      spec: v1.spec,
      status: v1.status,
    });
  });

  it("makes v1's implicit 80% CPU target explicit when there is no metric at all", () => {
    const v2 = conversion.toStorage({ metadata: { name: 'web' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } }, 'v1');
    expect(v2.spec.metrics).to.deep.equal([cpu(80)]);
    expect(conversion.fromStorage(v2, 'v1').spec).to.deep.equal({
      scaleTargetRef: ref,
      maxReplicas: 3,
      targetCPUUtilizationPercentage: 80,
    });
  });

  it('v1 always prints its spec and status structs with the fields Go never omits', () => {
    const v1 = conversion.fromStorage(
      { metadata: { name: 'web' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } },
      'v1',
    );
    expect(v1.spec).to.deep.equal({ scaleTargetRef: ref, maxReplicas: 3 });
    expect(v1.status).to.deep.equal({ currentReplicas: 0, desiredReplicas: 0 });
  });

  it("writes what v1 cannot hold into annotations as Go's JSON: v1 types for metrics and conditions, kube's internal type for the behavior", () => {
    const v1 = conversion.fromStorage(richV2(), 'v1');
    expect(v1.spec).to.deep.equal({
      scaleTargetRef: ref,
      minReplicas: 2,
      maxReplicas: 10,
      targetCPUUtilizationPercentage: 70,
    });
    expect(v1.status).to.deep.equal({ currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 85 });
    expect(v1.metadata.annotations).to.deep.equal({
      team: 'a',
      [METRIC_SPECS_ANNOTATION]:
        '[{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"100"}},' +
        '{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests","targetValue":"2k","selector":{"matchLabels":{"verb":"GET"}}}},' +
        '{"type":"External","external":{"metricName":"queue","targetAverageValue":"30"}}]',
      [METRIC_STATUSES_ANNOTATION]:
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":85,"currentAverageValue":"250m"}}]',
      [BEHAVIOR_ANNOTATION]:
        '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},' +
        '"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
      [CONDITIONS_ANNOTATION]:
        '[{"type":"ScalingLimited","status":"False","lastTransitionTime":"2024-01-02T03:04:05Z","reason":"DesiredWithinRange",' +
        '"message":"the desired count is within the acceptable range \\u0026 \\u003cfine\\u003e"}]',
    });
  });

  it('a v1 object written back whole comes back as the v2 object it was read from, annotations dropped', () => {
    const original = richV2();
    const back = conversion.toStorage(conversion.fromStorage(structuredClone(original), 'v1'), 'v1');
    // kube puts the annotation's metrics first and v1's CPU target after them.
    const [cpuMetric, ...others] = original.spec.metrics;
    expect(back.spec).to.deep.equal({ ...original.spec, metrics: [...others, cpuMetric] });
    expect(back.status).to.deep.equal(original.status);
    expect(back.metadata.annotations).to.deep.equal({ team: 'a' });
  });

  it('v2 never shows the round-trip annotations, whichever way', () => {
    const annotated = {
      metadata: { name: 'web', annotations: { [METRIC_SPECS_ANNOTATION]: '[]', [BEHAVIOR_ANNOTATION]: '{}' } },
      spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [cpu(50)] },
    };
    expect(conversion.toStorage(annotated, 'v2').metadata).to.deep.equal({ name: 'web' });
    expect(conversion.fromStorage(annotated, 'v2').metadata).to.deep.equal({ name: 'web' });
  });

  it('ignores annotations that do not parse, or a behavior that sets nothing, and drops them', () => {
    const v2 = conversion.toStorage(
      {
        metadata: {
          name: 'web',
          annotations: {
            [METRIC_SPECS_ANNOTATION]: 'not json',
            [METRIC_STATUSES_ANNOTATION]: '{"an":"object"}',
            [CONDITIONS_ANNOTATION]: '[',
            [BEHAVIOR_ANNOTATION]: '{}',
          },
        },
        spec: { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
      },
      'v1',
    );
    expect(v2.metadata).to.deep.equal({ name: 'web' });
    expect(v2.spec).to.deep.equal({ scaleTargetRef: ref, maxReplicas: 3, metrics: [cpu(60)] });
    expect(v2.status).to.deep.equal({ desiredReplicas: 0 });
  });

  it("reads the behavior's Go field names without regard to case, as encoding/json does", () => {
    const v2 = conversion.toStorage(
      {
        metadata: { name: 'web', annotations: { [BEHAVIOR_ANNOTATION]: '{"scaleup":{"selectpolicy":"Disabled"}}' } },
        spec: { scaleTargetRef: ref, maxReplicas: 3 },
      },
      'v1',
    );
    expect(v2.spec.behavior).to.deep.equal({ scaleUp: { selectPolicy: 'Disabled' } });
  });
});
