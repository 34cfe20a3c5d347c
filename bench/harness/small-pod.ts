/**
 * The small objects the `cache` benchmark fills the multi-cluster cache with in one process: a
 * running Pod as a cluster sends one for `kubectl run` (about 2.4 KB of JSON, managedFields
 * included), each with its own name, namespace, uid, IPs and tenant label.
 */
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';

/** A Pod as a cluster sends one for `kubectl run`: scheduled, running, with kubectl's and the kubelet's managedFields. */
export function smallPodJson(i: number): string {
  const name = `web-${i.toString(36)}-7d9f8c6b5-x${(i * 7919).toString(36)}`;
  const time = '2026-12-01T22:00:00Z';
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `team-${i % 50}`,
      uid: `6f1c${i.toString(16).padStart(4, '0')}-2b7e-4a1f-9c3d-5e8f7a6b${(i % 9999).toString().padStart(4, '0')}`,
      resourceVersion: String(100000 + i),
      creationTimestamp: time,
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', [TENANT_LABEL]: `t${i % 20}` },
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': {} } },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:phase': {}, 'f:podIP': {} } },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${i % 10}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
        (type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: time }),
      ),
      hostIP: `10.0.0.${i % 10}`,
      podIP: `10.244.${(i >> 8) % 256}.${i % 256}`,
      podIPs: [{ ip: `10.244.${(i >> 8) % 256}.${i % 256}` }],
      startTime: time,
      containerStatuses: [
        {
          name: 'web',
          state: { running: { startedAt: time } },
          ready: true,
          restartCount: 0,
          image: 'nginx:1.27',
          imageID: 'docker.io/library/nginx@sha256:0123456789abcdef',
          started: true,
        },
      ],
      qosClass: 'BestEffort',
    },
  });
}
