/**
 * Isolation invariants: what must hold of an object as it will be stored upstream (already
 * converted) for it to stay inside tenant <tid>. The convertors make their output hold them; the
 * gateway checks them again on everything it writes, because some writes (patches, applies,
 * subresources) are merged by the apiserver with what is stored, and the result is never seen by
 * a convertor. Each kind lists its invariants as a table of paths (kinds/kind-records.ts); a
 * predicate is, wherever it can be, the down rule of the convertor's own field (a value holds
 * when the rule would show it to the tenant), so the two cannot disagree.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import type { TenantContext } from '../context.js';
import { type StringRule, type Convertor } from './convertor.js';

/** Every element of the array at this point of a path. */
export const EACH = '[]';

export interface Invariant {
  /** Where, from the object's root; `EACH` steps into every element of an array. */
  path: readonly string[];
  /** Whether the value found there (undefined when absent) keeps the object inside the tenant. */
  holds(ctx: TenantContext, value: unknown): boolean;
  /** What the value must be, for the message (`must name one of the tenant's namespaces`). */
  must: string;
  /**
   * The value that makes it hold, when there is exactly one sensible choice (a requirement the
   * gateway always adds, a scope it always sets); the gateway may then store that instead.
   */
  normalize?(ctx: TenantContext, value: unknown): unknown;
  /** Checked only where the object that holds the field is there (a field of a pod spec an object may not have). */
  whereHeld?: boolean;
}

/** A value that breaks an invariant, found at `field` (the path in the tenant's terms, `webhooks[0].clientConfig.url`). */
export interface Violation {
  field: string;
  invariant: Invariant;
}

/** A string field converted by `rule`: holds when absent, `""` or a value the rule shows this tenant. */
export function ruled(path: readonly string[], rule: StringRule, must: string): Invariant {
  return {
    path,
    must,
    holds: (ctx, value) => typeof value !== 'string' || value === '' || rule.down(ctx, value) !== null,
  };
}

/** An object converted by `convertor`: holds when absent or when its down conversion keeps it (a copy is converted). */
export function owned(path: readonly string[], convertor: Convertor, must: string): Invariant {
  return { path, must, holds: (ctx, value) => !isObject(value) || convertor.down(ctx, structuredClone(value)) };
}

/** A field tenants may not set at all. */
export function absent(path: readonly string[], must: string): Invariant {
  return { path, must, holds: (_ctx, value) => value === undefined || value === null };
}

/** The invariants a tenant's object breaks; empty when it may be stored. */
export function violations(ctx: TenantContext, object: Json, invariants: readonly Invariant[]): Violation[] {
  const found: Violation[] = [];
  for (const invariant of invariants) {
    visit(
      object,
      invariant.path,
      '',
      (value, field) => {
        if (!invariant.holds(ctx, value)) found.push({ field, invariant });
      },
      undefined,
      invariant.whereHeld,
    );
  }
  return found;
}

/**
 * Makes every normalizable invariant hold in place; returns the violations left (those without a
 * normalization). Intermediate objects are created where a value must be set.
 */
export function normalize(ctx: TenantContext, object: Json, invariants: readonly Invariant[]): Violation[] {
  const left: Violation[] = [];
  for (const invariant of invariants) {
    visit(
      object,
      invariant.path,
      '',
      (value, field, set) => {
        if (invariant.holds(ctx, value)) return;
        if (invariant.normalize) set(invariant.normalize(ctx, value));
        else left.push({ field, invariant });
      },
      undefined,
      invariant.whereHeld,
    );
  }
  return left;
}

type Visitor = (value: unknown, field: string, set: (value: unknown) => void) => void;

/**
 * Calls `visitor` for the value at each place `path` reaches. A missing object on the way is an
 * absent value (so a required field is still seen missing), unless `whereHeld`, when the field's
 * own holder must be there; a missing array has no elements.
 */
function visit(
  node: unknown,
  path: readonly string[],
  field: string,
  visitor: Visitor,
  set: (value: unknown) => void = () => {},
  whereHeld = false,
): void {
  if (path.length === 0) return visitor(node, field, set);
  if (whereHeld && path.length === 1 && node === undefined) return;
  const [step, ...rest] = path as [string, ...string[]];
  if (step === EACH) {
    if (Array.isArray(node))
      node.forEach((element, index) =>
        visit(element, rest, `${field}[${index}]`, visitor, (value) => (node[index] = value), whereHeld),
      );
    return;
  }
  if (node !== undefined && !isObject(node)) return;
  const name = field ? `${field}.${step}` : step;
  const holder = node;
  visit(
    holder?.[step],
    rest,
    name,
    visitor,
    (value) => {
      if (holder) holder[step] = value;
      else set({ [step]: value });
    },
    whereHeld,
  );
}
