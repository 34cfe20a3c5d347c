/**
 * Server-side apply (PATCH with application/apply-patch+yaml), as kube-apiserver 1.32 does it
 * with sigs.k8s.io/structured-merge-diff: the manager's whole intent is merged into the live
 * object (maps by field, lists with a merge key by item, other lists replaced); fields it applied
 * before and no longer applies are removed unless another manager owns them; and changing a field
 * another manager owns is a conflict unless forced, which takes the field over.
 */
import { isObject, type Json } from '../json.js';
import type { FieldPatchMeta } from '../patch/patch-meta.js';
import { ApiError, badRequest, statusOf } from '../status.js';
import { goQuote } from '../go-quote.js';
import type { Cause } from '../validation/cause.js';
import {
  childrenOf,
  compareObjects,
  FieldSet,
  fieldSetOf,
  isMergedList,
  itemElement,
  itemMeta,
  listItemElements,
  pathString,
  type FieldPath,
  type PathElement,
} from './field-set.js';
import { conflictsAllowedByLastApplied, KUBECTL_APPLY_MANAGER, withLastAppliedSynced } from './last-applied.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  isSameManager,
  kindMeta,
  ownableChanges,
  ownershipAfterUpdate,
  withoutServerFields,
  zeroValueOf,
  type ManagerEntry,
  type ManagerIdentity,
} from './managed-fields.js';

export interface ApplyResult {
  object: Json;
  created: boolean;
}

export interface ApplyConflict {
  manager: string;
  operation: ManagerIdentity['operation'];
  apiVersion: string;
  subresource?: string;
  /** The path as kube prints it: `.spec.replicas`. */
  field: string;
}

/** The handler turns it into a 409 Conflict Status (conflictStatusMessage, conflictCauses). */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictStatusMessage(conflicts));
  }
}

export interface ServerSideApplyOptions {
  manager: string;
  force: boolean;
  /** The version the request was made at, recorded in the manager's entry. */
  apiVersion: string;
  group: string;
  kind: string;
  now: string;
}

/** Fields that predate field tracking belong to this Update manager once someone applies. */
const BEFORE_FIRST_APPLY = 'before-first-apply';

/**
 * `live` null → create. Returns the new object, with its managedFields (without writing anything).
 * kubectl's own manager gets what kube grants it on a client-side applied object
 * (apply/last-applied.ts).
 */
export function serverSideApply(live: Json | null, applied: Json, options: ServerSideApplyOptions): Json {
  if (options.manager !== KUBECTL_APPLY_MANAGER || !live) return applyIntent(live, applied, options);
  let result: Json;
  try {
    result = applyIntent(live, applied, options);
  } catch (err) {
    if (!(err instanceof ApplyConflictError)) throw err;
    const meta = kindMeta(options.group, options.kind);
    const allowed = conflictsAllowedByLastApplied(withoutManagedFields(live), options.apiVersion, meta);
    if (!allowed) throw err;
    const allowedFields = new Set(allowed.paths().map(pathString));
    const left = err.conflicts.filter((conflict) => !allowedFields.has(conflict.field));
    if (left.length > 0) throw new ApplyConflictError(left);
    result = applyIntent(live, applied, { ...options, force: true });
  }
  return withLastAppliedSynced(result, applied);
}

function applyIntent(live: Json | null, applied: Json, options: ServerSideApplyOptions): Json {
  const meta = kindMeta(options.group, options.kind);
  const config = configurationOf(applied);
  checkListItems(config, meta, [], applied, options);
  const liveObject = live ? withoutManagedFields(live) : null;
  const entries = live && liveObject ? trackedEntries(live.metadata?.managedFields, liveObject, meta, options) : [];

  const applier: ManagerIdentity = { manager: options.manager, operation: 'Apply', apiVersion: options.apiVersion };
  const previous = entries.find((entry) => isSameManager(entry, applier));
  const others = entries.filter((entry) => entry !== previous);
  const appliedFields = withoutServerFields(fieldSetOf(config, meta));
  const merged = merge(liveObject ?? undefined, config, meta) as Json;
  const owned = others.reduce((set, entry) => set.union(entry.fields), appliedFields);
  const result = previous ? (prune(merged, previous.fields, owned, meta) as Json) : merged;

  const changes = ownableChanges(compareObjects(liveObject ?? {}, result, meta));
  const remaining = changes ? othersAfterApply(others, changes, options.force) : others;
  if (!appliedFields.isEmpty()) {
    // Like kube, the entry's time moves only when the apply changed the object.
    const time = changes || !previous?.time ? options.now : previous.time;
    remaining.push({ ...applier, time, fields: appliedFields });
  }
  const managedFields = encodeManagedFields(remaining);
  return { ...result, metadata: { ...result.metadata, ...(managedFields.length ? { managedFields } : {}) } };
}

/** What an apply body can own: no status, and none of the metadata the server sets. */
function configurationOf(applied: Json): Json {
  const { status: _status, ...config } = structuredClone(applied);
  if (isObject(config.metadata)) {
    if (config.metadata.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
    const {
      resourceVersion: _v,
      uid: _u,
      creationTimestamp: _c,
      generation: _g,
      selfLink: _s,
      ...metadata
    } = config.metadata;
    config.metadata = metadata;
  }
  return config;
}

function withoutManagedFields(object: Json): Json {
  const { managedFields: _ignored, ...metadata } = object.metadata ?? {};
  return { ...object, metadata };
}

function trackedEntries(
  stored: unknown,
  liveObject: Json,
  meta: FieldPatchMeta,
  options: ServerSideApplyOptions,
): ManagerEntry[] {
  const entries = decodeManagedFields(stored);
  if (entries.length > 0) return entries;
  const changes = ownableChanges(compareObjects(zeroValueOf(liveObject), liveObject, meta));
  return changes
    ? ownershipAfterUpdate([], changes, { manager: BEFORE_FIRST_APPLY, apiVersion: options.apiVersion }, options.now)
    : [];
}

/**
 * Other managers after the apply: changing a field one of them owns is a conflict; forced, the
 * field is theirs no more. Removed fields are no one's.
 */
function othersAfterApply(
  others: ManagerEntry[],
  changes: { changed: FieldSet; removed: FieldSet },
  force: boolean,
): ManagerEntry[] {
  const conflicts = others.flatMap((entry) =>
    entry.fields
      .intersection(changes.changed)
      .paths()
      .map((path) => conflictOf(entry, path)),
  );
  if (conflicts.length > 0 && !force)
    throw new ApplyConflictError(conflicts.sort((a, b) => compareStrings(identityKey(a), identityKey(b))));
  return others
    .map((entry) => ({ ...entry, fields: entry.fields.difference(changes.changed).difference(changes.removed) }))
    .filter((entry) => !entry.fields.isEmpty());
}

function conflictOf(entry: ManagerEntry, path: FieldPath): ApplyConflict {
  const conflict: ApplyConflict = {
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    field: pathString(path),
  };
  if (entry.subresource) conflict.subresource = entry.subresource;
  return conflict;
}

/**
 * The config merged into the live object: maps field by field, lists with a merge key (and sets
 * of scalars) item by item, anything else — scalars, atomic lists — replaced.
 */
function merge(live: unknown, config: unknown, meta: FieldPatchMeta | undefined): unknown {
  if (live === undefined) return config;
  if (isObject(live) && isObject(config)) {
    const result: Json = { ...live };
    for (const [field, value] of Object.entries(config))
      result[field] = merge(live[field], value, meta?.fields?.[field]);
    return result;
  }
  if (Array.isArray(live) && Array.isArray(config)) {
    const liveElements = listItemElements(live, meta);
    const configElements = listItemElements(config, meta);
    if (liveElements && configElements) return mergeItems(live, liveElements, config, configElements, itemMeta(meta));
  }
  return config;
}

/**
 * structured-merge-diff's item order: live items the config lacks keep their place, the config's
 * items come in the config's order, and an item in both is placed where the config puts it.
 */
function mergeItems(
  live: unknown[],
  liveElements: PathElement[],
  config: unknown[],
  configElements: PathElement[],
  meta: FieldPatchMeta | undefined,
): unknown[] {
  const liveIndex = new Map(liveElements.map((element, i) => [element, i]));
  const configIndex = new Map(configElements.map((element, i) => [element, i]));
  const sharedInConfigOrder = configElements.filter((element) => liveIndex.has(element));
  let nextShared = 0;
  const placed = new Set<PathElement>();
  const out: unknown[] = [];
  const place = (element: PathElement) => {
    placed.add(element);
    const fromLive = liveIndex.get(element);
    out.push(merge(fromLive === undefined ? undefined : live[fromLive], config[configIndex.get(element)!], meta));
    if (sharedInConfigOrder[nextShared] === element) nextShared++;
  };
  let l = 0;
  let c = 0;
  while (l < live.length || c < config.length) {
    const liveElement = liveElements[l];
    if (liveElement !== undefined && c < config.length) {
      if (liveElement === configElements[c]) {
        place(liveElement);
        l++;
        c++;
        continue;
      }
      // A shared item waits until the config reaches it, unless it is the next one due.
      const due = sharedInConfigOrder[nextShared];
      if (configIndex.has(liveElement) && due !== undefined && due !== liveElement) {
        l++;
        continue;
      }
    }
    if (liveElement !== undefined) {
      if (!configIndex.has(liveElement)) {
        out.push(live[l++]);
        continue;
      }
      if (placed.has(liveElement)) {
        l++;
        continue;
      }
    }
    if (c < config.length) place(configElements[c++]);
  }
  return out;
}

/**
 * The merged object without what the applier owned before (`last`) and nobody owns now: leaves
 * and list items are removed, maps and lists pruning leaves empty disappear as omitempty drops
 * them. Fields nobody ever owned stay.
 */
function prune(value: unknown, last: FieldSet, owned: FieldSet | undefined, meta: FieldPatchMeta | undefined): unknown {
  const kept: [PathElement, unknown][] = [];
  for (const [element, child] of childrenOf(value, meta) ?? []) {
    const below = childrenOf(child.value, child.meta);
    const isMember = element[0] !== 'f' || below === null || (below.size === 0 && isObject(child.value));
    if (isMember && owns(last, element) && !(owned && owns(owned, element))) continue;
    const lastBelow = last.child(element);
    if (!lastBelow || !below || below.size === 0) {
      kept.push([element, child.value]);
      continue;
    }
    const pruned = prune(child.value, lastBelow, owned?.child(element), child.meta);
    if (Object.keys(pruned as object).length > 0) kept.push([element, pruned]);
  }
  return Array.isArray(value)
    ? kept.map(([, item]) => item)
    : Object.fromEntries(kept.map(([element, field]) => [element.slice(2), field]));
}

/** A set owns an element it lists, and a field it owns something below (structured-merge-diff's named fields). */
function owns(set: FieldSet, element: PathElement): boolean {
  return set.hasMember(element) || (element[0] === 'f' && set.child(element) !== undefined);
}

/**
 * Lists merged by key must name each item once, as structured-merge-diff requires of an apply
 * body; kube answers a 500 with its error text.
 */
function checkListItems(
  value: unknown,
  meta: FieldPatchMeta | undefined,
  path: FieldPath,
  applied: Json,
  options: ServerSideApplyOptions,
): void {
  if (Array.isArray(value) && isMergedList(meta)) {
    const key = meta?.mergeKey;
    const seen = new Set<PathElement>();
    value.forEach((item, i) => {
      const element = itemElement(item, key);
      if (element === null) {
        const problem = key ? `omits key field ${goQuote(key)} (and doesn't have default value)` : 'is not a scalar';
        throw typedPatchError(
          applied,
          options,
          `${pathString(path)}: element ${i}: associative list ${key ? 'with keys' : 'without keys'} has an element that ${problem}`,
        );
      }
      if (seen.has(element))
        throw typedPatchError(
          applied,
          options,
          `${pathString(path)}: duplicate entries for key ${pathString([element])}`,
        );
      seen.add(element);
    });
  }
  for (const [element, child] of childrenOf(value, meta) ?? [])
    checkListItems(child.value, child.meta, [...path, element], applied, options);
}

function typedPatchError(applied: Json, options: ServerSideApplyOptions, detail: string): ApiError {
  const { namespace = '', name = '' } = isObject(applied.metadata) ? applied.metadata : {};
  return new ApiError(
    statusOf(
      500,
      '',
      `failed to create typed patch object (${namespace}/${name}; ${options.apiVersion}, Kind=${options.kind}): ${detail}`,
    ),
  );
}

/** How kube names a manager in conflicts: Update entries with their version, Apply entries without. */
function describeManager(conflict: ApplyConflict): string {
  let text = goQuote(conflict.manager);
  if (conflict.subresource) text += ` with subresource ${goQuote(conflict.subresource)}`;
  return conflict.operation === 'Update' ? `${text} using ${conflict.apiVersion}` : text;
}

/** kube sorts conflicting managers by their JSON identity, which starts with the manager's name. */
function identityKey(conflict: ApplyConflict): string {
  const { manager, operation, apiVersion, subresource } = conflict;
  return JSON.stringify({
    manager,
    operation,
    ...(operation === 'Update' ? { apiVersion } : {}),
    ...(subresource ? { subresource } : {}),
  });
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** kube-apiserver's Status message, which kubectl prints after `error: `. */
export function conflictStatusMessage(conflicts: ApplyConflictError['conflicts']): string {
  if (conflicts.length === 1)
    return `Apply failed with 1 conflict: conflict with ${describeManager(conflicts[0])}: ${conflicts[0].field}`;
  const byManager = new Map<string, ApplyConflict[]>();
  for (const conflict of conflicts)
    byManager.set(identityKey(conflict), [...(byManager.get(identityKey(conflict)) ?? []), conflict]);
  const lines = [...byManager.keys()].sort(compareStrings).flatMap((key) => {
    const group = byManager.get(key)!;
    return [`conflicts with ${describeManager(group[0])}:`, ...group.map((conflict) => `- ${conflict.field}`)];
  });
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** One FieldManagerConflict cause per field, as the Status's `details.causes`. */
export function conflictCauses(conflicts: ApplyConflictError['conflicts']): Cause[] {
  return conflicts.map((conflict) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describeManager(conflict)}`,
    field: conflict.field,
  }));
}
