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
}

function defaultPodSpec(spec: Record<string, any> | undefined): void {
  if (!spec || typeof spec !== 'object') return;
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'enableServiceLinks', true);
  for (const list of ['containers', 'initContainers']) for (const c of spec[list] ?? []) defaultContainer(c);
}

const podTemplate = (object: ApiObject) => defaultPodSpec(object.spec?.template?.spec);

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
    setDefault(spec, 'strategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
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
    setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    setDefault(spec, 'revisionHistoryLimit', 10);
    podTemplate(sts);
  },
  'apps/DaemonSet': (ds) => {
    const spec = (ds.spec ??= {});
    setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    setDefault(spec, 'revisionHistoryLimit', 10);
    podTemplate(ds);
  },
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
