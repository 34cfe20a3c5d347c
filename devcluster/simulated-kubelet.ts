/**
 * The kubelet the devcluster simulates behind every Node object (there are no real ones): what
 * `nodes/<name>/proxy/<path>` reaches. It serves `/healthz`, `/configz` and `/stats/summary`; any
 * other path is the 404 of Go's ServeMux.
 */
import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { ProxiedRequest, SimulatedAnswer } from './simulated-pod-http.js';

const TEXT = 'text/plain; charset=utf-8';
/** Fixed per-container usage: small and plausible, and the same on every read. */
const CONTAINER_NANO_CORES = 1_000_000;
const CONTAINER_WORKING_SET = 4 * 1024 * 1024;
const NODE_MEMORY = 8 * 1024 * 1024 * 1024;

export async function kubeletAnswer(
  node: ApiObject,
  port: number,
  request: ProxiedRequest,
  podsOnNode: () => Promise<ApiObject[]>,
): Promise<SimulatedAnswer> {
  if (request.path === '/healthz') return { status: 200, headers: { 'Content-Type': TEXT }, body: 'ok' };
  const known = request.path === '/configz' || request.path === '/stats/summary';
  if (!known)
    return {
      status: 404,
      headers: { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' },
      body: '404 page not found\n',
    };
  // These are go-restful routes, which answer other methods with its own 405 text.
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return { status: 405, headers: { 'Content-Type': TEXT }, body: '405: Method Not Allowed' };
  const body = request.path === '/configz' ? configz(port) : summary(node, await podsOnNode());
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

function configz(port: number): Record<string, unknown> {
  return {
    kubeletconfig: {
      enableServer: true,
      staticPodPath: '/etc/kubernetes/manifests',
      address: '0.0.0.0',
      port,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: '/etc/kubernetes/pki/ca.crt' },
      },
      authorization: { mode: 'Webhook' },
      clusterDomain: 'cluster.local',
      clusterDNS: ['10.96.0.10'],
      cgroupDriver: 'systemd',
      maxPods: 110,
      containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
      kind: 'KubeletConfiguration',
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
    },
  };
}

/** The kubelet's stats Summary (stats/v1alpha1): the node and each pod bound to it (spec.nodeName). */
function summary(node: ApiObject, pods: ApiObject[]): Record<string, unknown> {
  const time = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const usage = (containers: number) => ({
    cpu: {
      time,
      usageNanoCores: containers * CONTAINER_NANO_CORES,
      usageCoreNanoSeconds: containers * CONTAINER_NANO_CORES * 60,
    },
    memory: {
      time,
      usageBytes: containers * CONTAINER_WORKING_SET,
      workingSetBytes: containers * CONTAINER_WORKING_SET,
      rssBytes: containers * CONTAINER_WORKING_SET,
      pageFaults: 0,
      majorPageFaults: 0,
    },
  });
  const containerCount = (pod: ApiObject) => (pod.spec?.containers ?? []).length;
  const total = pods.reduce((sum, pod) => sum + containerCount(pod), 0);
  const nodeUsage = usage(total);
  return {
    node: {
      nodeName: node.metadata.name,
      startTime: node.metadata.creationTimestamp,
      ...nodeUsage,
      memory: { ...nodeUsage.memory, availableBytes: NODE_MEMORY - total * CONTAINER_WORKING_SET },
    },
    pods: pods.map((pod) => ({
      podRef: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      startTime: pod.status?.startTime ?? pod.metadata.creationTimestamp,
      containers: (pod.spec?.containers ?? []).map((c: Record<string, any>) => ({
        name: c.name,
        startTime: pod.status?.startTime ?? pod.metadata.creationTimestamp,
        ...usage(1),
      })),
      ...usage(containerCount(pod)),
    })),
  };
}
