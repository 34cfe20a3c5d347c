import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { Strategy } from '../apiserver/registry/strategy.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { forbidden, type Cause } from '../apiserver/validation/cause.js';
import type { PrinterColumn } from '../apiserver/table/printers/custom-resource.js';
import { addPrefix, tenantPrefix } from '../translate/context.js';
import {
  CREDENTIALS_ANNOTATION,
  KUBECONFIG_ANNOTATION,
  storedCredentials,
  type TenantKubeconfigs,
} from './tenant-kubeconfig.js';
import { spaceClustersOf } from './tenant-space-clusters.js';

/**
 * The Tenant kind (`tenant.kubezoo.io/v1alpha1`, cluster-scoped, name = tenant id), as KubeZoo
 * defines it plus the fields Paddock's placement, failover and revocation need:
 *
 *   spec:   id, clusterAffinity {clusterNames, labelSelector}, clusterTolerations, failover {purgeMode},
 *           limits {qps, burst, maxWatches, maxUpstreamConnections}
 *   status: phase Pending|Active|Terminating, cluster, spaceClusters, certificateSerials, evictionTasks,
 *           conditions
 */
export const TENANT_GROUP = 'tenant.kubezoo.io';
export const TENANT_VERSION = 'v1alpha1';
export const TENANT_FINALIZER = 'kubezoo.io/tenant';
/** Set (to any new value) to have the controller issue a new certificate and revoke the old ones. */
export const ROTATE_ANNOTATION = 'kubezoo.io/tenant.rotate';

export const TENANT_RESOURCE: ResourceInfo = {
  group: TENANT_GROUP,
  version: TENANT_VERSION,
  resource: 'tenants',
  kind: 'Tenant',
  listKind: 'TenantList',
  singular: 'tenant',
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: [],
  categories: [],
  subresources: [{ name: 'status', kind: 'Tenant', verbs: ['get', 'patch', 'update'] }],
  // Not compiled into kubectl: client-side apply sends merge patches, as for custom resources.
  builtin: false,
};

export const TENANT_PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  { name: 'Cluster', type: 'string', jsonPath: '.status.cluster' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

export type TenantPhase = 'Pending' | 'Active' | 'Terminating';

const TENANT_ID = /^[a-z0-9]{6}$/;
const PURGE_MODES = ['Gracefully', 'Directly', 'Never'];
const TOLERATION_OPERATORS = ['Exists', 'Equal'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function isTenantId(id: string): boolean {
  return TENANT_ID.test(id);
}

/**
 * Ids refused at create because upstream names `<id>-…` that they would own belong to the
 * cluster itself or to a common add-on (docs/gateway.md lists why each is here). Only valid ids
 * matter: `kube-system` or `istio-system` cannot be owned, a prefix is six characters and a dash.
 */
const RESERVED_ID_PREFIXES = ['kube', 'system'];
export const RESERVED_TENANT_IDS = [
  'amazon',
  'antrea',
  'argocd',
  'calico',
  'cattle',
  'cilium',
  'consul',
  'istiod',
  'jaeger',
  'nvidia',
  'tekton',
  'tigera',
  'velero',
  'vmware',
];

/** Why a new tenant may not have this id, or null when it may. */
export function reservedTenantId(id: string): string | null {
  const prefix = RESERVED_ID_PREFIXES.find((p) => id.startsWith(p));
  if (prefix) return `tenant ids beginning with "${prefix}" are reserved for the cluster's own objects`;
  if (RESERVED_TENANT_IDS.includes(id))
    return `the tenant id is reserved: upstream names "${addPrefix(tenantPrefix(id), '…')}" belong to a cluster add-on`;
  return null;
}

/** `spec.limits`: the tenant's own bounds on a gateway replica, over the gateway's flags (gateway/server/tenant-limits.ts). */
export interface TenantLimitOverrides {
  qps?: number;
  burst?: number;
  maxWatches?: number;
  maxUpstreamConnections?: number;
}

const LIMIT_FIELDS = ['qps', 'burst', 'maxWatches', 'maxUpstreamConnections'] as const;

/** The limits a valid Tenant sets, or undefined when it sets none. */
export function tenantLimitOverrides(tenant: ApiObject): TenantLimitOverrides | undefined {
  const limits = tenant.spec?.limits;
  if (typeof limits !== 'object' || limits === null) return undefined;
  const overrides: TenantLimitOverrides = {};
  for (const field of LIMIT_FIELDS) if (typeof limits[field] === 'number') overrides[field] = limits[field];
  return Object.keys(overrides).length ? overrides : undefined;
}

function validateLimits(limits: unknown): Cause[] {
  if (limits === undefined) return [];
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits))
    return [{ reason: 'FieldValueInvalid', field: 'spec.limits', message: 'Invalid value: must be an object' }];
  const causes: Cause[] = [];
  for (const [field, value] of Object.entries(limits)) {
    const path = `spec.limits.${field}`;
    if (!(LIMIT_FIELDS as readonly string[]).includes(field)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: path,
        message: `Unsupported value: ${JSON.stringify(field)}: supported values: ${LIMIT_FIELDS.map((f) => `"${f}"`).join(', ')}`,
      });
    } else if (
      field === 'qps'
        ? typeof value !== 'number' || !Number.isFinite(value) || value < 0
        : !Number.isInteger(value) || (value as number) < 0
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${JSON.stringify(value)}: must be a non-negative ${field === 'qps' ? 'number' : 'integer'} (0: no limit)`,
      });
    }
  }
  const { qps, burst } = limits as TenantLimitOverrides;
  if (burst === 0 && qps !== 0)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.limits.burst',
      message: 'Invalid value: 0: must be at least 1 while qps limits the rate',
    });
  return causes;
}

/** Tenant names are tenant ids; a generateName prefix must leave room for the 5 random characters. */
export function validateTenantName(name: string, prefix: boolean): string[] {
  if (prefix)
    return /^[a-z0-9]?$/.test(name)
      ? []
      : ['a tenant id prefix must be at most 1 lowercase letter or digit, so that generated ids have 6'];
  return TENANT_ID.test(name)
    ? []
    : ["a tenant id must be exactly 6 lowercase letters or digits (regex used for validation is '[a-z0-9]{6}')"];
}

/**
 * kube's toleration rules (ValidateTolerations): an empty key only with Exists, which then means
 * every taint — with Equal it would tolerate every taint without a value, Karmada's not-ready and
 * unreachable among them, and the tenant would never move; no value with Exists; a time only for
 * NoExecute, the one effect that has one.
 */
function tolerationShapeCauses(field: string, toleration: Record<string, unknown>): Cause[] {
  const causes: Cause[] = [];
  const invalid = (at: string, value: unknown, message: string): Cause => ({
    reason: 'FieldValueInvalid',
    field: `${field}.${at}`,
    message: `Invalid value: ${JSON.stringify(value)}: ${message}`,
  });
  const key = toleration.key ?? '';
  if (key === '' && toleration.operator !== 'Exists')
    causes.push(
      invalid(
        'operator',
        toleration.operator ?? '',
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ),
    );
  if (toleration.operator === 'Exists' && (toleration.value ?? '') !== '')
    causes.push(invalid('operator', toleration.operator, "value must be empty when `operator` is 'Exists'"));
  const seconds = toleration.tolerationSeconds;
  if (seconds !== undefined && seconds !== null) {
    if (!Number.isInteger(seconds))
      causes.push(invalid('tolerationSeconds', seconds, 'must be a whole number of seconds'));
    else if (toleration.effect !== 'NoExecute')
      causes.push(
        invalid('effect', toleration.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
  }
  return causes;
}

export function validateTenant(tenant: ApiObject): Cause[] {
  const causes: Cause[] = [];
  const spec = tenant.spec ?? {};
  if (typeof spec !== 'object' || Array.isArray(spec)) {
    return [...causes, { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: must be an object' }];
  }
  if (spec.id !== undefined && (!Number.isInteger(spec.id) || spec.id < 0)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.id',
      message: `Invalid value: ${JSON.stringify(spec.id)}: must be a non-negative integer`,
    });
  }
  const names = spec.clusterAffinity?.clusterNames;
  if (names !== undefined && (!Array.isArray(names) || names.some((n: unknown) => typeof n !== 'string'))) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.clusterAffinity.clusterNames',
      message: 'Invalid value: must be a list of cluster names',
    });
  }
  for (const [i, toleration] of (Array.isArray(spec.clusterTolerations) ? spec.clusterTolerations : []).entries()) {
    const field = `spec.clusterTolerations[${i}]`;
    if (toleration.operator !== undefined && !TOLERATION_OPERATORS.includes(toleration.operator)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: `${field}.operator`,
        message: `Unsupported value: ${JSON.stringify(toleration.operator)}: supported values: "Equal", "Exists"`,
      });
    }
    causes.push(...tolerationShapeCauses(field, toleration));
    if (toleration.effect !== undefined && toleration.effect !== '' && !TAINT_EFFECTS.includes(toleration.effect)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: `${field}.effect`,
        message: `Unsupported value: ${JSON.stringify(toleration.effect)}: supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"`,
      });
    }
  }
  const purgeMode = spec.failover?.purgeMode;
  if (purgeMode !== undefined && !PURGE_MODES.includes(purgeMode)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.failover.purgeMode',
      message: `Unsupported value: ${JSON.stringify(purgeMode)}: supported values: "Directly", "Gracefully", "Never"`,
    });
  }
  causes.push(...validateLimits(spec.limits));
  return causes;
}

/**
 * The Tenant's strategy. New tenants start Pending with the finalizer that keeps them until their
 * upstream objects are gone; status is the controller's (the status subresource keeps clients off
 * it), and so are the certificate and key, written through the store, not this API: a client's
 * create or update never sets or drops them, and every answer shows the kubeconfig made from them
 * (`kubeconfigs`, known once the gateway listens) instead.
 */
export function tenantStrategy(kubeconfigs: () => TenantKubeconfigs | undefined): Strategy {
  return {
    prepareForCreate: (tenant) => {
      tenant.metadata.finalizers = [...new Set([...(tenant.metadata.finalizers ?? []), TENANT_FINALIZER])];
      tenant.status = { phase: 'Pending' };
      keepServerAnnotations(tenant, undefined);
    },
    prepareForUpdate: keepServerAnnotations,
    validateName: validateTenantName,
    // Reserved ids are refused at create only, so a tenant made before an id was reserved stays manageable.
    validate: (tenant, previous) => {
      const reserved = previous ? null : reservedTenantId(String(tenant.metadata.name ?? ''));
      return [
        ...(reserved
          ? [
              {
                reason: 'FieldValueInvalid' as const,
                field: 'metadata.name',
                message: `Invalid value: ${JSON.stringify(tenant.metadata.name)}: ${reserved}`,
              },
            ]
          : []),
        ...validateTenant(tenant),
        ...(previous ? finalizerRemovalCauses(tenant, previous) : []),
      ];
    },
    beginDeletion: (tenant) => {
      tenant.status = { ...(tenant.status ?? {}), phase: 'Terminating' };
    },
    decorate: (tenant) => {
      const annotations: Record<string, string> | undefined = tenant.metadata.annotations;
      if (annotations?.[CREDENTIALS_ANNOTATION] === undefined) return tenant;
      const { [CREDENTIALS_ANNOTATION]: _stored, ...shown } = annotations;
      const credentials = storedCredentials(annotations);
      const renderer = kubeconfigs();
      if (credentials && renderer)
        shown[KUBECONFIG_ANNOTATION] = renderer.annotation(String(tenant.metadata.name), credentials);
      return { ...tenant, metadata: { ...tenant.metadata, annotations: shown } };
    },
  };
}

/**
 * The certificate and key (and a kubeconfig stored by an earlier version, until the controller
 * moves it) stay as stored: what a client sends in their place, the kubeconfig it read included,
 * is not kept.
 */
function keepServerAnnotations(tenant: ApiObject, previous: ApiObject | undefined): void {
  const kept = { ...tenant.metadata.annotations };
  for (const key of [CREDENTIALS_ANNOTATION, KUBECONFIG_ANNOTATION]) {
    const stored = previous?.metadata.annotations?.[key];
    if (stored === undefined) delete kept[key];
    else kept[key] = stored;
  }
  if (Object.keys(kept).length) tenant.metadata.annotations = kept;
  else delete tenant.metadata.annotations;
}

/**
 * The finalizer goes only when the tenant's space is gone from every cluster it was on: taken off
 * by hand sooner, the Tenant would go and its id could be taken again while the old owner's
 * objects, grants and ServiceAccount tokens are still there.
 */
function finalizerRemovalCauses(tenant: ApiObject, previous: ApiObject): Cause[] {
  const had = (object: ApiObject) => (object.metadata.finalizers ?? []).includes(TENANT_FINALIZER);
  const pending = spaceClustersOf(tenant);
  if (!had(previous) || had(tenant) || !pending.length) return [];
  return [
    forbidden(
      'metadata.finalizers',
      `${TENANT_FINALIZER} is removed by the tenant controller once the tenant's objects are gone from every cluster it was on; still to be purged: ${pending.join(', ')} (status.spaceClusters)`,
    ),
  ];
}
