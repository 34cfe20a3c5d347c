import { TranslationError, type TenantContext } from './context.js';
import { objectUp } from './objects.js';

export type PatchBodyType = 'application/json-patch+json' | 'application/merge-patch+json' | 'application/strategic-merge-patch+json' | 'application/apply-patch+yaml';

/**
 * A patch up, still a patch (never emulated with GET + PUT). Merge, strategic-merge and apply
 * patches are partial objects and convert as objects do. A JSON patch converts each operation's
 * value by placing it at its path in an otherwise empty object of the kind, converting that, and
 * reading the value back — so every rule of the object table applies to patches too.
 */
export function patchUp(ctx: TenantContext, type: PatchBodyType, patch: unknown, apiVersion: string, kind: string): unknown {
  if (type !== 'application/json-patch+json') {
    if (!patch || typeof patch !== 'object' || Array.isArray(patch)) throw new TranslationError(400, 'BadRequest', 'the patch must be a JSON object');
    const body = patch as Record<string, unknown>;
    const converted = objectUp(ctx, { ...body, apiVersion: body.apiVersion ?? apiVersion, kind: body.kind ?? kind });
    if (!('apiVersion' in body)) delete converted.apiVersion;
    if (!('kind' in body)) delete converted.kind;
    return converted;
  }
  if (!Array.isArray(patch)) throw new TranslationError(400, 'BadRequest', 'a JSON patch must be a list of operations');
  return patch.map((operation: unknown) => {
    if (!operation || typeof operation !== 'object') return operation;
    const op = operation as Record<string, unknown>;
    const out = { ...op };
    if (typeof op.path === 'string' && 'value' in op) out.value = valueUp(ctx, op.path, op.value, apiVersion, kind);
    return out;
  });
}

function valueUp(ctx: TenantContext, pointer: string, value: unknown, apiVersion: string, kind: string): unknown {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (segments.length === 0) return objectUp(ctx, value as Record<string, unknown>);
  const skeleton: Record<string, unknown> = { apiVersion, kind, metadata: {} };
  let cursor: any = skeleton;
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    const key = /^(\d+|-)$/.test(segment) && Array.isArray(cursor) ? 0 : segment;
    const nextIsIndex = !last && /^(\d+|-)$/.test(segments[i + 1]!);
    const child = last ? value : nextIsIndex ? [] : (cursor[key] && typeof cursor[key] === 'object' ? cursor[key] : {});
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
