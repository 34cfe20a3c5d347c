import { DEFAULT_CPU_UTILIZATION } from '../apiserver/conversion/horizontal-pod-autoscaler.js';
import { isObject } from '../apiserver/json.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';

/**
 * The defaults kube-apiserver fills in when it decodes an object (k8s.io/kubernetes
 * pkg/apis/*\/v1/defaults.go), for the kinds users look at most: what `kubectl get -o yaml` shows
 * after a create. Only fields the client left unset are touched.
 */
type Defaulter = (object: ApiObject) => void;

const setDefault = (target: Record<string, any>, field: string, value: unknown) => {
  if (target[field] === undefined) target[field] = value;
};

function defaultContainer(container: Record<string, any>): void {
  const image = String(container.image ?? '');
  const tag = image.includes('@') ? 'digest' : /:[^/]+$/.test(image) ? image.slice(image.lastIndexOf(':') + 1) : '';
  setDefault(container, 'imagePullPolicy', tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent');
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  setDefault(container, 'resources', {});
  for (const port of container.ports ?? []) setDefault(port, 'protocol', 'TCP');
  for (const entry of Array.isArray(container.env) ? container.env : [])
    if (isObject(entry?.valueFrom?.fieldRef)) setDefault(entry.valueFrom.fieldRef, 'apiVersion', 'v1');
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(container[probe]);
  for (const hook of ['postStart', 'preStop']) defaultHttpGet(container.lifecycle?.[hook]?.httpGet);
}

function defaultProbe(probe: Record<string, any> | undefined): void {
  if (!probe || typeof probe !== 'object') return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHttpGet(probe.httpGet);
}

function defaultHttpGet(action: Record<string, any> | undefined): void {
  if (!action || typeof action !== 'object') return;
  setDefault(action, 'path', '/');
  setDefault(action, 'scheme', 'HTTP');
}

/** An update strategy of `type` (defaulted to RollingUpdate) gets its rollingUpdate and that one's fields. */
function defaultRollingUpdate(spec: Record<string, any>, field: string, rollingUpdate: Record<string, unknown>): void {
  const strategy = (spec[field] ??= {});
  if (typeof strategy !== 'object') return;
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type !== 'RollingUpdate') return;
  const fields = (strategy.rollingUpdate ??= {});
  if (typeof fields !== 'object') return;
  for (const [name, value] of Object.entries(rollingUpdate)) setDefault(fields, name, value);
}

/** rbac/v1's defaults: a binding's roleRef is in the RBAC group, and so are its User and Group subjects. */
function defaultBinding(binding: ApiObject): void {
  if (binding.roleRef && typeof binding.roleRef === 'object') setDefault(binding.roleRef, 'apiGroup', RBAC_GROUP);
  for (const subject of Array.isArray(binding.subjects) ? binding.subjects : [])
    if (
      subject &&
      typeof subject === 'object' &&
      !subject.apiGroup &&
      (subject.kind === 'User' || subject.kind === 'Group')
    )
      subject.apiGroup = RBAC_GROUP;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function defaultPodSpec(spec: Record<string, any> | undefined): void {
  if (!spec || typeof spec !== 'object') return;
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'enableServiceLinks', true);
  // v1's deprecated `serviceAccount` is an alias: read when the name is not given, and always written back as it.
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'])
    for (const c of spec[list] ?? []) defaultContainer(c);
  for (const volume of spec.volumes ?? []) if (volume && typeof volume === 'object') defaultVolume(volume);
}

/** kube's SetDefaults for volume sources: file modes 0644 (420), a projected token's life an hour, a field selector's apiVersion v1. */
function defaultVolume(volume: Record<string, any>): void {
  // A hostPath volume's type is HostPathUnset, "", when none is given.
  if (volume.hostPath) setDefault(volume.hostPath, 'type', '');
  for (const source of ['configMap', 'secret', 'downwardAPI', 'projected'])
    if (isObject(volume[source])) setDefault(volume[source], 'defaultMode', 420);
  const downward = (items: unknown) => {
    for (const item of Array.isArray(items) ? items : [])
      if (isObject(item?.fieldRef)) setDefault(item.fieldRef, 'apiVersion', 'v1');
  };
  if (isObject(volume.downwardAPI)) downward(volume.downwardAPI.items);
  for (const projection of Array.isArray(volume.projected?.sources) ? volume.projected.sources : []) {
    if (isObject(projection?.serviceAccountToken))
      setDefault(projection.serviceAccountToken, 'expirationSeconds', 3600);
    if (isObject(projection?.downwardAPI)) downward(projection.downwardAPI.items);
  }
}

const podTemplate = (object: ApiObject) => defaultPodSpec(object.spec?.template?.spec);

/** autoscaling/v2's behavior defaults (GenerateHPAScaleUpRules, GenerateHPAScaleDownRules): what HPAs did before behavior existed. */
const SCALE_UP_RULES = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
/** No stabilization window: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies. */
const SCALE_DOWN_RULES = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** The rules' own fields over a copy of the defaults (copyHPAScalingRules). */
function scalingRules(rules: unknown, defaults: Record<string, unknown>): Record<string, unknown> {
  const given = rules && typeof rules === 'object' ? (rules as Record<string, unknown>) : {};
  const merged: Record<string, unknown> = structuredClone(defaults);
  for (const field of ['selectPolicy', 'stabilizationWindowSeconds', 'policies'])
    if (given[field] != null) merged[field] = given[field];
  return merged;
}

const DEFAULTERS: Record<string, Defaulter> = {
  '/Pod': (pod) => defaultPodSpec(pod.spec),
  '/Secret': (secret) => setDefault(secret, 'type', 'Opaque'),
  '/Service': (service) => {
    const spec = (service.spec ??= {});
    setDefault(spec, 'type', 'ClusterIP');
    setDefault(spec, 'sessionAffinity', 'None');
    if (spec.type !== 'ExternalName') {
      setDefault(spec, 'internalTrafficPolicy', 'Cluster');
      for (const port of spec.ports ?? []) {
        setDefault(port, 'protocol', 'TCP');
        setDefault(port, 'targetPort', port.port);
      }
    }
  },
  'apps/Deployment': (deployment) => {
    const spec = (deployment.spec ??= {});
    setDefault(spec, 'replicas', 1);
    defaultRollingUpdate(spec, 'strategy', { maxUnavailable: '25%', maxSurge: '25%' });
    setDefault(spec, 'revisionHistoryLimit', 10);
    setDefault(spec, 'progressDeadlineSeconds', 600);
    podTemplate(deployment);
  },
  'apps/ReplicaSet': (rs) => {
    setDefault((rs.spec ??= {}), 'replicas', 1);
    podTemplate(rs);
  },
  'apps/StatefulSet': (sts) => {
    const spec = (sts.spec ??= {});
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    defaultRollingUpdate(spec, 'updateStrategy', { partition: 0 });
    setDefault(spec, 'revisionHistoryLimit', 10);
    podTemplate(sts);
  },
  'apps/DaemonSet': (ds) => {
    const spec = (ds.spec ??= {});
    defaultRollingUpdate(spec, 'updateStrategy', { maxUnavailable: 1, maxSurge: 0 });
    setDefault(spec, 'revisionHistoryLimit', 10);
    podTemplate(ds);
  },
  // On the stored autoscaling/v2 form (v1 objects are converted first, their CPU target made explicit).
  'autoscaling/HorizontalPodAutoscaler': (hpa) => {
    const spec = (hpa.spec ??= {});
    setDefault(spec, 'minReplicas', 1);
    if (!Array.isArray(spec.metrics) || spec.metrics.length === 0)
      spec.metrics = [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } },
        },
      ];
    const behavior = spec.behavior;
    if (behavior && typeof behavior === 'object') {
      behavior.scaleUp = scalingRules(behavior.scaleUp, SCALE_UP_RULES);
      behavior.scaleDown = scalingRules(behavior.scaleDown, SCALE_DOWN_RULES);
    }
  },
  'rbac.authorization.k8s.io/RoleBinding': defaultBinding,
  'rbac.authorization.k8s.io/ClusterRoleBinding': defaultBinding,
  'batch/Job': (job) => {
    const spec = (job.spec ??= {});
    setDefault(spec, 'parallelism', 1);
    setDefault(spec, 'completions', 1);
    setDefault(spec, 'backoffLimit', 6);
    setDefault(spec, 'completionMode', 'NonIndexed');
    setDefault(spec, 'suspend', false);
    podTemplate(job);
  },
  'batch/CronJob': (cronJob) => {
    const spec = (cronJob.spec ??= {});
    setDefault(spec, 'concurrencyPolicy', 'Allow');
    setDefault(spec, 'suspend', false);
    setDefault(spec, 'successfulJobsHistoryLimit', 3);
    setDefault(spec, 'failedJobsHistoryLimit', 1);
    defaultPodSpec(spec.jobTemplate?.spec?.template?.spec);
  },
};

/**
 * kube-apiserver's v1 → internal conversion of a Secret: `stringData` is write-only, each entry
 * written into `data` base64-encoded (over an entry of the same key there) and never stored, so
 * reads, watches and lists only ever show `data`.
 */
function foldStringData(secret: ApiObject): void {
  const stringData: unknown = secret.stringData;
  delete secret.stringData;
  if (typeof stringData !== 'object' || stringData === null || Array.isArray(stringData)) return;
  const data: Record<string, string> = (secret.data ??= {});
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(String(value)).toString('base64');
}

export function applyDefaults(group: string, kind: string, object: ApiObject): void {
  if (group === '' && kind === 'Secret') foldStringData(object);
  DEFAULTERS[`${group}/${kind}`]?.(object);
}
