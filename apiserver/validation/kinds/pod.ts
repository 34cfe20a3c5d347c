/**
 * kube-apiserver 1.32's validation of a Pod's ephemeral containers (core ValidatePodCreate,
 * ValidatePodUpdate and ValidatePodEphemeralContainersUpdate): none on create; through the
 * `ephemeralcontainers` subresource only additions, each a valid container whose name no other
 * container of the pod has, targeting an app or init container, and without the fields an
 * ephemeral container may not set; an update of the pod itself may not change them. The rest of a
 * pod is not validated here (docs/devcluster.md).
 */
import { isDeepStrictEqual } from 'node:util';
import { goQuote } from '../../go-quote.js';
import { isObject } from '../../json.js';
import type { ApiObject } from '../../registry/object-store.js';
import { duplicate, forbidden, notFound, type Cause } from '../cause.js';
import { validateContainer, validateVolumes } from './pod-spec.js';

type Json = Record<string, any>;

const FIELD = 'spec.ephemeralContainers';
/**
 * kube's allow-list turned round: the container fields an ephemeral container may not set, in Go's
 * field order, each with how Go's zero test sees it: a pointer is set when present, even empty.
 */
const NOT_ALLOWED: readonly [field: string, set: (value: unknown) => boolean][] = [
  ['ports', isSet],
  ['resources', isSet],
  ['resizePolicy', isSet],
  ['restartPolicy', isPresent],
  ['livenessProbe', isPresent],
  ['readinessProbe', isPresent],
  ['startupProbe', isPresent],
  ['lifecycle', isPresent],
];
/** Pods the kubelet runs from a file (static pods) carry this annotation; they take no ephemeral containers. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const UPDATABLE_POD_FIELDS =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

export function validatePod(pod: ApiObject, previous?: ApiObject, subresource = ''): Cause[] {
  const ephemeral = listOf(pod.spec?.ephemeralContainers);
  if (previous === undefined) return ephemeral.length ? [forbidden(FIELD, 'cannot be set on create')] : [];
  if (subresource === 'ephemeralcontainers') return validateEphemeralContainersUpdate(pod, previous);
  if (subresource === '' && !isDeepStrictEqual(ephemeral, listOf(previous.spec?.ephemeralContainers)))
    return [forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_FIELDS}`)];
  return [];
}

function validateEphemeralContainersUpdate(pod: ApiObject, previous: ApiObject): Cause[] {
  const spec: Json = isObject(pod.spec) ? pod.spec : {};
  const causes = validateEphemeralContainers(spec);
  if (isObject(previous.metadata.annotations) && MIRROR_POD_ANNOTATION in previous.metadata.annotations)
    return [forbidden('', 'static pods do not support ephemeral containers')];
  const now = new Map(listOf(spec.ephemeralContainers).map((c) => [c.name, c]));
  for (const old of listOf(previous.spec?.ephemeralContainers)) {
    const current = now.get(old.name);
    // kube follows each message with the difference (Go's cmp.Diff), which is not reproduced here.
    if (current === undefined)
      causes.push(forbidden(FIELD, `existing ephemeral containers ${goQuote(old.name)} may not be removed\n`));
    else if (!isDeepStrictEqual(old, current))
      causes.push(
        forbidden(`${FIELD}[${old.name}]`, `existing ephemeral containers ${goQuote(old.name)} may not be changed\n`),
      );
  }
  return causes;
}

/** Each ephemeral container as a container, plus what only ephemeral containers must keep to. */
function validateEphemeralContainers(spec: Json): Cause[] {
  const causes: Cause[] = [];
  const { volumeNames } = validateVolumes(spec.volumes, 'spec.volumes');
  const others = [...listOf(spec.containers), ...listOf(spec.initContainers)].map((c) => c.name as unknown);
  const names = new Set(others);
  listOf(spec.ephemeralContainers).forEach((container, i) => {
    const path = `${FIELD}[${i}]`;
    causes.push(...validateContainer(container, volumeNames, path));
    if (names.has(container.name)) causes.push(duplicate(`${path}.name`, container.name));
    else names.add(container.name);
    const target = container.targetContainerName;
    if (typeof target === 'string' && target !== '' && !others.includes(target))
      causes.push(notFound(`${path}.targetContainerName`, target));
    for (const [field, set] of NOT_ALLOWED)
      if (set(container[field])) causes.push(forbidden(`${path}.${field}`, 'cannot be set for an Ephemeral Container'));
    listOf(container.volumeMounts).forEach((mount, j) => {
      for (const field of ['subPath', 'subPathExpr'])
        if (isSet(mount[field]))
          causes.push(forbidden(`${path}.volumeMounts[${j}].${field}`, 'cannot be set for an Ephemeral Container'));
    });
  });
  return causes;
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? item : {})) : [];
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Set as Go's allow-list sees a value field: not the zero value (an empty `resources` is unset). */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false || value === 0) return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isObject(value) || Object.values(value).some(isSet);
}
