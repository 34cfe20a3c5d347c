import { builtinKindSchema, type FieldShape } from './field-schema.js';

/**
 * JSON type checks that kube-apiserver gets for free from decoding into Go structs: a label
 * that is a number, finalizers that are not a list. It answers them with 400 and the
 * encoding/json message, e.g. `json: cannot unmarshal number into Go struct field
 * ObjectMeta.metadata.labels of type string`. Checked here for ObjectMeta (every kind), the
 * string maps of ConfigMap and Secret, and the structs, lists and maps of every kind with a field
 * schema, so nothing mistyped is stored for controllers to trip on.
 */
type Expect = 'string' | 'integer' | 'boolean' | 'stringMap' | 'stringList' | 'list' | 'ownerReferences' | 'object';

const OBJECT_META: Record<string, Expect> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'integer',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
  deletionGracePeriodSeconds: 'integer',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'ownerReferences',
  finalizers: 'stringList',
  managedFields: 'list',
};

const OWNER_REFERENCE: Record<string, Expect> = {
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  uid: 'string',
  controller: 'boolean',
  blockOwnerDeletion: 'boolean',
};

const GO_TYPES: Record<Expect, string> = {
  string: 'string',
  integer: 'int64',
  boolean: 'bool',
  stringMap: 'map[string]string',
  stringList: '[]string',
  list: '[]v1.ManagedFieldsEntry',
  ownerReferences: '[]v1.OwnerReference',
  object: 'v1.OwnerReference',
};

/** The decode error for `object`, or null when its types are right. */
export function decodeTypeError(
  group: string,
  kind: string,
  object: Record<string, unknown>,
  version = '',
): string | null {
  const meta = object.metadata;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) {
    return mismatch(meta, kind, 'metadata', 'v1.ObjectMeta');
  }
  for (const [field, expect] of Object.entries(OBJECT_META)) {
    const error = check(
      (meta as Record<string, unknown> | undefined)?.[field],
      expect,
      'ObjectMeta',
      `metadata.${field}`,
    );
    if (error) return error;
  }
  if (group === '' && (kind === 'ConfigMap' || kind === 'Secret')) {
    for (const field of kind === 'Secret' ? ['data', 'stringData'] : ['data', 'binaryData']) {
      const error = check(object[field], 'stringMap', kind, field);
      if (error) return error;
    }
  }
  const schema = builtinKindSchema(group, version, kind);
  return schema ? structureError(schema, object, kind, '') : null;
}

/**
 * Where the kind's schema (field-schema.ts) has a struct, a list or a map, a value of another
 * JSON type: Go cannot decode it and kube answers 400; stored, it would trip the code that reads
 * the object (a Deployment whose `spec` is a number). Scalars are not checked: the schema
 * groups strings, numbers, Quantities and IntOrStrings under one name.
 */
function structureError(shape: FieldShape, value: unknown, kind: string, path: string): string | null {
  if (value === undefined || value === null || shape === 'scalar' || shape === 'any') return null;
  if ('listOf' in shape) {
    if (!Array.isArray(value)) return mismatch(value, kind, path, 'slice');
    for (const item of value) {
      const error = structureError(shape.listOf, item, kind, path);
      if (error) return error;
    }
    return null;
  }
  if (typeof value !== 'object' || Array.isArray(value))
    return mismatch(value, kind, path, 'mapOf' in shape ? 'map' : 'struct');
  for (const [key, child] of Object.entries(value)) {
    const childShape = 'mapOf' in shape ? shape.mapOf : shape.fields.get(key);
    const error =
      childShape === undefined ? null : structureError(childShape, child, kind, path === '' ? key : `${path}.${key}`);
    if (error) return error;
  }
  return null;
}

function check(value: unknown, expect: Expect, struct: string, field: string): string | null {
  if (value === undefined || value === null) return null;
  switch (expect) {
    case 'string':
      return typeof value === 'string' ? null : mismatch(value, struct, field, 'string');
    case 'integer':
      return Number.isInteger(value) ? null : mismatch(value, struct, field, 'int64');
    case 'boolean':
      return typeof value === 'boolean' ? null : mismatch(value, struct, field, 'bool');
    case 'stringMap':
      if (typeof value !== 'object' || Array.isArray(value)) return mismatch(value, struct, field, GO_TYPES.stringMap);
      for (const entry of Object.values(value))
        if (entry !== null && typeof entry !== 'string') return mismatch(entry, struct, field, 'string');
      return null;
    case 'stringList':
      if (!Array.isArray(value)) return mismatch(value, struct, field, GO_TYPES.stringList);
      for (const entry of value)
        if (entry !== null && typeof entry !== 'string') return mismatch(entry, struct, field, 'string');
      return null;
    case 'list':
      return Array.isArray(value) ? null : mismatch(value, struct, field, GO_TYPES.list);
    case 'object':
      return typeof value === 'object' && !Array.isArray(value)
        ? null
        : mismatch(value, struct, field, GO_TYPES.object);
    case 'ownerReferences':
      if (!Array.isArray(value)) return mismatch(value, struct, field, GO_TYPES.ownerReferences);
      for (const ref of value) {
        const shape = check(ref, 'object', struct, field);
        if (shape) return shape;
        for (const [refField, refExpect] of Object.entries(OWNER_REFERENCE)) {
          const error = check(
            (ref as Record<string, unknown>)[refField],
            refExpect,
            'OwnerReference',
            `${field}.${refField}`,
          );
          if (error) return error;
        }
      }
      return null;
  }
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

function mismatch(value: unknown, struct: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${struct}.${field} of type ${goType}`;
}
