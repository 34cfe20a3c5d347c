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
 * The status of an ephemeral container the kubelet has just started: running, and never ready
 * (ephemeral containers take no probes), as kubelet reports it in `ephemeralContainerStatuses`.
 */
export function runningEphemeralContainerStatus(container: Container, now = new Date()): Record<string, unknown> {
  const { started: _started, ...status } = containerStatus(container, { running: { startedAt: seconds(now) } }, false);
  return status;
}

/** The exit code of a SIGKILLed container: what the kubelet's kill leaves. */
export const KILLED_EXIT_CODE = 137;

/**
 * The exit code of a run-to-completion container's command, read as the simulated commands of
 * exec read it (devcluster/streaming/simulated-commands.ts): `exit N` (also as `sh -c "exit N"`)
 * exits N, `false` exits 1, anything else runs and exits 0.
 */
export function commandExitCode(container: { command?: string[]; args?: string[] }): number {
  let argv = [...(container.command ?? []), ...(container.args ?? [])];
  if (/^(\/bin\/)?(ba)?sh$/.test(argv[0] ?? '') && argv[1] === '-c')
    argv = String(argv[2] ?? '')
      .trim()
      .split(/\s+/);
  if (argv[0] === 'false' && argv.length === 1) return 1;
  if (argv[0] !== 'exit' || argv.length > 2) return 0;
  const code = Number(argv[1] ?? 0);
  return Number.isInteger(code) ? ((code % 256) + 256) % 256 : 2;
}

/**
 * A pod whose containers have all exited with the codes given (by container name): Succeeded
 * when all exited 0, else Failed; each container terminated with reason Completed (0) or Error.
 * Ready turns False with reason PodCompleted in both phases, as the kubelet reports it.
 */
export function terminatedPodStatus(pod: ApiObject, exitCodeOf: (container: string) => number, now = new Date()) {
  const at = seconds(now);
  const status = structuredClone(pod.status ?? {});
  const conditions: (Condition & { lastTransitionTime?: string })[] = status.conditions ?? [];
  /** A condition keeps its transition time when its status does not change. */
  const settle = (type: string, value: string, reason?: string) => {
    const previous = conditions.find((c) => c.type === type);
    return condition(type, value, previous?.status === value ? (previous.lastTransitionTime ?? at) : at, reason);
  };
  const containers: Record<string, any>[] = status.containerStatuses ?? [];
  status.phase = containers.every((c) => exitCodeOf(c.name) === 0) ? 'Succeeded' : 'Failed';
  status.conditions = [
    settle('PodReadyToStartContainers', 'False'),
    settle('Initialized', 'True', 'PodCompleted'),
    settle('Ready', 'False', 'PodCompleted'),
    settle('ContainersReady', 'False', 'PodCompleted'),
    settle('PodScheduled', 'True'),
  ];
  status.containerStatuses = containers.map((c) => {
    const exitCode = exitCodeOf(c.name);
    return {
      ...c,
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt: c.state?.running?.startedAt ?? at,
          finishedAt: at,
          containerID: c.containerID,
        },
      },
    };
  });
  return status;
}
