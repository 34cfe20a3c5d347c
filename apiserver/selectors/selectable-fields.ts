/**
 * Which field labels kube-apiserver 1.32 accepts in a fieldSelector for each resource, and what
 * an object's values for them are. Acceptance is each kind's field-label conversion function
 * (`AddFieldLabelConversionFunc`; `runtime.DefaultMetaV1FieldSelectorConversion` for kinds with
 * none; the CRD handler's converter for custom resources), and values are the registry's
 * `GetAttrs`/`ToSelectableFields`. Where a conversion renames a label (pods' `spec.host`,
 * events.k8s.io's `regarding.*`), the value is filed under the name the request uses, so a parsed
 * selector matches `selectableFields` as it is.
 */
import { BUILTIN_API_GROUPS } from '../resources/builtin-groups.js';
import type { FieldSelector } from './field-selector.js';
import { goQuote } from '../go-quote.js';
import { SelectorParseError } from './label-selector.js';

/** Reads one field's value from an object as the resource's API version serves it. */
type FieldReader = (object: Record<string, any>) => string;

interface FieldLabelRules {
  readonly fields: Readonly<Record<string, FieldReader>>;
  /** The conversion function's error for a label it does not accept. */
  readonly refusal: (label: string) => string;
}

/** Field labels the resource supports; `namespaced` decides metadata.namespace. */
export function supportedFieldLabels(group: string, resource: string, namespaced: boolean): readonly string[] {
  return Object.keys(rulesFor(group, resource, namespaced).fields);
}

/** The field values of `object` for that resource (strings, as kube formats them: booleans "true"/"false", missing values ""). */
export function selectableFields(
  group: string,
  resource: string,
  namespaced: boolean,
  object: Record<string, any>,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [label, read] of Object.entries(rulesFor(group, resource, namespaced).fields))
    values[label] = read(object);
  return values;
}

/**
 * Throws SelectorParseError for the first label of the selector the resource does not support
 * (kube returns that as 400 BadRequest), worded as that kind's conversion function words it:
 * `field label not supported: <label>` for custom resources and most kinds with a conversion of
 * their own.
 */
export function checkFieldSelectorSupported(
  group: string,
  resource: string,
  namespaced: boolean,
  selector: FieldSelector,
): void {
  const rules = rulesFor(group, resource, namespaced);
  const unsupported = selector.requirements.find(({ field }) => !Object.hasOwn(rules.fields, field));
  if (unsupported) throw new SelectorParseError(rules.refusal(unsupported.field));
}

function rulesFor(group: string, resource: string, namespaced: boolean): FieldLabelRules {
  const rules = kindRules[`${group}/${resource}`];
  if (rules) return rules;
  if (builtInGroups.has(group)) return defaultConversionRules;
  return namespaced ? namespacedCustomRules : clusterCustomRules;
}

// ---- Readers ----

function valueAt(object: Record<string, any>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      object,
    );
}

/** A string field; absent is Go's zero value "". */
function text(path: string): FieldReader {
  return (object) => {
    const value = valueAt(object, path);
    return typeof value === 'string' ? value : '';
  };
}

/** A bool field printed with strconv.FormatBool; absent is false. */
function flag(path: string): FieldReader {
  return (object) => String(valueAt(object, path) === true);
}

/** An int32 field printed with strconv.Itoa; absent is 0. */
function count(path: string): FieldReader {
  return (object) => {
    const value = valueAt(object, path);
    return typeof value === 'number' && Number.isInteger(value) ? String(value) : '0';
  };
}

/** The pod's primary IP, which kube takes from status.podIPs[0]; v1 conversion fills that from status.podIP when only it is set. */
const primaryPodIP: FieldReader = (object) => {
  const ips = valueAt(object, 'status.podIPs');
  const first: unknown = Array.isArray(ips) ? ips[0]?.ip : undefined;
  return typeof first === 'string' ? first : text('status.podIP')(object);
};

/** Events name their reporter in `source.component`, falling back to the reporting controller. */
function eventSource(componentPath: string, controllerPath: string): FieldReader {
  return (object) => text(componentPath)(object) || text(controllerPath)(object);
}

// ---- Rules ----

const notSupported = (label: string): string => `field label not supported: ${label}`;

const name = { 'metadata.name': text('metadata.name') };
const objectMeta = { ...name, 'metadata.namespace': text('metadata.namespace') };

const coreEventFields = {
  ...objectMeta,
  'involvedObject.kind': text('involvedObject.kind'),
  'involvedObject.namespace': text('involvedObject.namespace'),
  'involvedObject.name': text('involvedObject.name'),
  'involvedObject.uid': text('involvedObject.uid'),
  'involvedObject.apiVersion': text('involvedObject.apiVersion'),
  'involvedObject.resourceVersion': text('involvedObject.resourceVersion'),
  'involvedObject.fieldPath': text('involvedObject.fieldPath'),
  reason: text('reason'),
  reportingComponent: text('reportingComponent'),
  source: eventSource('source.component', 'reportingComponent'),
  type: text('type'),
};

/** events.k8s.io/v1 names the same selectable fields after its own schema. */
const eventsV1Fields = {
  ...objectMeta,
  'regarding.kind': text('regarding.kind'),
  'regarding.namespace': text('regarding.namespace'),
  'regarding.name': text('regarding.name'),
  'regarding.uid': text('regarding.uid'),
  'regarding.apiVersion': text('regarding.apiVersion'),
  'regarding.resourceVersion': text('regarding.resourceVersion'),
  'regarding.fieldPath': text('regarding.fieldPath'),
  reason: text('reason'),
  reportingController: text('reportingController'),
  source: eventSource('deprecatedSource.component', 'reportingController'),
  type: text('type'),
};

const kindRules: Record<string, FieldLabelRules> = {
  '/pods': {
    fields: {
      ...objectMeta,
      'spec.nodeName': text('spec.nodeName'),
      // What old v1 clients call spec.nodeName; the conversion renames it.
      'spec.host': text('spec.nodeName'),
      'spec.restartPolicy': text('spec.restartPolicy'),
      'spec.schedulerName': text('spec.schedulerName'),
      'spec.serviceAccountName': text('spec.serviceAccountName'),
      'spec.hostNetwork': flag('spec.hostNetwork'),
      'status.phase': text('status.phase'),
      'status.podIP': primaryPodIP,
      // Accepted by the conversion but missing from the pod's field set, so kube compares it with "".
      'status.podIPs': () => '',
      'status.nominatedNodeName': text('status.nominatedNodeName'),
    },
    refusal: notSupported,
  },
  '/nodes': { fields: { ...name, 'spec.unschedulable': flag('spec.unschedulable') }, refusal: notSupported },
  '/replicationcontrollers': {
    fields: { ...objectMeta, 'status.replicas': count('status.replicas') },
    refusal: notSupported,
  },
  '/events': { fields: coreEventFields, refusal: notSupported },
  '/namespaces': { fields: { 'status.phase': text('status.phase'), ...name }, refusal: notSupported },
  '/secrets': { fields: { type: text('type'), ...objectMeta }, refusal: notSupported },
  '/services': {
    fields: { ...objectMeta, 'spec.clusterIP': text('spec.clusterIP'), 'spec.type': text('spec.type') },
    refusal: notSupported,
  },
  'batch/jobs': {
    fields: { ...objectMeta, 'status.successful': count('status.succeeded') },
    refusal: (label) => `field label ${goQuote(label)} not supported for batchv1.Job`,
  },
  'certificates.k8s.io/certificatesigningrequests': {
    fields: { ...name, 'spec.signerName': text('spec.signerName') },
    refusal: notSupported,
  },
  'events.k8s.io/events': { fields: eventsV1Fields, refusal: notSupported },
  'resource.k8s.io/resourceslices': {
    fields: { ...name, 'spec.nodeName': text('spec.nodeName'), 'spec.driver': text('spec.driver') },
    refusal: (label) => `field label not supported for resource.k8s.io/v1beta1, Kind=ResourceSlice: ${label}`,
  },
};

/**
 * Built-in kinds without a conversion function of their own, replicasets among them: their
 * registries may list more fields, but the default conversion lets only these two through,
 * metadata.namespace even on cluster-scoped kinds (where it is always "").
 */
const defaultConversionRules: FieldLabelRules = {
  fields: objectMeta,
  refusal: (label) => `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
};

const namespacedCustomRules: FieldLabelRules = { fields: objectMeta, refusal: notSupported };
const clusterCustomRules: FieldLabelRules = { fields: name, refusal: notSupported };

const builtInGroups = BUILTIN_API_GROUPS;
