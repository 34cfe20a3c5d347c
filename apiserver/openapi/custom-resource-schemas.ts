/**
 * The schemas kube's apiextensions server publishes for one served version of a CRD (its OpenAPI
 * builder, in its v3 form): the version's `openAPIV3Schema` with the standard `apiVersion`, `kind`
 * and `metadata`, and a `<Kind>List`, each carrying its group-version-kind, named by kube-openapi's
 * REST-friendly name of `<group>/<version>.<Kind>` (`com.example.stable.v1.CronTab`).
 */
import { isObject, type Json } from '../json.js';
import type { ResourceInfo } from '../resources/resource-info.js';
import { GVK_EXTENSION, kubernetesSchema, SCHEMA_REF } from './kubernetes-schemas.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const OBJECT_META = `${META}.ObjectMeta`;
export const LIST_META = `${META}.ListMeta`;

// The descriptions kube takes from PartialObjectMetadata and PartialObjectMetadataList.
const OBJECT_META_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_META_DESCRIPTION =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
// ...and, for resources embedded in a custom resource, these.
const EMBEDDED_API_VERSION_DESCRIPTION =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DESCRIPTION =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** kube-openapi's ToRESTFriendlyName: the group's dot-separated parts reversed, then version and kind. */
export function customResourceSchemaName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

const refTo = (name: string, description: string): Json => ({ allOf: [{ $ref: SCHEMA_REF + name }], description });

/** TypeMeta's `apiVersion` and `kind` as every built-in kind has them (ConfigMap's will do). */
function typeMetaProperties(): Json {
  const properties = kubernetesSchema('io.k8s.api.core.v1.ConfigMap')?.properties ?? {};
  return { apiVersion: properties.apiVersion, kind: properties.kind };
}

/** The kind's schema and its list's, keyed by name; none for a resource without a schema. */
export function customResourceSchemas(r: ResourceInfo): Record<string, Json> {
  const name = customResourceSchemaName(r.group, r.version, r.kind);
  const gvk = (kind: string) => [{ group: r.group, kind, version: r.version }];
  const kind: Json = isObject(r.openAPIV3Schema)
    ? withEmbeddedResources(structuredClone(r.openAPIV3Schema))
    : { type: 'object' };
  if (isObject(r.openAPIV3Schema))
    kind.properties = {
      ...kind.properties,
      metadata: refTo(OBJECT_META, OBJECT_META_DESCRIPTION),
      ...typeMetaProperties(),
    };
  kind[GVK_EXTENSION] = gvk(r.kind);
  const list: Json = {
    description: `${r.listKind} is a list of ${r.kind}`,
    properties: {
      ...typeMetaProperties(),
      items: {
        description: `List of ${r.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: { $ref: SCHEMA_REF + name },
        type: 'array',
      },
      metadata: refTo(LIST_META, LIST_META_DESCRIPTION),
    },
    required: ['items'],
    type: 'object',
    [GVK_EXTENSION]: gvk(r.listKind),
  };
  return { [name]: kind, [customResourceSchemaName(r.group, r.version, r.listKind)]: list };
}

/** An object marked `x-kubernetes-embedded-resource` is a whole object: it gets the type and object metadata too. */
function withEmbeddedResources(schema: Json): Json {
  for (const child of Object.values<unknown>(schema.properties ?? {}))
    if (isObject(child)) withEmbeddedResources(child);
  if (isObject(schema.items)) withEmbeddedResources(schema.items);
  if (isObject(schema.additionalProperties)) withEmbeddedResources(schema.additionalProperties);
  if (schema['x-kubernetes-embedded-resource'] === true) {
    const { apiVersion, kind } = typeMetaProperties();
    schema.properties = {
      ...schema.properties,
      apiVersion: { ...apiVersion, description: EMBEDDED_API_VERSION_DESCRIPTION },
      kind: { ...kind, description: EMBEDDED_KIND_DESCRIPTION },
      metadata: refTo(OBJECT_META, OBJECT_META_DESCRIPTION),
    };
    const required: string[] = Array.isArray(schema.required) ? schema.required : [];
    schema.required = [...required, ...(['kind', 'apiVersion'] as const).filter((field) => !required.includes(field))];
  }
  return schema;
}
