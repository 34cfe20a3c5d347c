import type { ResourceCatalog } from '../apiserver/catalog.js';
import type { Strategy, StrategyFor } from '../apiserver/registry/strategy.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { resourceInfoFromCRD, validateCRD } from '../apiserver/resources/custom-resource.js';
import { builtinValidator } from '../apiserver/validation/kinds/builtin-kinds.js';
import type { ResourceInfo } from '../apiserver/resources/resource-info.js';
import { applyDefaults } from './defaults.js';
import { prepareJobForCreate } from './job-selector.js';
import type { SimulatedScheduler } from './simulated-scheduler.js';
import { runningPodStatus } from './simulated-pod-status.js';
import type { ServiceIpAllocator } from './service-ips.js';

/** What the devcluster does around a pod's writes, beyond defaults: admission, scheduling, the kubelet's cleanup. */
export interface PodHooks {
  scheduler: SimulatedScheduler;
  /** kube-apiserver's admission plugins for a pod's create (the ServiceAccount plugin). */
  admit(pod: ApiObject): Promise<void>;
  /** The pod is gone: the kubelet lets go of what it held for it. */
  deleted(pod: ApiObject): void;
}

export const NAMESPACE_FINALIZER = 'kubernetes';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * Per-kind behaviour of the devcluster, as kube-apiserver's registry strategies: a new object
 * of a kind with a status subresource starts without status; namespaces carry the `kubernetes`
 * finalizer and turn Terminating when deleted; a new pod is admitted as kube's ServiceAccount plugin admits it, and scheduled and started
 * as it is admitted (docs/devcluster.md, "Nodes, pods, Jobs and CronJobs"); a new Job gets its generated
 * selector; CRDs are validated, accepted and established at once, and register their resources
 * in the catalog on every write.
 */
export function devclusterStrategies(
  catalog: ResourceCatalog,
  onCrdChange: (crd: ApiObject, deleted: boolean) => void,
  serviceIps: ServiceIpAllocator,
  pods: PodHooks,
  /** A ServiceAccount was deleted: its tokens stop authenticating. */
  serviceAccountDeleted: (account: ApiObject) => void,
): StrategyFor {
  return (info: ResourceInfo): Strategy => {
    const dropStatusOnCreate = info.subresources.some((s) => s.name === 'status');
    // kube's per-kind validation (custom resources have none: their schemas are not enforced).
    const validate = info.builtin ? builtinValidator(info.group, info.kind) : undefined;
    const base: Strategy = {
      validate,
      prepareForCreate: (object) => {
        if (dropStatusOnCreate) delete object.status;
        applyDefaults(info.group, info.kind, object);
      },
      prepareForUpdate: (object) => applyDefaults(info.group, info.kind, object),
    };
    if (info.group === '' && info.resource === 'namespaces') return namespaceStrategy;
    if (info.group === '' && info.resource === 'pods') {
      return {
        ...base,
        prepareForCreate: (object) => {
          applyDefaults(info.group, info.kind, object);
          pods.scheduler.schedule(object);
          object.status = runningPodStatus(object);
        },
        admit: (pod) => pods.admit(pod),
        afterWrite: (pod, deleted) => {
          if (deleted) pods.deleted(pod);
        },
      };
    }
    if (info.group === '' && info.resource === 'serviceaccounts') {
      return {
        ...base,
        afterWrite: (account, deleted) => {
          if (deleted) serviceAccountDeleted(account);
        },
      };
    }
    if (info.group === 'batch' && info.resource === 'jobs') {
      return {
        ...base,
        prepareForCreate: (object) => {
          applyDefaults(info.group, info.kind, object);
          delete object.status;
          prepareJobForCreate(object);
        },
        prepareForUpdate: (object, previous) => {
          applyDefaults(info.group, info.kind, object);
          // The generated selector is immutable; an update that leaves it out keeps it.
          if (object.spec && object.spec.selector === undefined) object.spec.selector = previous.spec?.selector;
        },
      };
    }
    if (info.group === '' && info.resource === 'services') {
      return {
        validate,
        prepareForCreate: async (object) => {
          applyDefaults(info.group, info.kind, object);
          object.status = { loadBalancer: {} };
          const spec = object.spec;
          if (spec.type === 'ExternalName') return;
          if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = await serviceIps.allocate();
          else if (spec.clusterIP !== 'None') await serviceIps.reserve(spec.clusterIP);
          spec.clusterIPs ??= [spec.clusterIP];
          if (spec.clusterIP !== 'None') {
            spec.ipFamilies ??= ['IPv4'];
            spec.ipFamilyPolicy ??= 'SingleStack';
          }
        },
        prepareForUpdate: (object, previous) => {
          applyDefaults(info.group, info.kind, object);
          // The allocated address is immutable; an update that leaves it out keeps it.
          for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
            if (object.spec[field] === undefined && previous.spec?.[field] !== undefined)
              object.spec[field] = previous.spec[field];
          }
        },
      };
    }
    if (info.group === 'apiextensions.k8s.io' && info.resource === 'customresourcedefinitions') {
      return {
        prepareForCreate: (object) => {
          object.metadata.finalizers = [...new Set([...(object.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
          object.status = crdStatus(object);
        },
        prepareForUpdate: (object) => {
          if (!object.metadata.deletionTimestamp) object.status = crdStatus(object);
        },
        validate: (object) => validateCRD(object),
        afterWrite: (object, deleted) => {
          catalog.setCustom(
            object.metadata.name,
            deleted || object.metadata.deletionTimestamp ? [] : resourceInfoFromCRD(object),
          );
          onCrdChange(object, deleted);
        },
      };
    }
    return base;
  };
}

const namespaceStrategy: Strategy = {
  prepareForCreate: (object) => {
    object.spec = { ...(object.spec ?? {}), finalizers: [NAMESPACE_FINALIZER] };
    object.status = { phase: 'Active' };
    object.metadata.labels = { ...(object.metadata.labels ?? {}), 'kubernetes.io/metadata.name': object.metadata.name };
  },
  prepareForUpdate: (object, previous) => {
    object.metadata.labels = { ...(object.metadata.labels ?? {}), 'kubernetes.io/metadata.name': object.metadata.name };
    // spec.finalizers changes only through the namespace controller (kube's /finalize).
    if (!previous.metadata.deletionTimestamp)
      object.spec = { ...(object.spec ?? {}), finalizers: previous.spec?.finalizers ?? [] };
  },
  deleteGracefully: () => true,
  beginDeletion: (object) => {
    object.status = { ...(object.status ?? {}), phase: 'Terminating' };
  },
};

function crdStatus(crd: ApiObject): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const versions: { name: string; storage?: boolean }[] = crd.spec?.versions ?? [];
  return {
    acceptedNames: crd.spec?.names ?? {},
    storedVersions: versions.filter((v) => v.storage).map((v) => v.name),
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: now,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
  };
}
