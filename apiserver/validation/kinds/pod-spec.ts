/**
 * kube-apiserver 1.32's validation of a pod template (core ValidatePodTemplateSpec and the parts
 * of ValidatePodSpec a manifest most often gets wrong): containers and their names, images,
 * ports, probes and volume mounts; volumes; pod affinity terms; the restart and DNS policies.
 * What it leaves out (resources, security contexts, most volume sources, topology spread, …) is
 * accepted, as before. Paths and messages are kube's; values the devcluster defaults (probes,
 * pull policies, protocols) are checked after defaulting, as kube does.
 */
import { isObject } from '../../json.js';
import { duplicate, forbidden, invalid, notFound, notSupported, required, type Cause } from '../cause.js';
import { isDNS1123Label, isQualifiedName } from '../names.js';
import {
  isValidPortName,
  isValidPortNum,
  validateLabelSelector,
  validateLabels,
  validateNonnegative,
  validatePortNumOrName,
} from '../values.js';

type Json = Record<string, any>;

const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];
const DNS_POLICIES = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['FallbackToLogsOnError', 'File'];
const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const HTTP_SCHEMES = ['HTTP', 'HTTPS'];
const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];
const FILE_MODE_MESSAGE = 'must be a number between 0 and 0777 (octal), both inclusive';

/** ValidatePodTemplateSpec at `field` (`spec.template`): its labels, then its pod spec. */
export function validatePodTemplateSpec(template: unknown, field: string): Cause[] {
  const t = isObject(template) ? template : {};
  // kube reports the template's labels at `<template>.labels`, not under metadata.
  return [
    ...validateLabels(isObject(t.metadata) ? t.metadata.labels : undefined, `${field}.labels`),
    ...validatePodSpec(t.spec, `${field}.spec`),
  ];
}

export function validatePodSpec(spec: unknown, field: string): Cause[] {
  const s: Json = isObject(spec) ? spec : {};
  const { causes, volumeNames } = validateVolumes(s.volumes, `${field}.volumes`);
  causes.push(...validateContainers(s.containers, volumeNames, `${field}.containers`));
  causes.push(...validateInitContainers(s.initContainers, s.containers, volumeNames, `${field}.initContainers`));
  if (s.restartPolicy === undefined || s.restartPolicy === '') causes.push(required(`${field}.restartPolicy`));
  else if (!RESTART_POLICIES.includes(s.restartPolicy))
    causes.push(notSupported(`${field}.restartPolicy`, s.restartPolicy, RESTART_POLICIES));
  if (s.dnsPolicy !== undefined && !DNS_POLICIES.includes(s.dnsPolicy))
    causes.push(notSupported(`${field}.dnsPolicy`, s.dnsPolicy, DNS_POLICIES));
  causes.push(...validateNonnegative(s.activeDeadlineSeconds, `${field}.activeDeadlineSeconds`));
  if (isObject(s.affinity)) causes.push(...validateAffinity(s.affinity, `${field}.affinity`));
  return causes;
}

/** Volumes with a name and one source; only those without a fault can be mounted (kube's map of valid volumes). */
export function validateVolumes(volumes: unknown, field: string): { causes: Cause[]; volumeNames: Set<string> } {
  const causes: Cause[] = [];
  const volumeNames = new Set<string>();
  (Array.isArray(volumes) ? volumes : []).forEach((volume: unknown, i) => {
    const path = `${field}[${i}]`;
    const v: Json = isObject(volume) ? volume : {};
    const name = typeof v.name === 'string' ? v.name : '';
    const own = [...validateVolumeSource(v, path)];
    if (!name) own.push(required(`${path}.name`));
    else own.push(...isDNS1123Label(name).map((msg) => invalid(`${path}.name`, name, msg)));
    if (volumeNames.has(name)) own.push(duplicate(`${path}.name`, name));
    if (own.length === 0) volumeNames.add(name);
    causes.push(...own);
  });
  return { causes, volumeNames };
}

function validateVolumeSource(volume: Json, field: string): Cause[] {
  const sources = Object.keys(volume).filter((key) => key !== 'name');
  if (sources.length === 0) return [required(field, 'must specify a volume type')];
  const causes = sources
    .slice(1)
    .map((source) => forbidden(`${field}.${source}`, 'may not specify more than 1 volume type'));
  for (const [source, nameField] of [
    ['secret', 'secretName'],
    ['configMap', 'name'],
    ['persistentVolumeClaim', 'claimName'],
  ] as const) {
    const s = volume[source];
    if (!isObject(s)) continue;
    if (!s[nameField]) causes.push(required(`${field}.${source}.${nameField}`));
    if (typeof s.defaultMode === 'number' && (s.defaultMode < 0 || s.defaultMode > 0o777))
      causes.push(invalid(`${field}.${source}.defaultMode`, s.defaultMode, FILE_MODE_MESSAGE));
  }
  return causes;
}

function validateContainers(containers: unknown, volumeNames: Set<string>, field: string): Cause[] {
  const list: Json[] = Array.isArray(containers) ? containers.map((c) => (isObject(c) ? c : {})) : [];
  if (list.length === 0) return [required(field)];
  const causes: Cause[] = [];
  const names = new Set<string>();
  list.forEach((container, i) => {
    const path = `${field}[${i}]`;
    causes.push(...validateContainer(container, volumeNames, path));
    if (names.has(container.name)) causes.push(duplicate(`${path}.name`, container.name));
    else names.add(container.name);
    causes.push(...validateProbe(container.livenessProbe, `${path}.livenessProbe`));
    causes.push(...validateProbe(container.readinessProbe, `${path}.readinessProbe`));
    causes.push(...validateProbe(container.startupProbe, `${path}.startupProbe`));
    for (const probe of ['livenessProbe', 'startupProbe'])
      if (isObject(container[probe]) && container[probe].successThreshold !== 1)
        causes.push(invalid(`${path}.${probe}.successThreshold`, container[probe].successThreshold ?? 0, 'must be 1'));
    if (isObject(container.readinessProbe) && container.readinessProbe.terminationGracePeriodSeconds != null)
      causes.push(
        invalid(
          `${path}.readinessProbe.terminationGracePeriodSeconds`,
          container.readinessProbe.terminationGracePeriodSeconds,
          'must not be set for readinessProbes',
        ),
      );
    if (isObject(container.lifecycle))
      for (const hook of ['postStart', 'preStop'])
        if (isObject(container.lifecycle[hook]))
          causes.push(...validateHandler(container.lifecycle[hook], LIFECYCLE_HANDLERS, `${path}.lifecycle.${hook}`));
  });
  return causes;
}

function validateInitContainers(
  containers: unknown,
  regular: unknown,
  volumeNames: Set<string>,
  field: string,
): Cause[] {
  if (!Array.isArray(containers) || containers.length === 0) return [];
  const causes: Cause[] = [];
  const names = new Set<string>(
    (Array.isArray(regular) ? regular : []).map((c: unknown) => (isObject(c) ? String(c.name ?? '') : '')),
  );
  containers.forEach((container: unknown, i) => {
    const path = `${field}[${i}]`;
    const c: Json = isObject(container) ? container : {};
    causes.push(...validateContainer(c, volumeNames, path));
    if (names.has(c.name)) causes.push(duplicate(`${path}.name`, c.name));
    else if (c.name) names.add(c.name);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      if (c[probe] != null && c.restartPolicy !== 'Always')
        causes.push(invalid(`${path}.${probe}`, c[probe], 'must not be set for init containers'));
  });
  return causes;
}

/** What every container is checked for: its name, image, policies, ports and volume mounts. */
export function validateContainer(container: Json, volumeNames: Set<string>, path: string): Cause[] {
  const causes: Cause[] = [];
  const name = typeof container.name === 'string' ? container.name : '';
  if (!name) causes.push(required(`${path}.name`));
  else causes.push(...isDNS1123Label(name).map((msg) => invalid(`${path}.name`, name, msg)));
  if (!container.image) causes.push(required(`${path}.image`));
  else if (typeof container.image === 'string' && container.image !== container.image.trim())
    causes.push(invalid(`${path}.image`, container.image, 'must not have leading or trailing whitespace'));
  if (container.terminationMessagePolicy === undefined || container.terminationMessagePolicy === '')
    causes.push(required(`${path}.terminationMessagePolicy`));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(container.terminationMessagePolicy))
    causes.push(
      notSupported(
        `${path}.terminationMessagePolicy`,
        container.terminationMessagePolicy,
        TERMINATION_MESSAGE_POLICIES,
      ),
    );
  if (container.imagePullPolicy === undefined || container.imagePullPolicy === '')
    causes.push(required(`${path}.imagePullPolicy`));
  else if (!PULL_POLICIES.includes(container.imagePullPolicy))
    causes.push(notSupported(`${path}.imagePullPolicy`, container.imagePullPolicy, PULL_POLICIES));
  causes.push(...validateContainerPorts(container.ports, `${path}.ports`));
  causes.push(...validateVolumeMounts(container.volumeMounts, volumeNames, `${path}.volumeMounts`));
  return causes;
}

function validateContainerPorts(ports: unknown, field: string): Cause[] {
  const causes: Cause[] = [];
  const names = new Set<string>();
  (Array.isArray(ports) ? ports : []).forEach((port: unknown, i) => {
    const path = `${field}[${i}]`;
    const p: Json = isObject(port) ? port : {};
    if (typeof p.name === 'string' && p.name !== '') {
      const messages = isValidPortName(p.name);
      if (messages.length) causes.push(...messages.map((msg) => invalid(`${path}.name`, p.name, msg)));
      else if (names.has(p.name)) causes.push(duplicate(`${path}.name`, p.name));
      else names.add(p.name);
    }
    if (!p.containerPort) causes.push(required(`${path}.containerPort`));
    else
      causes.push(
        ...isValidPortNum(p.containerPort).map((msg) => invalid(`${path}.containerPort`, p.containerPort, msg)),
      );
    if (p.hostPort)
      causes.push(...isValidPortNum(p.hostPort).map((msg) => invalid(`${path}.hostPort`, p.hostPort, msg)));
    if (p.protocol === undefined || p.protocol === '') causes.push(required(`${path}.protocol`));
    else if (!PORT_PROTOCOLS.includes(p.protocol))
      causes.push(notSupported(`${path}.protocol`, p.protocol, PORT_PROTOCOLS));
  });
  return causes;
}

function validateVolumeMounts(mounts: unknown, volumeNames: Set<string>, field: string): Cause[] {
  const causes: Cause[] = [];
  const mountPaths = new Set<string>();
  (Array.isArray(mounts) ? mounts : []).forEach((mount: unknown, i) => {
    const path = `${field}[${i}]`;
    const m: Json = isObject(mount) ? mount : {};
    const name = typeof m.name === 'string' ? m.name : '';
    if (!name) causes.push(required(`${path}.name`));
    if (!volumeNames.has(name)) causes.push(notFound(`${path}.name`, name));
    const mountPath = typeof m.mountPath === 'string' ? m.mountPath : '';
    if (!mountPath) causes.push(required(`${path}.mountPath`));
    if (mountPaths.has(mountPath)) causes.push(invalid(`${path}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
  });
  return causes;
}

function validateProbe(probe: unknown, field: string): Cause[] {
  if (!isObject(probe)) return [];
  const causes = validateHandler(probe, PROBE_HANDLERS, field);
  for (const number of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ])
    causes.push(...validateNonnegative(probe[number], `${field}.${number}`));
  if (typeof probe.terminationGracePeriodSeconds === 'number' && probe.terminationGracePeriodSeconds <= 0)
    causes.push(
      invalid(`${field}.terminationGracePeriodSeconds`, probe.terminationGracePeriodSeconds, 'must be greater than 0'),
    );
  return causes;
}

/** Exactly one handler (exec, httpGet, tcpSocket, grpc for probes; sleep for hooks), and that one valid. */
function validateHandler(handler: Json, kinds: readonly string[], field: string): Cause[] {
  const causes: Cause[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (!isObject(action)) continue;
    if (count++ > 0) {
      causes.push(forbidden(`${field}.${kind}`, 'may not specify more than 1 handler type'));
      continue;
    }
    const path = `${field}.${kind}`;
    switch (kind) {
      case 'exec':
        if (!Array.isArray(action.command) || action.command.length === 0) causes.push(required(`${path}.command`));
        break;
      case 'httpGet':
        if (!action.path) causes.push(required(`${path}.path`));
        causes.push(...validatePortNumOrName(action.port, `${path}.port`));
        if (!HTTP_SCHEMES.includes(action.scheme))
          causes.push(notSupported(`${path}.scheme`, action.scheme ?? '', HTTP_SCHEMES));
        break;
      case 'tcpSocket':
      case 'grpc':
        causes.push(...validatePortNumOrName(action.port, `${path}.port`));
        break;
    }
  }
  if (count === 0) causes.push(required(field, 'must specify a handler type'));
  return causes;
}

function validateAffinity(affinity: Json, field: string): Cause[] {
  const causes: Cause[] = [];
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isObject(a)) continue;
    const required_ = `${field}.${kind}.requiredDuringSchedulingIgnoredDuringExecution`;
    (Array.isArray(a.requiredDuringSchedulingIgnoredDuringExecution)
      ? a.requiredDuringSchedulingIgnoredDuringExecution
      : []
    ).forEach((term: unknown, i: number) => causes.push(...validatePodAffinityTerm(term, `${required_}[${i}]`)));
    const preferred = `${field}.${kind}.preferredDuringSchedulingIgnoredDuringExecution`;
    (Array.isArray(a.preferredDuringSchedulingIgnoredDuringExecution)
      ? a.preferredDuringSchedulingIgnoredDuringExecution
      : []
    ).forEach((weighted: unknown, i: number) => {
      const w: Json = isObject(weighted) ? weighted : {};
      if (typeof w.weight !== 'number' || w.weight <= 0 || w.weight > 100)
        causes.push(invalid(`${preferred}[${i}].weight`, w.weight ?? 0, 'must be in the range 1-100'));
      causes.push(...validatePodAffinityTerm(w.podAffinityTerm, `${preferred}[${i}].podAffinityTerm`));
    });
  }
  return causes;
}

function validatePodAffinityTerm(term: unknown, field: string): Cause[] {
  const t: Json = isObject(term) ? term : {};
  const causes = validateLabelSelector(t.labelSelector, `${field}.labelSelector`);
  const topologyKey = typeof t.topologyKey === 'string' ? t.topologyKey : '';
  if (!topologyKey) causes.push(required(`${field}.topologyKey`, 'can not be empty'));
  causes.push(...isQualifiedName(topologyKey).map((msg) => invalid(`${field}.topologyKey`, topologyKey, msg)));
  return causes;
}
