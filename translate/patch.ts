import { groupOfApiVersion, podApiAdding, TranslationError, type TenantContext } from './context.js';
import { EACH, type Invariant } from './kinds/invariants.js';
import { invariantsOf } from './kinds/kind-records.js';
import { isGatewayAnnotation } from './kinds/pod-api.js';
import { POD_PATHS } from './kinds/pod-spec.js';
import { objectUp } from './objects.js';

export type PatchBodyType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json'
  | 'application/apply-patch+yaml';

/**
 * A patch up, still a patch (never emulated with GET + PUT). Merge, strategic-merge and apply
 * patches are partial objects and convert as objects do. A JSON patch converts each operation's
 * value by placing it at its path in an otherwise empty object of the kind, converting that, and
 * reading the value back — so every rule of the object table applies to patches too.
 *
 * What a patch cannot say by itself — what stays after a `remove`, what a `$patch: delete` or
 * `$retainKeys` leaves, what a merge with the stored object gives — the gateway checks on the
 * result (gateway/proxy/checked-write.ts). Refused here: a `copy` or `move`, which carries a stored
 * value from one place to another, unconverted, that reads or writes an isolation-critical
 * field; and any operation on an annotation of a pod or template that only the gateway writes
 * (kinds/pod-api.ts), which a whole object's conversion drops but an operation would name alone.
 */
export function patchUp(
  ctx: TenantContext,
  type: PatchBodyType,
  patch: unknown,
  apiVersion: string,
  kind: string,
  /** The URL's: a pod's conversion names it (kinds/pod-api.ts), and a patch rarely says it. */
  namespace?: string,
): unknown {
  if (type !== 'application/json-patch+json') {
    // A server-side apply is the whole of what its manager wants; any other patch is partial (PodApi.adds).
    ctx = podApiAdding(ctx, type === 'application/apply-patch+yaml' ? 'all' : 'env');
    if (!patch || typeof patch !== 'object' || Array.isArray(patch))
      throw new TranslationError(400, 'BadRequest', 'the patch must be a JSON object');
    const body = patch as Record<string, any>;
    const unnamed = namespace !== undefined && body.metadata?.namespace === undefined;
    const converted = objectUp(ctx, {
      ...body,
      apiVersion: body.apiVersion ?? apiVersion,
      kind: body.kind ?? kind,
      ...(unnamed ? { metadata: { ...body.metadata, namespace } } : {}),
    });
    if (!('apiVersion' in body)) delete converted.apiVersion;
    if (!('kind' in body)) delete converted.kind;
    if (unnamed) {
      delete converted.metadata.namespace;
      if (!('metadata' in body) && Object.keys(converted.metadata).length === 0) delete converted.metadata;
    }
    return converted;
  }
  if (!Array.isArray(patch)) throw new TranslationError(400, 'BadRequest', 'a JSON patch must be a list of operations');
  checkCopiesAndMoves(patch, invariantsOf(ctx, groupOfApiVersion(apiVersion), kind), kind);
  checkGatewayAnnotations(patch, POD_PATHS.get(`${groupOfApiVersion(apiVersion)}/${kind}`), kind);
  return patch.map((operation: unknown) => {
    if (!operation || typeof operation !== 'object') return operation;
    const op = operation as Record<string, unknown>;
    const out = { ...op };
    if (typeof op.path === 'string' && 'value' in op)
      out.value = valueUp(podApiAdding(ctx, addsAt(op.path, apiVersion, kind)), op.path, op.value, {
        apiVersion,
        kind,
        metadata: namespace === undefined ? {} : { namespace },
      });
    return out;
  });
}

/**
 * What a JSON patch operation's value may be given (PodApi.adds): everything when it replaces a
 * whole pod spec (`/spec/template` of a Deployment, as `kubectl rollout undo` sends it), since
 * nothing of the stored one is left; the variables only when it is a part of one.
 */
function addsAt(pointer: string, apiVersion: string, kind: string): 'all' | 'env' {
  const podPath = POD_PATHS.get(`${groupOfApiVersion(apiVersion)}/${kind}`);
  if (!podPath) return 'env';
  const segments = pointerSegments(pointer);
  const spec = [...podPath, 'spec'];
  return segments.length <= spec.length && segments.every((segment, i) => segment === spec[i]) ? 'all' : 'env';
}

/** Refuses a `copy` or `move` whose `from` or `path` is, or is inside, or holds an isolation-critical field. */
export function checkCopiesAndMoves(patch: unknown[], invariants: readonly Invariant[], kind: string): void {
  for (const operation of patch) {
    if (!operation || typeof operation !== 'object') continue;
    const { op, from, path } = operation as Record<string, unknown>;
    if (op !== 'copy' && op !== 'move') continue;
    for (const pointer of [from, path]) {
      if (typeof pointer !== 'string') continue;
      const critical = invariants.find((invariant) => overlaps(pointerSegments(pointer), invariant.path));
      if (critical) {
        const field = critical.path
          .map((step) => (step === EACH ? '[*]' : step))
          .join('.')
          .replace(/\.\[\*\]/g, '[*]');
        throw new TranslationError(
          403,
          'Forbidden',
          `${kind}: the JSON patch operation "${op}" on ${pointer} is forbidden: it would carry an unconverted value into or out of ${field}, which the gateway keeps inside the tenant`,
        );
      }
    }
  }
}

/** Refuses an operation whose `path` or `from` is, or is inside, an annotation only the gateway writes on the pod or template at `podPath`. */
function checkGatewayAnnotations(patch: unknown[], podPath: readonly string[] | undefined, kind: string): void {
  if (!podPath) return;
  const annotations = [...podPath, 'metadata', 'annotations'];
  for (const operation of patch) {
    if (!operation || typeof operation !== 'object') continue;
    const { op, from, path } = operation as Record<string, unknown>;
    for (const pointer of [from, path]) {
      if (typeof pointer !== 'string') continue;
      const segments = pointerSegments(pointer);
      const key = segments[annotations.length];
      if (key === undefined || !annotations.every((step, i) => segments[i] === step) || !isGatewayAnnotation(key))
        continue;
      throw new TranslationError(
        403,
        'Forbidden',
        `${kind}: the JSON patch operation "${String(op)}" on ${pointer} is forbidden: the annotation ${key} is written by the gateway alone`,
      );
    }
  }
}

function pointerSegments(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Whether one path is a prefix of the other (an array index matches `EACH`). */
function overlaps(segments: readonly string[], path: readonly string[]): boolean {
  const length = Math.min(segments.length, path.length);
  for (let i = 0; i < length; i++) {
    const step = path[i];
    if (step === EACH ? !/^(\d+|-)$/.test(segments[i]) : step !== segments[i]) return false;
  }
  return true;
}

/** `skeleton`: the empty object of the kind the value is placed in (its type and namespace). */
function valueUp(ctx: TenantContext, pointer: string, value: unknown, skeleton: Record<string, any>): unknown {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return objectUp(ctx, value as Record<string, unknown>);
  let cursor: any = skeleton;
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    const key = /^(\d+|-)$/.test(segment) && Array.isArray(cursor) ? 0 : segment;
    const nextIsIndex = !last && /^(\d+|-)$/.test(segments[i + 1]);
    const child = last ? value : nextIsIndex ? [] : cursor[key] && typeof cursor[key] === 'object' ? cursor[key] : {};
    cursor[key] = child;
    cursor = child;
  });
  let converted: any = objectUp(ctx, skeleton);
  for (const segment of segments) {
    if (converted === undefined || converted === null) return value;
    converted = Array.isArray(converted) && /^(\d+|-)$/.test(segment) ? converted[0] : converted[segment];
  }
  return converted === undefined ? value : converted;
}
