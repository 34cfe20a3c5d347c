import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { reportFault } from '../../apiserver/process-faults.js';
import { ApiError } from '../../apiserver/status.js';

export type EventType = 'Normal' | 'Warning';

/** Where an event comes from, as kube's components name themselves (`source.component`). */
export interface EventSource {
  component: string;
  host?: string;
}

/**
 * Events as kube-controller-manager's and the kubelet's recorders write them (core/v1 Event, what
 * `kubectl get events` and `describe` read): in the object's namespace (`default` for
 * cluster-scoped objects), named `<object>.<time in nanoseconds, hex>` as kube names them, so a
 * list (in name order) has them in the order they happened; one event per call (kube's
 * aggregation of repeats is not simulated). Recording never fails the caller: an event for a
 * namespace that is gone or terminating is dropped, as kube's event sink drops it; any other lost
 * event is reported as a fault.
 */
export class EventRecorder {
  constructor(
    private readonly api: ApiServer,
    private readonly source: EventSource,
  ) {}

  async record(object: ApiObject, type: EventType, reason: string, message: string, fieldPath?: string): Promise<void> {
    const registry = this.api.registryOf('', 'events');
    if (!registry) return;
    const namespace = object.metadata.namespace || 'default';
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${object.metadata.name}.${uniqueNanos().toString(16)}`, namespace },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        namespace: object.metadata.namespace,
        name: object.metadata.name,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        ...(fieldPath ? { fieldPath } : {}),
      },
      reason,
      message,
      source: this.source,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? '',
    };
    try {
      await registry.create(namespace, event);
    } catch (err) {
      if (err instanceof ApiError && (err.code === 403 || err.code === 404)) return;
      reportFault('detached', `recording ${reason} for ${namespace}/${object.metadata.name}`, err);
    }
  }
}

let lastNanos = 0n;

/** The time in nanoseconds, strictly increasing within the process: two events never share a name. */
function uniqueNanos(): bigint {
  const now = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  lastNanos = now > lastNanos ? now : lastNanos + 1n;
  return lastNanos;
}
