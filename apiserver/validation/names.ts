/**
 * Object-name and ObjectMeta validation as kube-apiserver 1.32 does it (apimachinery's
 * util/validation and api/validation): the same rules, and the same wording, because kubectl
 * prints the cause messages verbatim.
 */
import { isObject } from '../json.js';
import { forbidden, invalid, required, tooLong, type Cause } from './cause.js';

/** kube's ValidateNameFunc: messages for a name, or for a generateName prefix when `prefix`. */
export type NameValidator = (name: string, prefix: boolean) => string[];

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL = whole(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = whole(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = whole(DNS1035_LABEL_FMT);
const QUALIFIED_NAME = whole(QUALIFIED_NAME_FMT);
const LABEL_VALUE = whole(LABEL_VALUE_FMT);

const LABEL_MAX = 63;
const SUBDOMAIN_MAX = 253;
/** The cronjob controller appends `-<11 chars>` to make Job names, which are DNS-1035 sized. */
const CRONJOB_NAME_MAX = 52;
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function whole(fmt: string): RegExp {
  return new RegExp(`^${fmt}$`);
}

/** Go measures strings in bytes, and so do kube's length limits. */
function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

export const maxLenError = (length: number) => `must be no more than ${length} characters`;

/** apimachinery's RegexError, including its double space before " or". */
export function regexError(message: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${fmt}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_MAX) errs.push(maxLenError(LABEL_MAX));
  if (!DNS1123_LABEL.test(value)) errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > SUBDOMAIN_MAX) errs.push(maxLenError(SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_MAX) errs.push(maxLenError(LABEL_MAX));
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** Label keys, annotation keys and finalizers: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((msg) => `prefix part ${msg}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > LABEL_MAX) errs.push(`name part ${maxLenError(LABEL_MAX)}`);
  if (!QUALIFIED_NAME.test(name))
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_MAX) errs.push(maxLenError(LABEL_MAX));
  if (!LABEL_VALUE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * A generateName prefix may end in '-' (a random suffix follows). apimachinery replaces the last
 * two characters, not one, with "a" before checking; kept as is so the same prefixes pass.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

function prefixTolerant(check: (value: string) => string[]): NameValidator {
  return (name, prefix) => check(prefix ? maskTrailingDash(name) : name);
}

export const nameIsDNSSubdomain: NameValidator = prefixTolerant(isDNS1123Subdomain);
export const nameIsDNSLabel: NameValidator = prefixTolerant(isDNS1123Label);
export const nameIsDNS1035Label: NameValidator = prefixTolerant(isDNS1035Label);

/** Names that only need to be safe as one URL path segment (RBAC objects). */
export const validatePathSegmentName: NameValidator = (name, prefix) => {
  if (!prefix) {
    for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  }
  return ['/', '%'].filter((illegal) => name.includes(illegal)).map((illegal) => `may not contain '${illegal}'`);
};

const cronJobName: NameValidator = (name, prefix) => {
  const errs = nameIsDNSSubdomain(name, prefix);
  if (!prefix && byteLength(name) > CRONJOB_NAME_MAX) errs.push(maxLenError(CRONJOB_NAME_MAX));
  return errs;
};

/** Resources whose names are not plain DNS subdomains, by `group/resource`. */
const NAME_VALIDATORS: Readonly<Record<string, NameValidator>> = {
  '/namespaces': nameIsDNSLabel,
  '/services': nameIsDNS1035Label,
  // A StatefulSet's name becomes its pods' hostnames, which are DNS labels.
  'apps/statefulsets': nameIsDNSLabel,
  'batch/cronjobs': cronJobName,
  'rbac.authorization.k8s.io/roles': validatePathSegmentName,
  'rbac.authorization.k8s.io/rolebindings': validatePathSegmentName,
  'rbac.authorization.k8s.io/clusterroles': validatePathSegmentName,
  'rbac.authorization.k8s.io/clusterrolebindings': validatePathSegmentName,
};

/** The name rule kube applies to objects of a resource; custom resources get the default, a DNS subdomain. */
export function nameValidatorFor(group: string, resource: string): NameValidator {
  return NAME_VALIDATORS[`${group}/${resource}`] ?? nameIsDNSSubdomain;
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameValidator: NameValidator;
  /** On create the server fills an empty name from generateName, so only then may name be empty. */
  generateNameAllowed: boolean;
}

/**
 * apimachinery's ValidateObjectMeta for the fields a client sets: name, generateName,
 * namespace, labels and annotations. Field paths and messages are kube's.
 */
export function validateObjectMeta(meta: unknown, options: ObjectMetaOptions): Cause[] {
  const m = isObject(meta) ? meta : {};
  const causes: Cause[] = [];
  const name = typeof m.name === 'string' ? m.name : '';
  const generateName = typeof m.generateName === 'string' ? m.generateName : '';

  if (generateName) {
    for (const msg of options.nameValidator(generateName, true))
      causes.push(invalid('metadata.generateName', generateName, msg));
  }
  if (name) {
    for (const msg of options.nameValidator(name, false)) causes.push(invalid('metadata.name', name, msg));
  } else if (!(options.generateNameAllowed && generateName)) {
    causes.push(required('metadata.name', 'name or generateName is required'));
  }

  const namespace = typeof m.namespace === 'string' ? m.namespace : '';
  if (options.namespaced) {
    if (!namespace) causes.push(required('metadata.namespace'));
    else for (const msg of nameIsDNSLabel(namespace, false)) causes.push(invalid('metadata.namespace', namespace, msg));
  } else if (namespace) {
    causes.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }

  // Values that are not strings fail kube's decoding (400) before validation; that is not checked here.
  if (isObject(m.labels)) {
    for (const [key, value] of Object.entries(m.labels)) {
      for (const msg of isQualifiedName(key)) causes.push(invalid('metadata.labels', key, msg));
      if (typeof value === 'string')
        for (const msg of isValidLabelValue(value)) causes.push(invalid('metadata.labels', value, msg));
    }
  }

  if (isObject(m.annotations)) {
    for (const key of Object.keys(m.annotations)) {
      // Annotation keys are qualified names in which case does not matter.
      for (const msg of isQualifiedName(key.toLowerCase())) causes.push(invalid('metadata.annotations', key, msg));
    }
    if (annotationsSize(m.annotations) > TOTAL_ANNOTATION_SIZE_LIMIT)
      causes.push(tooLong('metadata.annotations', TOTAL_ANNOTATION_SIZE_LIMIT));
  }
  return causes;
}

/** What counts towards the annotations' size limit: the bytes of every key and value. */
export function annotationsSize(annotations: Record<string, unknown>): number {
  return Object.entries(annotations).reduce(
    (total, [key, value]) => total + byteLength(key) + (typeof value === 'string' ? byteLength(value) : 0),
    0,
  );
}
