/**
 * JSON merge patch (RFC 7386) as kube-apiserver applies it (evanphx/json-patch v4 MergePatch):
 * objects merge recursively, `null` deletes a member, anything else replaces. Where a patch value
 * is inserted rather than merged, its objects lose their null members at every depth, objects
 * inside arrays included.
 */
import { cloneJson, isObject } from '../json.js';

type JsonObject = { [key: string]: unknown };

/** Returns `target` patched by `patch`; neither input is modified and the result shares nothing with them. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return withoutNullMembers(patch);
  return mergeObjects(isObject(target) ? cloneJson(target) : {}, patch);
}

function mergeObjects(target: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete target[key];
    else if (target[key] === undefined || target[key] === null) target[key] = withoutNullMembers(value);
    else target[key] = mergeValue(target[key], value);
  }
  return target;
}

function mergeValue(current: unknown, patch: unknown): unknown {
  if (!isObject(current)) return withoutNullMembers(patch);
  // v4 returns a non-object patch value for an object member as it is, nulls inside included.
  if (!isObject(patch)) return cloneJson(patch);
  return mergeObjects(current, patch);
}

function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, member] of Object.entries(value)) if (member !== null) copy[key] = withoutNullMembers(member);
  return copy;
}
