import type { ApiObject } from '../../apiserver/registry/object-store.js';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

/**
 * The tolerations kube's DaemonSet controller adds to every daemon pod (AddOrUpdateDaemonPodTolerations),
 * so that daemons run on nodes that are not ready, unreachable, under pressure or cordoned.
 */
export function daemonPodTolerations(podSpec: Record<string, any>): Toleration[] {
  const added: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (podSpec.hostNetwork)
    added.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  const existing: Toleration[] = podSpec.tolerations ?? [];
  const same = (a: Toleration, b: Toleration) => a.key === b.key && a.effect === b.effect;
  return [...existing, ...added.filter((t) => !existing.some((e) => same(e, t)))];
}

function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.operator === 'Exists') return !toleration.key || toleration.key === taint.key;
  return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '');
}

/**
 * Whether a daemon pod of `podSpec` belongs on `node` (the DaemonSet controller's
 * NodeShouldRunDaemonPod): its nodeSelector matches the node's labels and every NoSchedule and
 * NoExecute taint is tolerated. Node affinity beyond the nodeSelector is not evaluated.
 */
export function shouldRunOn(node: ApiObject, podSpec: Record<string, any>): boolean {
  const labels: Record<string, string> = node.metadata.labels ?? {};
  const selector: Record<string, string> = podSpec.nodeSelector ?? {};
  if (!Object.entries(selector).every(([key, value]) => labels[key] === value)) return false;
  const tolerations = daemonPodTolerations(podSpec);
  const taints: Taint[] = node.spec?.taints ?? [];
  return taints
    .filter((taint) => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute')
    .every((taint) => tolerations.some((toleration) => tolerates(toleration, taint)));
}

/** The node a daemon pod is for: its nodeName, else the `metadata.name` its node affinity requires. */
export function daemonPodNode(pod: ApiObject): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const term of terms ?? [])
    for (const field of term.matchFields ?? [])
      if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1)
        return field.values[0];
  return undefined;
}

/**
 * ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity becomes "this node",
 * the rest of its affinity kept.
 */
export function pinToNode(podSpec: Record<string, any>, nodeName: string): void {
  const affinity = (podSpec.affinity = { ...(podSpec.affinity ?? {}) });
  affinity.nodeAffinity = {
    ...(affinity.nodeAffinity ?? {}),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
    },
  };
}
