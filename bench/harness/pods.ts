/**
 * A Pod as a Deployment makes it — labels, a scrape annotation, a container with env from a
 * value and from a Secret, requests and limits, a readiness probe and a mounted ConfigMap —
 * sized so that what the devcluster stores and lists is 4 KiB: it adds defaults, a Running
 * status (1 KB) and, as kube-apiserver does, managedFields for all of it (2 KB). A second
 * container would not fit in 4 KiB, and 100k Pods must fit in the one JSON string a
 * cluster-wide list is (V8 caps strings at 512 MiB).
 */
const TEMPLATE_HASH = '7d9c6b5f4d';

export function podName(index: number): string {
  return `checkout-${TEMPLATE_HASH}-${index.toString(36).padStart(5, '0')}`;
}

export function realisticPod(namespace: string, index: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(index),
      namespace,
      labels: { app: 'checkout', 'pod-template-hash': TEMPLATE_HASH },
      annotations: { 'prometheus.io/scrape': 'true' },
    },
    spec: {
      containers: [
        {
          name: 'checkout',
          image: 'ghcr.io/acme/checkout:2.14.3',
          env: [
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'checkout-db', key: 'password' } } },
          ],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
          volumeMounts: [{ name: 'config', mountPath: '/etc/checkout' }],
        },
      ],
      volumes: [{ name: 'config', configMap: { name: 'checkout-config' } }],
    },
  };
}
