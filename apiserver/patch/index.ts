/**
 * The PATCH content types of kube-apiserver, applied as it applies them, with the status and
 * message it answers each failure with.
 */
import { isObject } from '../json.js';
import { applyJsonPatch } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { patchMetaFor } from './patch-meta.js';
import { PatchError } from './patch-error.js';
import { strategicMergePatch } from './strategic-merge.js';

export { PatchError };

export type PatchType =
  'application/json-patch+json' | 'application/merge-patch+json' | 'application/strategic-merge-patch+json';

/**
 * Applies a patch body (already JSON-parsed) to a copy of `original`; `builtin` false (custom
 * resources) refuses strategic merge patches with a 415, as kube-apiserver does.
 */
export function applyPatch(
  type: PatchType,
  original: object,
  patch: unknown,
  kind: { group: string; version: string; kind: string },
  builtin: boolean,
): object {
  switch (type) {
    case 'application/json-patch+json':
      return asObject(applyJsonPatch(original, patch));
    case 'application/merge-patch+json':
      // evanphx/json-patch's ErrBadJSONPatch; an array patch yields an array, refused below.
      if (typeof patch !== 'object' || patch === null) throw new PatchError('Invalid JSON Patch', 400);
      return asObject(mergePatch(original, patch));
    case 'application/strategic-merge-patch+json':
      if (!builtin) {
        throw new PatchError(
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
          415,
        );
      }
      return strategicMergePatch(original, patch, patchMetaFor(kind.group, kind.kind));
  }
}

/** A patched document that is not an object cannot decode into one: kube-apiserver's 422 Invalid. */
function asObject(patched: unknown): object {
  if (isObject(patched)) return patched;
  const json = JSON.stringify(patched);
  throw new PatchError(
    ` "" is invalid: patch: Invalid value: ${JSON.stringify(json)}: the patched document is not a JSON object`,
    422,
  );
}
