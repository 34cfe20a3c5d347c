/** Pods: NAME READY STATUS RESTARTS AGE, wide IP NODE NOMINATED NODE READINESS GATES (printers.go printPod). */
import { humanDuration } from '../duration.js';
import { ageColumn, column, nameColumn, wideColumn } from './columns.js';
import type { Printer, TableRowCondition } from './printer.js';
import { age, parseTimestamp } from './timestamps.js';

const columns = [
  nameColumn,
  column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', 'The aggregate status of the containers in this pod.'),
  column(
    'Restarts',
    'string',
    'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
  ),
  ageColumn,
  wideColumn(
    'IP',
    'string',
    'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
  ),
  wideColumn(
    'Node',
    'string',
    'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
  ),
  wideColumn(
    'Nominated Node',
    'string',
    'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
  ),
  wideColumn(
    'Readiness Gates',
    'string',
    'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
  ),
];

/** The later of a running maximum and a container's last termination time. */
function later(latest: number | undefined, containerStatus: any): number | undefined {
  const finished = parseTimestamp(containerStatus?.lastState?.terminated?.finishedAt);
  if (finished === undefined) return latest;
  return latest === undefined || finished > latest ? finished : latest;
}

function conditionIsTrue(status: any, type: string): boolean {
  const condition = (status?.conditions ?? []).find((c: any) => c.type === type);
  return condition?.status === 'True';
}

/** What `kubectl get pods` shows for a failed container: its reason, else its signal or exit code. */
function terminatedReason(terminated: any): string {
  if (terminated.reason) return terminated.reason;
  return terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode ?? 0}`;
}

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  /** When the last counted container restart ended, in ms since the epoch. */
  lastRestart: number | undefined;
}

/** READY, STATUS and RESTARTS from the container statuses, following printPod step by step. */
function summarize(pod: any): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const initContainers: any[] = spec.initContainers ?? [];
  // Sidecars (init containers that restart always) keep running, so they count as containers.
  const sidecars = new Set(initContainers.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const summary: PodSummary = {
    ready: 0,
    total: (spec.containers ?? []).length + sidecars.size,
    reason: status.reason || (status.phase ?? ''),
    restarts: 0,
    lastRestart: undefined,
  };
  if ((status.conditions ?? []).some((c: any) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    summary.reason = 'SchedulingGated';
  }

  let sidecarRestarts = 0;
  let lastSidecarRestart: number | undefined;
  let initializing = false;
  const initStatuses: any[] = status.initContainerStatuses ?? [];
  for (const [index, container] of initStatuses.entries()) {
    summary.restarts += container.restartCount ?? 0;
    summary.lastRestart = later(summary.lastRestart, container);
    const isSidecar = sidecars.has(container.name);
    if (isSidecar) {
      sidecarRestarts += container.restartCount ?? 0;
      lastSidecarRestart = later(lastSidecarRestart, container);
    }
    const { terminated, waiting } = container.state ?? {};
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (isSidecar && container.started === true) {
      if (container.ready) summary.ready++;
      continue;
    }
    if (terminated) summary.reason = `Init:${terminatedReason(terminated)}`;
    else if (waiting?.reason && waiting.reason !== 'PodInitializing') summary.reason = `Init:${waiting.reason}`;
    else summary.reason = `Init:${index}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionIsTrue(status, 'Initialized')) {
    // Once initialized, only sidecar restarts still matter among the init containers.
    summary.restarts = sidecarRestarts;
    summary.lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses: any[] = status.containerStatuses ?? [];
    // Backwards, so that the first container's state wins.
    for (const container of [...statuses].reverse()) {
      summary.restarts += container.restartCount ?? 0;
      summary.lastRestart = later(summary.lastRestart, container);
      const { waiting, terminated, running } = container.state ?? {};
      if (waiting?.reason) summary.reason = waiting.reason;
      else if (terminated) summary.reason = terminatedReason(terminated);
      else if (container.ready && running) {
        hasRunning = true;
        summary.ready++;
      }
    }
    if (summary.reason === 'Completed' && hasRunning) {
      summary.reason = conditionIsTrue(status, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) {
    if (status.reason === 'NodeLost') summary.reason = 'Unknown';
    else if (status.phase !== 'Succeeded' && status.phase !== 'Failed') summary.reason = 'Terminating';
  }
  return summary;
}

function readinessGates(pod: any): string {
  const gates: any[] = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const passed = gates.filter((gate) => {
    const condition = (pod.status?.conditions ?? []).find((c: any) => c.type === gate.conditionType);
    return condition?.status === 'True';
  }).length;
  return `${passed}/${gates.length}`;
}

const completed = (reason: string, message: string): TableRowCondition[] => [
  { type: 'Completed', status: 'True', reason, message },
];

export const podPrinter: Printer = {
  columns,
  cells(pod, now) {
    const { ready, total, reason, restarts, lastRestart } = summarize(pod);
    const restartsCell =
      restarts !== 0 && lastRestart !== undefined
        ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)`
        : String(restarts);
    const status = pod.status ?? {};
    return [
      pod.metadata?.name ?? '',
      `${ready}/${total}`,
      reason,
      restartsCell,
      age(pod, now),
      status.podIPs?.[0]?.ip || status.podIP || '<none>',
      pod.spec?.nodeName || '<none>',
      status.nominatedNodeName || '<none>',
      readinessGates(pod),
    ];
  },
  conditions(pod) {
    switch (pod.status?.phase) {
      case 'Succeeded':
        return completed('Succeeded', 'The pod has completed successfully.');
      case 'Failed':
        return completed('Failed', 'The pod failed.');
      default:
        return undefined;
    }
  },
};
