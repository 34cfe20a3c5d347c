import { createHash } from 'node:crypto';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { mutate } from '../../apiserver/registry/object-mutation.js';
import { detach } from '../../apiserver/process-faults.js';
import type { Store, WatchEvent } from '../../store/index.js';
import { WatchLoop } from '../../store/watch-loop.js';
import type { SimulatedScheduler } from '../simulated-scheduler.js';
import {
  commandExitCode,
  KILLED_EXIT_CODE,
  runningEphemeralContainerStatus,
  terminatedPodStatus,
} from '../simulated-pod-status.js';
import { EventRecorder } from './event-recorder.js';

/** How long a container of a run-to-completion pod (restartPolicy Never or OnFailure) runs. */
export const RUN_TO_COMPLETION_MS = 500;

type Container = { name: string; image?: string; imagePullPolicy?: string; command?: string[]; args?: string[] };

/**
 * What kube-scheduler and the kubelet report about each pod, the pod having been bound and
 * started as it was admitted (devcluster/strategies.ts): the scheduler's `Scheduled` event, the
 * kubelet's `Pulling`/`Pulled`/`Created`/`Started` for every container, in order. Containers of a
 * pod whose restartPolicy is Never or OnFailure run RUN_TO_COMPLETION_MS and exit (0 unless their
 * command is a simulated failure, `commandExitCode`): the pod Succeeds or Fails, and is not
 * restarted. A pod being deleted (held by finalizers) has its containers killed (`Killing`) and
 * turns Failed; a pod deleted outright gets the same `Killing` events. An ephemeral container
 * added to a running pod (`kubectl debug`) is pulled, created and started the same way, and runs
 * until the pod ends (`status.ephemeralContainerStatuses`).
 */
export class PodLifecycle {
  private readonly loop: WatchLoop;
  private readonly known = new Set<string>();
  private readonly killed = new Set<string>();
  private readonly running = new Map<string, NodeJS.Timeout>();
  /** Ephemeral containers being started, `<uid>/<name>`: an update seen meanwhile starts none twice. */
  private readonly starting = new Set<string>();
  /** Images on the node: IfNotPresent pulls each once. */
  private readonly images = new Set<string>();
  private readonly scheduledBy: EventRecorder;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly api: ApiServer,
    store: Store,
    private readonly scheduler: SimulatedScheduler,
  ) {
    this.scheduledBy = new EventRecorder(api, { component: 'default-scheduler' });
    this.loop = new WatchLoop(
      store,
      '/registry/core/pods/',
      {
        onList: (items) => {
          for (const kv of items) {
            const pod = JSON.parse(kv.value) as ApiObject;
            this.known.add(pod.metadata.uid);
            if (isRunning(pod)) this.runToCompletion(pod);
            this.startEphemeralContainers(pod);
          }
        },
        onEvent: (event) => this.observe(event),
      },
      'pod lifecycle',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running.forEach((timer) => clearTimeout(timer));
    await this.loop.stop();
    await Promise.all(this.inFlight);
  }

  private observe(event: WatchEvent): void {
    const pod = JSON.parse(event.value) as ApiObject;
    const uid: string = pod.metadata.uid;
    if (event.type === 'delete') {
      this.known.delete(uid);
      clearTimeout(this.running.get(uid));
      this.running.delete(uid);
      if (!this.killed.delete(uid) && isRunning(pod)) this.spawn(this.recordKilling(pod), pod);
      return;
    }
    if (!this.known.has(uid)) {
      this.known.add(uid);
      if (isRunning(pod) && !pod.metadata.deletionTimestamp) this.spawn(this.started(pod), pod);
    }
    if (pod.metadata.deletionTimestamp && isRunning(pod) && !this.killed.has(uid)) {
      this.killed.add(uid);
      clearTimeout(this.running.get(uid));
      this.spawn(this.kill(pod), pod);
    }
    this.startEphemeralContainers(pod);
  }

  /** Starts the ephemeral containers of a running pod that have no status yet. */
  private startEphemeralContainers(pod: ApiObject): void {
    if (!isRunning(pod) || pod.metadata.deletionTimestamp) return;
    const started = new Set(((pod.status?.ephemeralContainerStatuses ?? []) as Container[]).map((c) => c.name));
    const uid: string = pod.metadata.uid;
    const fresh = ((pod.spec?.ephemeralContainers ?? []) as Container[]).filter(
      (c) => !started.has(c.name) && !this.starting.has(`${uid}/${c.name}`),
    );
    if (fresh.length === 0) return;
    for (const c of fresh) this.starting.add(`${uid}/${c.name}`);
    const work = this.startEphemeral(pod, fresh).finally(() => {
      for (const c of fresh) this.starting.delete(`${uid}/${c.name}`);
    });
    this.spawn(work, pod);
  }

  private async startEphemeral(pod: ApiObject, containers: Container[]): Promise<void> {
    const kubelet = this.kubelet(pod);
    for (const container of containers) {
      const fieldPath = `spec.ephemeralContainers{${container.name}}`;
      for (const [reason, message] of this.pull(container))
        await kubelet.record(pod, 'Normal', reason, message, fieldPath);
      await kubelet.record(pod, 'Normal', 'Created', `Created container: ${container.name}`, fieldPath);
      await kubelet.record(pod, 'Normal', 'Started', `Started container ${container.name}`, fieldPath);
    }
    await mutate(
      this.api.registryOf('', 'pods')!,
      pod.metadata.namespace,
      pod.metadata.name,
      (current) => {
        if (current.metadata.uid !== pod.metadata.uid || !isRunning(current)) return false;
        const statuses: Record<string, unknown>[] = (current.status.ephemeralContainerStatuses ??= []);
        const fresh = containers.filter((c) => !statuses.some((s) => s.name === c.name));
        statuses.push(...fresh.map((c) => runningEphemeralContainerStatus(c)));
        return fresh.length > 0;
      },
      { subresource: 'status' },
    );
  }

  private spawn(work: Promise<void>, pod: ApiObject): void {
    const tracked = work.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    detach(tracked, `pod lifecycle: ${pod.metadata.namespace}/${pod.metadata.name}`);
  }

  private kubelet(pod: ApiObject): EventRecorder {
    return new EventRecorder(this.api, { component: 'kubelet', host: pod.spec?.nodeName });
  }

  private async started(pod: ApiObject): Promise<void> {
    if (this.scheduler.takeBinding(pod.metadata.uid)) {
      const { namespace, name } = pod.metadata;
      await this.scheduledBy.record(
        pod,
        'Normal',
        'Scheduled',
        `Successfully assigned ${namespace}/${name} to ${pod.spec.nodeName}`,
      );
    }
    const kubelet = this.kubelet(pod);
    for (const [list, containers] of containerLists(pod)) {
      for (const container of containers) {
        const fieldPath = `spec.${list}{${container.name}}`;
        for (const [reason, message] of this.pull(container))
          await kubelet.record(pod, 'Normal', reason, message, fieldPath);
        await kubelet.record(pod, 'Normal', 'Created', `Created container: ${container.name}`, fieldPath);
        await kubelet.record(pod, 'Normal', 'Started', `Started container ${container.name}`, fieldPath);
      }
    }
    this.runToCompletion(pod);
  }

  /** The image manager's events: a pull (with a made-up but stable duration and size), or none needed. */
  private pull(container: Container): [string, string][] {
    const image = String(container.image ?? '');
    const policy = container.imagePullPolicy ?? 'IfNotPresent';
    if (policy !== 'Always' && (this.images.has(image) || policy === 'Never'))
      return [['Pulled', `Container image ${JSON.stringify(image)} already present on machine`]];
    this.images.add(image);
    const digest = createHash('sha256').update(image).digest();
    const pullMs = 300 + (digest.readUInt16BE(0) % 2700);
    const size = 2_000_000 + (digest.readUInt32BE(2) % 60_000_000);
    const took = goDuration(pullMs);
    return [
      ['Pulling', `Pulling image ${JSON.stringify(image)}`],
      [
        'Pulled',
        `Successfully pulled image ${JSON.stringify(image)} in ${took} (${took} including waiting). Image size: ${size} bytes.`,
      ],
    ];
  }

  private runToCompletion(pod: ApiObject): void {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always' || this.stopped) return;
    const uid: string = pod.metadata.uid;
    const timer = setTimeout(() => {
      this.running.delete(uid);
      const containers: Container[] = pod.spec?.containers ?? [];
      const codes = new Map(containers.map((c) => [c.name, commandExitCode(c)]));
      this.spawn(
        this.terminate(pod, (name) => codes.get(name) ?? 0),
        pod,
      );
    }, RUN_TO_COMPLETION_MS);
    this.running.set(uid, timer);
  }

  private async kill(pod: ApiObject): Promise<void> {
    await this.recordKilling(pod);
    await this.terminate(pod, () => KILLED_EXIT_CODE);
  }

  private async recordKilling(pod: ApiObject): Promise<void> {
    const kubelet = this.kubelet(pod);
    for (const container of (pod.spec?.containers ?? []) as Container[])
      await kubelet.record(
        pod,
        'Normal',
        'Killing',
        `Stopping container ${container.name}`,
        `spec.containers{${container.name}}`,
      );
  }

  private async terminate(pod: ApiObject, exitCodeOf: (container: string) => number): Promise<void> {
    const pods = this.api.registryOf('', 'pods')!;
    await mutate(
      pods,
      pod.metadata.namespace,
      pod.metadata.name,
      (current) => {
        if (current.metadata.uid !== pod.metadata.uid || !isRunning(current)) return false;
        current.status = terminatedPodStatus(current, exitCodeOf);
        return true;
      },
      { subresource: 'status' },
    );
  }
}

function isRunning(pod: ApiObject): boolean {
  return pod.status?.phase === 'Running';
}

function containerLists(pod: ApiObject): [string, Container[]][] {
  return [
    ['initContainers', pod.spec?.initContainers ?? []],
    ['containers', pod.spec?.containers ?? []],
  ];
}

/** Go's time.Duration text for a whole number of milliseconds: 850ms, 1.2s, 2s. */
function goDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}
