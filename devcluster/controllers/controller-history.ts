import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { deleteQuietly } from '../../apiserver/registry/object-mutation.js';
import { claim, controllerRef } from './controller-ref.js';
import { computeHash, jsonEqual } from './pod-template-hash.js';
import { AS_CONTROLLER } from './controller-manager.js';
import { createAs } from './workload-writes.js';

/** The label naming the ControllerRevision a pod was made from (and on the revision, its hash). */
export const CONTROLLER_REVISION_HASH = 'controller-revision-hash';

/**
 * What a StatefulSet's or DaemonSet's ControllerRevision holds (their controllers' getPatch): the
 * pod template as a strategic merge patch that replaces it, which is what `kubectl rollout undo`
 * sends back to roll back.
 */
export function revisionData(owner: ApiObject): Record<string, unknown> {
  return { spec: { template: { ...structuredClone(owner.spec.template), $patch: 'replace' } } };
}

export interface History {
  /** The revision of the owner's current template. */
  update: ApiObject;
  revisions: ApiObject[];
}

/**
 * kube's controller history (pkg/controller/history) for one owner: its ControllerRevisions
 * (adopting orphans its selector matches), the one for its current template found or created
 * (named `<owner>-<hash>`, labelled with the template's labels and the hash, annotated with the
 * owner's annotations as both controllers copy them — `kubernetes.io/change-cause` is what
 * `kubectl rollout history` prints — revision one past the highest), or, when an older revision
 * holds that template (a rollback), that one given the next number (its annotations unchanged).
 */
export async function syncHistory(api: ApiServer, owner: ApiObject): Promise<History> {
  const registry = api.registryOf('apps', 'controllerrevisions')!;
  const namespace = owner.metadata.namespace;
  const listed = (await registry.objects.list(namespace, {})).objects;
  let revisions = await claim(owner, listed, registry);
  const data = revisionData(owner);
  const max = Math.max(0, ...revisions.map((r) => Number(r.revision) || 0));
  const equal = revisions.filter((r) => jsonEqual(r.data, data)).sort((a, b) => b.revision - a.revision);
  if (equal.length) {
    let update = equal[0];
    if (update.revision !== max) {
      update = await registry.update(
        namespace,
        update.metadata.name,
        { ...update, revision: max + 1 },
        '',
        AS_CONTROLLER,
      );
      revisions = revisions.map((r) => (r.metadata.uid === update.metadata.uid ? update : r));
    }
    return { update, revisions };
  }
  const collisionCount: number | undefined = owner.status?.collisionCount;
  const hash = computeHash(data, collisionCount);
  const update = await createAs(registry, namespace, {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${owner.metadata.name}-${hash}`,
      namespace,
      labels: { ...(owner.spec.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash },
      ...(owner.metadata.annotations ? { annotations: { ...owner.metadata.annotations } } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    data,
    revision: max + 1,
  });
  return { update, revisions: [...revisions, update] };
}

/** truncateHistory: revisions no pod uses, beyond revisionHistoryLimit, deleted oldest first. */
export async function truncateHistory(api: ApiServer, owner: ApiObject, history: History, live: Set<string>) {
  const limit: number = owner.spec?.revisionHistoryLimit ?? 10;
  const registry = api.registryOf('apps', 'controllerrevisions')!;
  const old = history.revisions
    .filter((r) => r.metadata.name !== history.update.metadata.name && !live.has(r.metadata.name))
    .sort((a, b) => a.revision - b.revision);
  for (const revision of old.slice(0, Math.max(0, old.length - limit)))
    await deleteQuietly(registry, revision.metadata.namespace, revision.metadata.name);
}
