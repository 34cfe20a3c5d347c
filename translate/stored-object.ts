/**
 * The isolation check of a write: whether an object, as the upstream will store it (converted, or
 * computed by the upstream itself in a dry run), keeps every invariant of its kind
 * (kinds/kind-records.ts) for this tenant; and, where the gateway can make it hold without guessing,
 * the object that does.
 */
import type { Json } from '../apiserver/json.js';
import { TranslationError, type TenantContext } from './context.js';
import { normalize, violations, type Violation } from './kinds/invariants.js';
import { invariantsOf, kindRecord } from './kinds/kind-records.js';
import { objectUp } from './objects.js';

/** The stored object's type and its name as the tenant calls it (for messages). */
export interface StoredType {
  group: string;
  kind: string;
  name?: string;
}

/**
 * Whether a patch of this kind can break an invariant whatever it says (and so is worth a dry
 * run): the kind has invariants of its own. Of the metadata invariants every kind has, a patch
 * can only reach ownerReferences (namespace and name are immutable upstream), which the caller
 * looks for in the patch itself.
 */
export function patchNeedsDryRun(type: StoredType): boolean {
  return (kindRecord(type.group, type.kind)?.invariants.length ?? 0) > 0;
}

/**
 * A tenant's object, in its own terms, as the upstream is to store it when `type` is written:
 * converted up (which refuses what no tenant may write), then checked against every invariant of
 * the type. What a tenant's create or update sends (gateway/proxy/body-up.ts) and what a failover
 * replays of the tenant (eviction/replay-admission.ts) both come from here, so neither lets
 * through what the other refuses. Throws the TranslationError the write is answered with.
 */
export function storedObjectUp(ctx: TenantContext, type: StoredType, object: Json): Json {
  const up = objectUp(ctx, object);
  checkStored(ctx, type, up);
  return up;
}

/** Throws 403 naming every field that would leave the tenant. */
export function checkStored(ctx: TenantContext, type: StoredType, object: Json): void {
  const found = violations(ctx, object, invariantsOf(ctx, type.group, type.kind));
  if (found.length) throw forbidden(type, found);
}

/**
 * The object with every normalizable invariant made to hold (a copy), or undefined when it holds
 * already; throws 403 when one cannot be made to hold.
 */
export function normalizedStored(ctx: TenantContext, type: StoredType, object: Json): Json | undefined {
  const invariants = invariantsOf(ctx, type.group, type.kind);
  if (violations(ctx, object, invariants).length === 0) return undefined;
  const copy = structuredClone(object);
  const left = normalize(ctx, copy, invariants);
  if (left.length) throw forbidden(type, left);
  return copy;
}

function forbidden(type: StoredType, found: Violation[]): TranslationError {
  const what = type.name ? `${type.kind} "${type.name}"` : type.kind;
  const causes = found.map(({ field, invariant }) => ({
    reason: 'FieldValueForbidden',
    field,
    message: invariant.must,
  }));
  const list = causes.map((cause) => `${cause.field}: ${cause.message}`).join('; ');
  return new TranslationError(403, 'Forbidden', `${what} is forbidden: the write would leave the tenant: ${list}`, {
    name: type.name,
    group: type.group,
    kind: type.kind,
    causes,
  });
}
