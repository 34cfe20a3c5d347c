import type { PatchType } from '../patch/index.js';
import { applyPatch, PatchError } from '../patch/index.js';
import { labelSelectorFromObject } from '../selectors/label-selector.js';
import { ApiError, badRequest, conflict, invalid, statusOf } from '../status.js';
import type { GenericRegistry, WriteOptions } from './generic-registry.js';
import type { ApiObject } from './object-store.js';

/**
 * The `scale` subresource (autoscaling/v1 Scale) of workloads with `spec.replicas`, as
 * `kubectl scale` and autoscalers use it: reading it shows spec and status replicas and the
 * selector; writing it changes only the parent's `spec.replicas`.
 */
export function scaleOf(object: ApiObject): ApiObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: object.spec?.replicas ?? 1 },
    status: {
      replicas: object.status?.replicas ?? 0,
      selector: labelSelectorFromObject(object.spec?.selector).toString(),
    },
  };
}

export async function getScale(registry: GenericRegistry, namespace: string, name: string): Promise<ApiObject> {
  return scaleOf(await registry.get(namespace, name));
}

export async function updateScale(
  registry: GenericRegistry,
  namespace: string,
  name: string,
  body: unknown,
  options: WriteOptions,
): Promise<ApiObject> {
  const scale = body as ApiObject;
  if (!scale || typeof scale !== 'object' || typeof scale.spec !== 'object')
    throw badRequest('the body must be a Scale with spec.replicas');
  return setReplicas(registry, namespace, name, () => scale, options);
}

export async function patchScale(
  registry: GenericRegistry,
  namespace: string,
  name: string,
  type: PatchType,
  patch: unknown,
  options: WriteOptions,
): Promise<ApiObject> {
  return setReplicas(
    registry,
    namespace,
    name,
    (current) => {
      try {
        return applyPatch(
          type,
          current,
          patch,
          { group: 'autoscaling', version: 'v1', kind: 'Scale' },
          true,
        ) as ApiObject;
      } catch (err) {
        if (err instanceof PatchError)
          throw new ApiError(statusOf(err.status, err.status === 422 ? 'Invalid' : 'BadRequest', err.message));
        throw err;
      }
    },
    options,
  );
}

async function setReplicas(
  registry: GenericRegistry,
  namespace: string,
  name: string,
  desired: (current: ApiObject) => ApiObject,
  options: WriteOptions,
): Promise<ApiObject> {
  const parent = await registry.get(namespace, name);
  const scale = desired(scaleOf(parent));
  const requested = scale.metadata?.resourceVersion;
  if (requested && requested !== parent.metadata.resourceVersion) throw conflict(registry.gr, name);
  const replicas = scale.spec?.replicas;
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', 'autoscaling', name, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const updated = await registry.update(namespace, name, { ...parent, spec: { ...parent.spec, replicas } }, '', {
    ...options,
    fieldValidation: 'Ignore',
  });
  return scaleOf(updated);
}
