import { randomBytes } from 'node:crypto';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { reportFault } from '../../apiserver/process-faults.js';

export type EventType = 'Normal' | 'Warning';

/** Where an event comes from, as kube's components name themselves (`source.component`). */
export interface EventSource {
  component: string;
  host?: string;
}

/**
 * Events as kube-controller-manager's and the kubelet's recorders write them (core/v1 Event, what
 * `kubectl get events` and `describe` read): named `<object>.<16 hex>`, in the object's namespace
 * (`default` for cluster-scoped objects), one event per call (kube's aggregation of repeats is
 * not simulated). Recording never fails the caller: a lost event is reported as a fault.
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
      metadata: { name: `${object.metadata.name}.${randomBytes(8).toString('hex')}`, namespace },
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
      reportFault('detached', `recording ${reason} for ${namespace}/${object.metadata.name}`, err);
    }
  }
}
