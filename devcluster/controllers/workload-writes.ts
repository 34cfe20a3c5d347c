import type { GenericRegistry } from '../../apiserver/registry/generic-registry.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ApiError } from '../../apiserver/status.js';
import { jsonEqual } from './pod-template-hash.js';
import { controllerRef } from './controller-ref.js';
import { AS_CONTROLLER } from './controller-manager.js';
import type { EventRecorder } from './event-recorder.js';
import { RetryLater } from './reconcile-loop.js';
import { NAMESPACE_TERMINATING_CAUSE } from '../../apiserver/registry/generic-registry.js';

/** How long a controller waits before trying again a pod the API server refused (kube backs off too). */
const REFUSED_POD_RETRY_MS = 5_000;

/**
 * Writes `status` through the status subresource unless it is what is stored already. A conflict
 * or an object deleted meanwhile is the ReconcileLoop's to handle (status is computed afresh on
 * the next pass anyway).
 */
export async function writeStatus(
  registry: GenericRegistry,
  object: ApiObject,
  status: Record<string, unknown>,
): Promise<ApiObject> {
  if (jsonEqual(object.status ?? {}, status)) return object;
  return registry.update(
    object.metadata.namespace ?? '',
    object.metadata.name,
    { ...object, status },
    'status',
    AS_CONTROLLER,
  );
}

/** The creation kube's controllers make: `body` as is, recorded as kube-controller-manager's. */
export function createAs(registry: GenericRegistry, namespace: string, body: ApiObject): Promise<ApiObject> {
  return registry.create(namespace, body, AS_CONTROLLER);
}

/**
 * A pod of `owner`'s, created as kube's controllers create it. One the API server refuses (a
 * missing ServiceAccount, a quota, an invalid template) is a Warning `FailedCreate` on the owner,
 * worded by `failed` from the refusal's message (`Error creating: …` for kube's PodControl), and
 * the owner is looked at again later; a namespace being deleted is left to the loop.
 */
export async function createPodOf(
  pods: GenericRegistry,
  events: EventRecorder,
  owner: ApiObject,
  pod: ApiObject,
  failed: (message: string) => string = (message) => `Error creating: ${message}`,
): Promise<ApiObject> {
  try {
    return await createAs(pods, owner.metadata.namespace, pod);
  } catch (err) {
    const refused =
      err instanceof ApiError &&
      err.code >= 400 &&
      err.code < 500 &&
      err.code !== 409 &&
      !err.status.details?.causes?.some((c) => c.reason === NAMESPACE_TERMINATING_CAUSE);
    if (!refused) throw err;
    await events.record(owner, 'Warning', 'FailedCreate', failed(err.status.message));
    throw new RetryLater(err.status.message, REFUSED_POD_RETRY_MS);
  }
}

/**
 * controller.GetPodFromTemplate: a pod of `owner`'s template, its labels, annotations and
 * finalizers, controlled by the owner. The caller names it (generateName or a fixed name).
 */
export function podFromTemplate(owner: ApiObject, template: ApiObject, name: Record<string, string>): ApiObject {
  const meta = template.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...name,
      namespace: owner.metadata.namespace,
      labels: { ...(meta.labels ?? {}) },
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec: structuredClone(template.spec ?? {}),
  };
}

/** Creation time, for kube's "oldest first" orders (ties broken by name, as kube does). */
export function byCreation(a: ApiObject, b: ApiObject): number {
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return ta - tb || String(a.metadata.name).localeCompare(String(b.metadata.name));
}

/** A timestamp as kube writes them (RFC 3339, seconds). */
export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
