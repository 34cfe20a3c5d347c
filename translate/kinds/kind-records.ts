/**
 * The one table of kinds, keyed `group/Kind` (group in the tenant's view): everything the gateway
 * knows about a kind in one record — its conversion, the protobuf fields that conversion reads
 * (per version), and the isolation invariants its stored objects must keep. Metadata is converted
 * and checked for every kind (metadata.ts); a kind is listed here only for fields of its own.
 * Adding a kind is one file and one line.
 */
import { groupOfApiVersion, type TenantContext } from '../context.js';
import { METADATA, PROTOBUF_FIELDS as FIELDS, type MessageFields } from '../protobuf-fields.js';
import { crdConvertor, crdInvariants } from './crd.js';
import { endpointSliceConvertor, endpointsConvertor } from './endpoints.js';
import { coreEventConvertor, eventsEventConvertor } from './event.js';
import { ingressClassConvertor, ingressClassInvariants, ingressConvertor, ingressInvariants } from './ingress.js';
import type { Invariant } from './invariants.js';
import { metadataInvariants } from './metadata.js';
import { namespaceConvertor, namespaceInvariants } from './namespace.js';
import {
  controllerRevisionConvertor,
  controllerRevisionInvariants,
  cronJobConvertor,
  cronJobInvariants,
  podConvertor,
  podInvariants,
  podTemplateConvertor,
  podTemplateInvariants,
  statefulSetConvertor,
  statefulSetInvariants,
  workloadConvertor,
  workloadInvariants,
} from './pod-spec.js';
import {
  clusterRoleBindingConvertor,
  clusterRoleBindingInvariants,
  clusterRoleConvertor,
  clusterRoleInvariants,
  roleBindingConvertor,
  roleBindingInvariants,
  roleConvertor,
  roleInvariants,
} from './rbac.js';
import {
  selfSubjectAccessReviewConvertor,
  selfSubjectReviewConvertor,
  selfSubjectRulesReviewConvertor,
  subjectAccessReviewConvertor,
  tokenReviewConvertor,
} from './reviews.js';
import {
  persistentVolumeClaimConvertor,
  persistentVolumeClaimInvariants,
  persistentVolumeConvertor,
  persistentVolumeInvariants,
  storageClassConvertor,
  storageClassInvariants,
} from './storage.js';
import { rootCaConvertor } from './pod-api.js';
import { tokenRequestConvertor, tokenRequestInvariants } from './token-request.js';
import type { Convertor } from './convertor.js';
import { webhookConfigurationConvertor, webhookConfigurationInvariants } from './webhook.js';

export interface KindRecord {
  /** The kind's own fields, both ways. */
  convertor: Convertor;
  /** The fields `convertor` reads, by version (protobuf-fields.ts); a version not listed cannot be sent as protobuf. */
  protobuf: Readonly<Record<string, MessageFields>>;
  /**
   * What its objects must keep, as the upstream will store them, to stay inside the tenant
   * (invariants.ts). Events, Endpoints and reviews have none: nothing acts across tenants on
   * their references, or nothing is stored.
   */
  invariants: readonly Invariant[];
}

const v1 = (fields: MessageFields) => ({ v1: fields });

export const KINDS: ReadonlyMap<string, KindRecord> = new Map([
  ['/Namespace', { convertor: namespaceConvertor, protobuf: v1(FIELDS.namespace), invariants: namespaceInvariants }],
  ['/Event', { convertor: coreEventConvertor, protobuf: v1(FIELDS.coreEvent), invariants: [] }],
  ['events.k8s.io/Event', { convertor: eventsEventConvertor, protobuf: v1(FIELDS.eventsEvent), invariants: [] }],
  ['/Endpoints', { convertor: endpointsConvertor, protobuf: v1(FIELDS.endpoints), invariants: [] }],
  // Its own fields are read down only (translate/list-text.ts, DOWN_ONLY): a body goes up with its metadata converted.
  ['/ConfigMap', { convertor: rootCaConvertor, protobuf: v1({}), invariants: [] }],
  [
    'discovery.k8s.io/EndpointSlice',
    { convertor: endpointSliceConvertor, protobuf: v1(FIELDS.endpointSlice), invariants: [] },
  ],
  [
    '/PersistentVolume',
    {
      convertor: persistentVolumeConvertor,
      protobuf: v1(FIELDS.persistentVolume),
      invariants: persistentVolumeInvariants,
    },
  ],
  [
    '/PersistentVolumeClaim',
    {
      convertor: persistentVolumeClaimConvertor,
      protobuf: v1(FIELDS.persistentVolumeClaim),
      invariants: persistentVolumeClaimInvariants,
    },
  ],
  [
    'storage.k8s.io/StorageClass',
    { convertor: storageClassConvertor, protobuf: v1(FIELDS.storageClass), invariants: storageClassInvariants },
  ],
  ['/Pod', { convertor: podConvertor, protobuf: v1(FIELDS.pod), invariants: podInvariants }],
  [
    '/PodTemplate',
    { convertor: podTemplateConvertor, protobuf: v1(FIELDS.podTemplate), invariants: podTemplateInvariants },
  ],
  [
    '/ReplicationController',
    { convertor: workloadConvertor, protobuf: v1(FIELDS.replicationController), invariants: workloadInvariants },
  ],
  [
    'apps/Deployment',
    { convertor: workloadConvertor, protobuf: v1(FIELDS.deployment), invariants: workloadInvariants },
  ],
  [
    'apps/ReplicaSet',
    { convertor: workloadConvertor, protobuf: v1(FIELDS.replicaSet), invariants: workloadInvariants },
  ],
  ['apps/DaemonSet', { convertor: workloadConvertor, protobuf: v1(FIELDS.daemonSet), invariants: workloadInvariants }],
  [
    'apps/StatefulSet',
    { convertor: statefulSetConvertor, protobuf: v1(FIELDS.statefulSet), invariants: statefulSetInvariants },
  ],
  [
    'apps/ControllerRevision',
    // `data` is raw bytes in protobuf, which cannot be rewritten field by field: JSON only.
    { convertor: controllerRevisionConvertor, protobuf: {}, invariants: controllerRevisionInvariants },
  ],
  ['batch/Job', { convertor: workloadConvertor, protobuf: v1(FIELDS.job), invariants: workloadInvariants }],
  ['batch/CronJob', { convertor: cronJobConvertor, protobuf: v1(FIELDS.cronJob), invariants: cronJobInvariants }],
  [
    'networking.k8s.io/Ingress',
    { convertor: ingressConvertor, protobuf: v1(FIELDS.ingress), invariants: ingressInvariants },
  ],
  [
    'networking.k8s.io/IngressClass',
    { convertor: ingressClassConvertor, protobuf: v1(FIELDS.ingressClass), invariants: ingressClassInvariants },
  ],
  [
    'rbac.authorization.k8s.io/Role',
    { convertor: roleConvertor, protobuf: v1(FIELDS.role), invariants: roleInvariants },
  ],
  [
    'rbac.authorization.k8s.io/ClusterRole',
    { convertor: clusterRoleConvertor, protobuf: v1(FIELDS.clusterRole), invariants: clusterRoleInvariants },
  ],
  [
    'rbac.authorization.k8s.io/RoleBinding',
    { convertor: roleBindingConvertor, protobuf: v1(FIELDS.roleBinding), invariants: roleBindingInvariants },
  ],
  [
    'rbac.authorization.k8s.io/ClusterRoleBinding',
    {
      convertor: clusterRoleBindingConvertor,
      protobuf: v1(FIELDS.clusterRoleBinding),
      invariants: clusterRoleBindingInvariants,
    },
  ],
  [
    'apiextensions.k8s.io/CustomResourceDefinition',
    { convertor: crdConvertor, protobuf: v1(FIELDS.crd), invariants: crdInvariants },
  ],
  [
    'admissionregistration.k8s.io/MutatingWebhookConfiguration',
    {
      convertor: webhookConfigurationConvertor,
      protobuf: v1(FIELDS.mutatingWebhookConfiguration),
      invariants: webhookConfigurationInvariants,
    },
  ],
  [
    'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
    {
      convertor: webhookConfigurationConvertor,
      protobuf: v1(FIELDS.validatingWebhookConfiguration),
      invariants: webhookConfigurationInvariants,
    },
  ],
  [
    'authentication.k8s.io/TokenRequest',
    { convertor: tokenRequestConvertor, protobuf: {}, invariants: tokenRequestInvariants },
  ],
  ['authentication.k8s.io/TokenReview', { convertor: tokenReviewConvertor, protobuf: {}, invariants: [] }],
  [
    'authentication.k8s.io/SelfSubjectReview',
    { convertor: selfSubjectReviewConvertor, protobuf: v1(FIELDS.selfSubjectReview), invariants: [] },
  ],
  [
    'authorization.k8s.io/SubjectAccessReview',
    { convertor: subjectAccessReviewConvertor, protobuf: v1(FIELDS.subjectAccessReview), invariants: [] },
  ],
  [
    'authorization.k8s.io/LocalSubjectAccessReview',
    { convertor: subjectAccessReviewConvertor, protobuf: v1(FIELDS.localSubjectAccessReview), invariants: [] },
  ],
  [
    'authorization.k8s.io/SelfSubjectAccessReview',
    { convertor: selfSubjectAccessReviewConvertor, protobuf: v1(FIELDS.selfSubjectAccessReview), invariants: [] },
  ],
  [
    'authorization.k8s.io/SelfSubjectRulesReview',
    { convertor: selfSubjectRulesReviewConvertor, protobuf: v1(FIELDS.selfSubjectRulesReview), invariants: [] },
  ],
]);

export function kindRecord(group: string, kind: string): KindRecord | undefined {
  return KINDS.get(`${group}/${kind}`);
}

export function convertorFor(group: string, kind: string): Convertor | undefined {
  return kindRecord(group, kind)?.convertor;
}

/**
 * The fields of a top-level object of this type (tenant's view), metadata included; undefined when
 * the kind has a convertor but no table for this version, so its body cannot be translated field by field.
 */
export function protobufFieldsOf(apiVersion: string, kind: string): MessageFields | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const record = kindRecord(groupOfApiVersion(apiVersion), kind);
  if (!record) return METADATA;
  const own = record.protobuf[apiVersion.slice(slash + 1)];
  return own ? { ...own, ...METADATA } : undefined;
}

/**
 * Every invariant an object of this type must keep as stored, metadata's included; none for
 * shared kinds and kinds whose scope the cluster does not know (their requests are refused).
 */
export function invariantsOf(ctx: TenantContext, group: string, kind: string): readonly Invariant[] {
  const namespaced = ctx.kinds.kindIsNamespaced(group, kind);
  const own = kindRecord(group, kind)?.invariants ?? [];
  return namespaced === undefined ? own : [...metadataInvariants(namespaced, { group, kind }), ...own];
}
