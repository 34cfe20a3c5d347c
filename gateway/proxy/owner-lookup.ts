/**
 * The lookups behind translate/owner-check.ts: a tenant's write that newly sets
 * `blockOwnerDeletion` on an owner reference is refused unless the gateway finds the owner, with
 * that uid, where the tenant's would be. Writes without such a reference cost nothing; an update
 * or patch that has some reads the stored object once (references already blocking there stay
 * allowed), and each new one costs one GET of the owner. All as the gateway: the tenant's own
 * rights upstream do not reach a cluster-scoped owner, and the places looked at are the tenant's.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { decodeKubernetesProtobuf } from '../../apiserver/protobuf/decode.js';
import { ApiError, statusOf } from '../../apiserver/status.js';
import {
  blockingOwnerReferences,
  isNamedOwner,
  newlyBlocking,
  ownerPlace,
  ownerReferenceRefused,
  type OwnerPlace,
  type OwnerReference,
  type OwnerResource,
} from '../../translate/owner-check.js';
import type { TenantRequest } from '../server/tenant-request.js';

/** Checks the object a write will store (as sent upstream: JSON parsed, or its protobuf shadow with the body). */
export type OwnerCheck = (object: Json, sent: string | Buffer) => Promise<void>;

export function ownerCheck(r: TenantRequest): OwnerCheck {
  return async (object, sent) => {
    // The protobuf shadow keeps an owner reference's kind, name and apiVersion only: decode it whole when it has one.
    const full = Buffer.isBuffer(sent) && hasOwnerReferences(object) ? decodeKubernetesProtobuf(sent).object : object;
    const blocking = blockingOwnerReferences(full);
    if (blocking.length === 0) return;
    const added = newlyBlocking(blocking, r.method === 'POST' ? undefined : await storedObject(r));
    const namespace = r.t.namespaced ? r.t.info.namespace : '';
    for (const ref of added) {
      const place = ownerPlace(r.ctx, ref, namespace, await ownerResource(r, ref));
      if (!place || !isNamedOwner(ref, await objectAt(r, place)))
        throw ownerReferenceRefused({ group: r.t.info.group, kind: r.t.kind, name: r.t.info.name }, ref);
    }
  };
}

function hasOwnerReferences(object: Json): boolean {
  const refs: unknown = object.metadata?.ownerReferences;
  return Array.isArray(refs) && refs.length > 0;
}

/** The object the write changes, as stored now; undefined when there is none yet (an apply that creates it). */
function storedObject(r: TenantRequest): Promise<Json | undefined> {
  const { t } = r;
  const path = t.info.subresource ? t.path.slice(0, -`/${t.info.subresource}`.length) : t.path;
  return get(r, path);
}

/** The resource serving the reference's kind at its apiVersion, from the cluster's (cached) discovery. */
async function ownerResource(r: TenantRequest, ref: OwnerReference): Promise<OwnerResource | undefined> {
  const path = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const document = await r.upstream.document(path, 'application/json');
  if (document.status !== 200) return undefined;
  const resources: { name: string; kind: string; namespaced: boolean }[] =
    (JSON.parse(document.body) as Json).resources ?? [];
  const found = resources.find((resource) => resource.kind === ref.kind && !resource.name.includes('/'));
  return found && { resource: found.name, namespaced: found.namespaced };
}

function objectAt(r: TenantRequest, place: OwnerPlace): Promise<Json | undefined> {
  const base = place.group ? `/apis/${place.group}/${place.version}` : `/api/${place.version}`;
  const scope = place.namespace ? `/namespaces/${encodeURIComponent(place.namespace)}` : '';
  return get(r, `${base}${scope}/${place.resource}/${encodeURIComponent(place.name)}`);
}

/**
 * One object read as the gateway; undefined when there is none — a name no object can have (`..`)
 * is refused by the cluster rather than not found. The cluster failing (5xx, 429) is its own answer.
 */
async function get(r: TenantRequest, path: string): Promise<Json | undefined> {
  const answer = await r.upstreamWhole('owner', 'GET', path, { accept: 'application/json' });
  const parsed = parse(answer.text);
  if (answer.status === 200 && parsed) return parsed;
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 429) return undefined;
  throw new ApiError(
    parsed?.kind === 'Status'
      ? (parsed as never)
      : statusOf(answer.status, 'InternalError', 'the owner of an ownerReference could not be looked up'),
  );
}

function parse(text: string): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
