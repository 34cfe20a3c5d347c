/**
 * What Go's encoding of Kubernetes' types prints though no client sent it, from the table of
 * k8s.io/api 1.32's types (apiserver/go-json/kubernetes/fields.json): structs always, fields
 * without omitempty as their zero, Time as null; nothing for kinds Kubernetes does not define.
 */
import { expect } from 'chai';
import { fillGoZeroFields } from '../../apiserver/go-json/go-zero-fields.js';

type Json = Record<string, any>;

function filled(group: string, version: string, kind: string, object: Json): Json {
  const copy = structuredClone(object);
  fillGoZeroFields(group, version, kind, copy);
  return copy;
}

describe('Go zero fields of built-in kinds', () => {
  it('a Deployment gets status {}, its template metadata {creationTimestamp: null}, its containers resources {}', () => {
    const deployment = filled('apps', 'v1', 'Deployment', {
      metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    expect(deployment).to.deep.equal({
      metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' }, creationTimestamp: null },
          spec: { containers: [{ name: 'web', image: 'nginx', resources: {} }] },
        },
        strategy: {},
      },
      status: {},
    });
  });

  it('fills what Go prints without omitempty: zeros, empty strings, nulls', () => {
    expect(filled('apps', 'v1', 'DaemonSet', { metadata: { name: 'a' }, spec: {} }).status).to.deep.equal({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    expect(filled('rbac.authorization.k8s.io', 'v1', 'ClusterRole', { metadata: { name: 'r' } }).rules).to.equal(null);
    const event = filled('', 'v1', 'Event', { metadata: { name: 'e' }, involvedObject: { kind: 'Pod' } });
    expect(event).to.deep.include({
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
    expect(
      filled('autoscaling', 'v2', 'HorizontalPodAutoscaler', { metadata: { name: 'h' }, spec: { maxReplicas: 2 } }),
    ).to.deep.include({
      spec: { maxReplicas: 2, scaleTargetRef: { kind: '', name: '' } },
      status: { desiredReplicas: 0, currentMetrics: null },
    });
  });

  it('looks into lists and maps of structs, and leaves what was sent as it was', () => {
    const pod = filled('', 'v1', 'Pod', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a', image: 'x' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z' }],
        containerStatuses: [
          { name: 'a', ready: true, restartCount: 2, image: 'x', imageID: 'id', state: { running: {} } },
        ],
      },
    });
    expect(pod.status.conditions).to.deep.equal([
      { type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', lastProbeTime: null },
    ]);
    expect(pod.status.containerStatuses[0]).to.deep.equal({
      name: 'a',
      ready: true,
      restartCount: 2,
      image: 'x',
      imageID: 'id',
      // A zero Time prints as null, also deep inside.
      state: { running: { startedAt: null } },
      lastState: {},
    });
    const crd = filled('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', {
      metadata: { name: 'x' },
      spec: {
        versions: [
          {
            name: 'v1',
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {} } } } },
          },
        ],
      },
    });
    expect(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec).to.deep.equal({
      type: 'object',
      properties: {},
    });
    expect(crd.spec.versions[0]).to.include({ served: false, storage: false });
    expect(crd.status).to.deep.equal({
      conditions: null,
      acceptedNames: { plural: '', kind: '' },
      storedVersions: null,
    });
  });

  it('adds nothing to a ConfigMap, whose type has no struct field, nor to kinds Kubernetes does not define', () => {
    const configMap = { metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' }, data: { a: 'b' } };
    expect(filled('', 'v1', 'ConfigMap', configMap)).to.deep.equal(configMap);
    const widget = { metadata: { name: 'w' }, spec: {} };
    expect(filled('example.com', 'v1', 'Widget', widget)).to.deep.equal(widget);
  });

  it('is idempotent and gives each object an empty struct of its own', () => {
    const once = filled('apps', 'v1', 'ReplicaSet', { metadata: { name: 'r' }, spec: { template: {} } });
    expect(filled('apps', 'v1', 'ReplicaSet', once)).to.deep.equal(once);
    const [a, b] = [1, 2].map(() => filled('', 'v1', 'Namespace', { metadata: { name: 'n' } }));
    a.status.phase = 'Active';
    expect(b.status).to.deep.equal({});
  });
});
