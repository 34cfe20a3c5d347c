/**
 * The statuses the simulated kubelet reports for a pod (kubelet's generateAPIPodStatus): Running
 * with every container ready, and the terminal phases a finished or killed pod reaches.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { NODE_IP } from './simulated-node.js';

type Container = {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
};
type Condition = { type: string; status: string; reason?: string };

const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

const seconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** containerd's reference for an image: `busybox` is `docker.io/library/busybox:latest`. */
export function normalizedImage(image: string): string {
  const parts = image.split('/');
  const hasDomain = parts.length > 1 && /[.:]|^localhost$/.test(parts[0]);
  const path = hasDomain ? image : `docker.io/${parts.length === 1 ? 'library/' : ''}${image}`;
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.includes(':') || last.includes('@') ? path : `${path}:latest`;
}

/** A stable digest per image: the same image always reports the same imageID. */
function imageId(image: string): string {
  const reference = normalizedImage(image);
  const repository = reference.replace(/[:@][^/]*$/, '');
  return `${repository}@sha256:${createHash('sha256').update(reference).digest('hex')}`;
}

/** kube's QoS class: no requests or limits BestEffort, limits equal to requests for all Guaranteed. */
function qosClass(containers: Container[]): string {
  const resources = containers.map((c) => c.resources ?? {});
  if (resources.every((r) => !Object.keys(r.requests ?? {}).length && !Object.keys(r.limits ?? {}).length))
    return 'BestEffort';
  const guaranteed = resources.every((r) =>
    ['cpu', 'memory'].every((name) => {
      const limit = r.limits?.[name];
      const request = r.requests?.[name] ?? limit;
      return limit !== undefined && JSON.stringify(request) === JSON.stringify(limit);
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function condition(type: string, status: string, at: string, reason?: string): Record<string, unknown> {
  return { type, status, lastProbeTime: null, lastTransitionTime: at, ...(reason ? { reason } : {}) };
}

function containerStatus(container: Container, state: Record<string, unknown>, ready: boolean) {
  return {
    name: container.name,
    image: normalizedImage(String(container.image ?? '')),
    imageID: imageId(String(container.image ?? '')),
    containerID: `containerd://${randomBytes(32).toString('hex')}`,
    ready,
    started: ready,
    restartCount: 0,
    state,
    lastState: {},
  };
}

/** A pod the kubelet has started: Running, every container started and ready, an IP from 10.244.0.0/16. */
export function runningPodStatus(pod: ApiObject, now = new Date()): Record<string, unknown> {
  const at = seconds(now);
  const ip = `10.244.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 2}`;
  const spec = pod.spec ?? {};
  const containers: Container[] = spec.containers ?? [];
  const initContainers: Container[] = spec.initContainers ?? [];
  return {
    phase: 'Running',
    conditions: CONDITION_ORDER.map((type) => condition(type, 'True', at)),
    hostIP: NODE_IP,
    hostIPs: [{ ip: NODE_IP }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: at,
    qosClass: qosClass([...initContainers, ...containers]),
    ...(initContainers.length
      ? {
          initContainerStatuses: initContainers.map((c) => ({
            ...containerStatus(
              c,
              { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at } },
              true,
            ),
            started: false,
          })),
        }
      : {}),
    containerStatuses: containers.map((c) => containerStatus(c, { running: { startedAt: at } }, true)),
  };
}

/**
 * A pod whose containers have all exited: Succeeded when they exited 0 (a Job pod's run is
 * over), Failed when the kubelet killed them (137, as SIGKILL). Ready turns False with reason
 * PodCompleted in both phases, as the kubelet reports it.
 */
export function terminatedPodStatus(pod: ApiObject, phase: 'Succeeded' | 'Failed', now = new Date()) {
  const at = seconds(now);
  const status = structuredClone(pod.status ?? {});
  const conditions: (Condition & { lastTransitionTime?: string })[] = status.conditions ?? [];
  /** A condition keeps its transition time when its status does not change. */
  const settle = (type: string, value: string, reason?: string) => {
    const previous = conditions.find((c) => c.type === type);
    return condition(type, value, previous?.status === value ? (previous.lastTransitionTime ?? at) : at, reason);
  };
  status.phase = phase;
  status.conditions = [
    settle('PodReadyToStartContainers', 'False'),
    settle('Initialized', 'True', 'PodCompleted'),
    settle('Ready', 'False', 'PodCompleted'),
    settle('ContainersReady', 'False', 'PodCompleted'),
    settle('PodScheduled', 'True'),
  ];
  const exit = phase === 'Succeeded' ? { exitCode: 0, reason: 'Completed' } : { exitCode: 137, reason: 'Error' };
  status.containerStatuses = (status.containerStatuses ?? []).map((c: Record<string, any>) => ({
    ...c,
    ready: false,
    started: false,
    state: {
      terminated: {
        ...exit,
        startedAt: c.state?.running?.startedAt ?? at,
        finishedAt: at,
        containerID: c.containerID,
      },
    },
  }));
  return status;
}
