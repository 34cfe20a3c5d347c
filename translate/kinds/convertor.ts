/**
 * The small building blocks every kind's convertor is made of: a Convertor rewrites one JSON node
 * both ways, and the combinators place convertors at paths, over arrays and on string fields.
 * Everything here skips what is absent or of the wrong type, so partial objects (patch bodies)
 * convert without invented fields and malformed bodies reach the apiserver to be refused there.
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { addPrefix, stripPrefix, type TenantContext } from '../context.js';

/** One rewrite of a JSON node. Both directions rewrite in place: objects.ts works on a copy. */
export interface Convertor {
  up: (ctx: TenantContext, node: Json) => void;
  /** false when the node is not this tenant's to see; whoever holds it leaves it out. */
  down: (ctx: TenantContext, node: Json) => boolean;
}

/** A string value both ways; down, null means the value is not this tenant's. */
export interface StringRule {
  up: (ctx: TenantContext, value: string) => string;
  down: (ctx: TenantContext, value: string) => string | null;
}

/** The rule for the name of a cluster-scoped kind (names.ts, crd.ts). */
export interface NameRule extends StringRule {
  /** The longest name upstream accepts for the kind, prefix included. */
  upstreamLimit: number;
}

/** A name of a cluster-scoped tenant object; `""` (meaning "none", as in storageClassName) stays. */
export const prefixed: StringRule = {
  up: (ctx, value) => (value === '' ? value : addPrefix(ctx, value)),
  down: (ctx, value) => (value === '' ? value : stripPrefix(ctx, value)),
};

/**
 * Every convertor in order; down stops at the first that finds the node foreign. Loops, not
 * callbacks: down runs for every object a tenant reads, and each callback was an allocation.
 */
export function all(...convertors: Convertor[]): Convertor {
  return {
    up: (ctx, node) => {
      for (const convertor of convertors) convertor.up(ctx, node);
    },
    down: (ctx, node) => {
      for (const convertor of convertors) if (!convertor.down(ctx, node)) return false;
      return true;
    },
  };
}

/** The object at `path` under `node`, when there is one. */
export function objectAt(node: Json, path: readonly string[]): Json | undefined {
  let current: unknown = node;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return isObject(current) ? current : undefined;
}

/** The object at `path`, when there; a foreign child makes its holder foreign (required parts). */
export function at(path: readonly string[], convertor: Convertor): Convertor {
  return {
    up: (ctx, node) => {
      const target = objectAt(node, path);
      if (target) convertor.up(ctx, target);
    },
    down: (ctx, node) => {
      const target = objectAt(node, path);
      return target ? convertor.down(ctx, target) : true;
    },
  };
}

/** The object under `key`, when there; a foreign one is left out (deleted), the holder stays. */
export function optional(key: string, convertor: Convertor): Convertor {
  return {
    up: (ctx, node) => {
      if (isObject(node[key])) convertor.up(ctx, node[key]);
    },
    down: (ctx, node) => {
      if (isObject(node[key]) && !convertor.down(ctx, node[key])) delete node[key];
      return true;
    },
  };
}

/** Every object of the array at `path`; down, foreign elements are dropped and never fail the holder. */
export function each(path: readonly string[], convertor: Convertor): Convertor {
  const holderPath = path.slice(0, -1);
  const key = path[path.length - 1];
  const arrayAt = (node: Json): unknown[] | undefined => {
    const array = objectAt(node, holderPath)?.[key];
    return Array.isArray(array) ? array : undefined;
  };
  return {
    up: (ctx, node) => {
      for (const element of arrayAt(node) ?? []) if (isObject(element)) convertor.up(ctx, element);
    },
    down: (ctx, node) => {
      const array = arrayAt(node);
      if (!array) return true;
      // Kept in place, without a second array: most arrays keep every element.
      let kept = 0;
      for (const element of array) if (!isObject(element) || convertor.down(ctx, element)) array[kept++] = element;
      array.length = kept;
      return true;
    },
  };
}

/**
 * A string field converted by `rule`. Down, a value that is not this tenant's is either left
 * out (an optional reference: the field is deleted) or makes the whole node foreign (a field the
 * node means nothing without).
 */
function stringField(key: string, rule: StringRule, foreignValue: 'drop-field' | 'foreign-node'): Convertor {
  return {
    up: (ctx, node) => {
      if (typeof node[key] === 'string') node[key] = rule.up(ctx, node[key]);
    },
    down: (ctx, node) => {
      if (typeof node[key] !== 'string') return true;
      const value = rule.down(ctx, node[key]);
      if (value !== null) node[key] = value;
      else if (foreignValue === 'foreign-node') return false;
      else delete node[key];
      return true;
    },
  };
}

/** An optional string field: down, a value that is not this tenant's is left out (deleted). */
export function stringAt(key: string, rule: StringRule): Convertor {
  return stringField(key, rule, 'drop-field');
}

/** A string field the node means nothing without: down, a value not this tenant's makes the node foreign. */
export function requiredStringAt(key: string, rule: StringRule): Convertor {
  return stringField(key, rule, 'foreign-node');
}

/** An array of strings: down, values that are not this tenant's are dropped. */
export function stringsAt(key: string, rule: StringRule): Convertor {
  return {
    up: (ctx, node) => {
      if (Array.isArray(node[key]))
        node[key] = node[key].map((value: unknown) => (typeof value === 'string' ? rule.up(ctx, value) : value));
    },
    down: (ctx, node) => {
      if (!Array.isArray(node[key])) return true;
      node[key] = node[key].flatMap((value: unknown) => {
        if (typeof value !== 'string') return [value];
        const converted = rule.down(ctx, value);
        return converted === null ? [] : [converted];
      });
      return true;
    },
  };
}

/** Picks the convertor by the node's `kind` field (RBAC subjects, roleRefs); other kinds pass unchanged. */
export function byKind(convertors: Readonly<Record<string, Convertor>>): Convertor {
  const pick = (node: Json): Convertor | undefined =>
    typeof node.kind === 'string' && Object.hasOwn(convertors, node.kind) ? convertors[node.kind] : undefined;
  return {
    up: (ctx, node) => pick(node)?.up(ctx, node),
    down: (ctx, node) => pick(node)?.down(ctx, node) ?? true,
  };
}
