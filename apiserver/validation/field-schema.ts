/**
 * The JSON fields of the built-in kinds as k8s.io/api v0.32 declares them, reduced to what
 * unknown-field detection needs: which names an object accepts and what each one holds.
 * kube-apiserver rejects (Strict) or warns about (Warn) any other name while decoding into the
 * Go types, so a name missing here would reject a valid manifest; where a structure is large,
 * rare or free-form it is `any` instead, which accepts everything below it.
 */

/**
 * What a field holds. `scalar` covers strings, numbers, booleans and the Go types that decode
 * themselves from one (Time, Quantity, IntOrString); `any` is free-form content nothing checks.
 */
export type FieldShape = 'scalar' | 'any' | ObjectShape | MapShape | ListShape;
export interface ObjectShape {
  readonly fields: ReadonlyMap<string, FieldShape>;
}
/** A Go map: any key is valid, every value has one shape. */
export interface MapShape {
  readonly mapOf: FieldShape;
}
export interface ListShape {
  readonly listOf: FieldShape;
}

const SCALAR = 'scalar';
const ANY = 'any';

/** An object whose `scalars` (space-separated names) hold scalars and `structured` the rest. */
function object(scalars: string, structured: Record<string, FieldShape> = {}): ObjectShape {
  const fields = new Map<string, FieldShape>();
  for (const name of scalars.split(' ').filter(Boolean)) fields.set(name, SCALAR);
  for (const [name, shape] of Object.entries(structured)) fields.set(name, shape);
  return { fields };
}

/** `base` with more fields, as Go's inlined structs add them. */
function extend(base: ObjectShape, scalars: string, structured: Record<string, FieldShape> = {}): ObjectShape {
  const fields = new Map(base.fields);
  for (const [name, shape] of object(scalars, structured).fields) fields.set(name, shape);
  return { fields };
}

/** Fields modelled as free-form: rarely used sources whose exact fields are not worth the risk. */
function freeForm(names: string): Record<string, FieldShape> {
  return Object.fromEntries(names.split(' ').map((name) => [name, ANY]));
}

function mapOf(values: FieldShape): MapShape {
  return { mapOf: values };
}

function listOf(items: FieldShape): ListShape {
  return { listOf: items };
}

const stringMap = mapOf(SCALAR);
/** A ResourceList: resource name → Quantity. */
const resourceList = mapOf(SCALAR);
const scalarList = listOf(SCALAR);

/** The `*Condition` types share these fields; each adds its own timestamps. */
function condition(timestamps: string): ObjectShape {
  return object(`type status reason message ${timestamps}`);
}

// meta/v1

const ownerReference = object('apiVersion blockOwnerDeletion controller kind name uid');
// fieldsV1 is a FieldsV1, which decodes itself from any JSON object.
const managedFieldsEntry = object('apiVersion fieldsType manager operation subresource time', { fieldsV1: ANY });
const objectMeta = object(
  'creationTimestamp deletionGracePeriodSeconds deletionTimestamp generateName generation name namespace resourceVersion selfLink uid',
  {
    annotations: stringMap,
    finalizers: scalarList,
    labels: stringMap,
    managedFields: listOf(managedFieldsEntry),
    ownerReferences: listOf(ownerReference),
  },
);
const labelSelectorRequirement = object('key operator', { values: scalarList });
const labelSelector = object('', { matchExpressions: listOf(labelSelectorRequirement), matchLabels: stringMap });
const metaCondition = condition('lastTransitionTime observedGeneration');

/** A top-level object of a kind: TypeMeta's apiVersion and kind, ObjectMeta, and its own fields. */
function apiObject(scalars: string, structured: Record<string, FieldShape> = {}): ObjectShape {
  return object(`apiVersion kind ${scalars}`, { metadata: objectMeta, ...structured });
}

// core/v1: references

const localObjectReference = object('name');
const objectReference = object('apiVersion fieldPath kind name namespace resourceVersion uid');
const secretReference = object('name namespace');
const typedLocalObjectReference = object('apiGroup kind name');
const typedObjectReference = object('apiGroup kind name namespace');

// core/v1: scheduling

const nodeSelectorRequirement = object('key operator', { values: scalarList });
const nodeSelectorTerm = object('', {
  matchExpressions: listOf(nodeSelectorRequirement),
  matchFields: listOf(nodeSelectorRequirement),
});
const nodeSelector = object('', { nodeSelectorTerms: listOf(nodeSelectorTerm) });
const preferredSchedulingTerm = object('weight', { preference: nodeSelectorTerm });
const nodeAffinity = object('', {
  preferredDuringSchedulingIgnoredDuringExecution: listOf(preferredSchedulingTerm),
  requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
});
const podAffinityTerm = object('topologyKey', {
  labelSelector,
  matchLabelKeys: scalarList,
  mismatchLabelKeys: scalarList,
  namespaceSelector: labelSelector,
  namespaces: scalarList,
});
const weightedPodAffinityTerm = object('weight', { podAffinityTerm });
const podAffinity = object('', {
  preferredDuringSchedulingIgnoredDuringExecution: listOf(weightedPodAffinityTerm),
  requiredDuringSchedulingIgnoredDuringExecution: listOf(podAffinityTerm),
});
const affinity = object('', { nodeAffinity, podAffinity, podAntiAffinity: podAffinity });
const toleration = object('effect key operator tolerationSeconds value');
const topologySpreadConstraint = object(
  'maxSkew minDomains nodeAffinityPolicy nodeTaintsPolicy topologyKey whenUnsatisfiable',
  { labelSelector, matchLabelKeys: scalarList },
);

// core/v1: containers

const configMapKeySelector = object('key name optional');
const secretKeySelector = object('key name optional');
const objectFieldSelector = object('apiVersion fieldPath');
const resourceFieldSelector = object('containerName divisor resource');
const envVarSource = object('', {
  configMapKeyRef: configMapKeySelector,
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
  secretKeyRef: secretKeySelector,
});
const envVar = object('name value', { valueFrom: envVarSource });
const envFromSource = object('prefix', {
  configMapRef: object('name optional'),
  secretRef: object('name optional'),
});
const execAction = object('', { command: scalarList });
const httpGetAction = object('host path port scheme', { httpHeaders: listOf(object('name value')) });
const tcpSocketAction = object('host port');
const lifecycleHandler = object('', {
  exec: execAction,
  httpGet: httpGetAction,
  sleep: object('seconds'),
  tcpSocket: tcpSocketAction,
});
const probe = object(
  'failureThreshold initialDelaySeconds periodSeconds successThreshold terminationGracePeriodSeconds timeoutSeconds',
  { exec: execAction, grpc: object('port service'), httpGet: httpGetAction, tcpSocket: tcpSocketAction },
);
const resourceRequirements = object('', {
  claims: listOf(object('name request')),
  limits: resourceList,
  requests: resourceList,
});
const seLinuxOptions = object('level role type user');
const seccompProfile = object('localhostProfile type');
const appArmorProfile = object('localhostProfile type');
const windowsSecurityContextOptions = object('gmsaCredentialSpec gmsaCredentialSpecName hostProcess runAsUserName');
const securityContext = object(
  'allowPrivilegeEscalation privileged procMount readOnlyRootFilesystem runAsGroup runAsNonRoot runAsUser',
  {
    appArmorProfile,
    capabilities: object('', { add: scalarList, drop: scalarList }),
    seLinuxOptions,
    seccompProfile,
    windowsOptions: windowsSecurityContextOptions,
  },
);
const container = object(
  'image imagePullPolicy name restartPolicy stdin stdinOnce terminationMessagePath terminationMessagePolicy tty workingDir',
  {
    args: scalarList,
    command: scalarList,
    env: listOf(envVar),
    envFrom: listOf(envFromSource),
    lifecycle: object('', { postStart: lifecycleHandler, preStop: lifecycleHandler }),
    livenessProbe: probe,
    ports: listOf(object('containerPort hostIP hostPort name protocol')),
    readinessProbe: probe,
    resizePolicy: listOf(object('resourceName restartPolicy')),
    resources: resourceRequirements,
    securityContext,
    startupProbe: probe,
    volumeDevices: listOf(object('devicePath name')),
    volumeMounts: listOf(object('mountPath mountPropagation name readOnly recursiveReadOnly subPath subPathExpr')),
  },
);
const ephemeralContainer = extend(container, 'targetContainerName');
const podSecurityContext = object(
  'fsGroup fsGroupChangePolicy runAsGroup runAsNonRoot runAsUser seLinuxChangePolicy supplementalGroupsPolicy',
  {
    appArmorProfile,
    seLinuxOptions,
    seccompProfile,
    supplementalGroups: scalarList,
    sysctls: listOf(object('name value')),
    windowsOptions: windowsSecurityContextOptions,
  },
);

// core/v1: volumes

const keyToPath = object('key mode path');
const downwardAPIVolumeFile = object('mode path', {
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
});
const volumeProjection = object('', {
  clusterTrustBundle: object('name optional path signerName', { labelSelector }),
  configMap: object('name optional', { items: listOf(keyToPath) }),
  downwardAPI: object('', { items: listOf(downwardAPIVolumeFile) }),
  secret: object('name optional', { items: listOf(keyToPath) }),
  serviceAccountToken: object('audience expirationSeconds path'),
});
const persistentVolumeClaimSpec = object('storageClassName volumeAttributesClassName volumeMode volumeName', {
  accessModes: scalarList,
  dataSource: typedLocalObjectReference,
  dataSourceRef: typedObjectReference,
  resources: object('', { limits: resourceList, requests: resourceList }),
  selector: labelSelector,
});
const hostPathVolumeSource = object('path type');
const nfsVolumeSource = object('path readOnly server');
const volume = object('name', {
  configMap: object('defaultMode name optional', { items: listOf(keyToPath) }),
  csi: object('driver fsType readOnly', { nodePublishSecretRef: localObjectReference, volumeAttributes: stringMap }),
  downwardAPI: object('defaultMode', { items: listOf(downwardAPIVolumeFile) }),
  emptyDir: object('medium sizeLimit'),
  ephemeral: object('', { volumeClaimTemplate: object('', { metadata: objectMeta, spec: persistentVolumeClaimSpec }) }),
  hostPath: hostPathVolumeSource,
  nfs: nfsVolumeSource,
  persistentVolumeClaim: object('claimName readOnly'),
  projected: object('defaultMode', { sources: listOf(volumeProjection) }),
  secret: object('defaultMode optional secretName', { items: listOf(keyToPath) }),
  ...freeForm(
    'awsElasticBlockStore azureDisk azureFile cephfs cinder fc flexVolume flocker gcePersistentDisk gitRepo glusterfs image iscsi photonPersistentDisk portworxVolume quobyte rbd scaleIO storageos vsphereVolume',
  ),
});

// core/v1: Pod

const podSpec = object(
  'activeDeadlineSeconds automountServiceAccountToken dnsPolicy enableServiceLinks hostIPC hostNetwork hostPID hostUsers hostname nodeName preemptionPolicy priority priorityClassName restartPolicy runtimeClassName schedulerName serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace subdomain terminationGracePeriodSeconds',
  {
    affinity,
    containers: listOf(container),
    dnsConfig: object('', {
      nameservers: scalarList,
      options: listOf(object('name value')),
      searches: scalarList,
    }),
    ephemeralContainers: listOf(ephemeralContainer),
    hostAliases: listOf(object('ip', { hostnames: scalarList })),
    imagePullSecrets: listOf(localObjectReference),
    initContainers: listOf(container),
    nodeSelector: stringMap,
    os: object('name'),
    overhead: resourceList,
    readinessGates: listOf(object('conditionType')),
    resourceClaims: listOf(object('name resourceClaimName resourceClaimTemplateName')),
    resources: resourceRequirements,
    schedulingGates: listOf(object('name')),
    securityContext: podSecurityContext,
    tolerations: listOf(toleration),
    topologySpreadConstraints: listOf(topologySpreadConstraint),
    volumes: listOf(volume),
  },
);
const podTemplateSpec = object('', { metadata: objectMeta, spec: podSpec });
const containerState = object('', {
  running: object('startedAt'),
  terminated: object('containerID exitCode finishedAt message reason signal startedAt'),
  waiting: object('message reason'),
});
const containerStatus = object('containerID image imageID name ready restartCount started', {
  allocatedResources: resourceList,
  allocatedResourcesStatus: listOf(object('name', { resources: listOf(object('health resourceID')) })),
  lastState: containerState,
  resources: resourceRequirements,
  state: containerState,
  user: object('', { linux: object('gid uid', { supplementalGroups: scalarList }) }),
  volumeMounts: listOf(object('mountPath name readOnly recursiveReadOnly')),
});
const podStatus = object('hostIP message nominatedNodeName phase podIP qosClass reason resize startTime', {
  conditions: listOf(condition('lastProbeTime lastTransitionTime')),
  containerStatuses: listOf(containerStatus),
  ephemeralContainerStatuses: listOf(containerStatus),
  hostIPs: listOf(object('ip')),
  initContainerStatuses: listOf(containerStatus),
  podIPs: listOf(object('ip')),
  resourceClaimStatuses: listOf(object('name resourceClaimName')),
});
const pod = apiObject('', { spec: podSpec, status: podStatus });

// core/v1: other kinds

const configMap = apiObject('immutable', { binaryData: stringMap, data: stringMap });
const secret = apiObject('immutable type', { data: stringMap, stringData: stringMap });
const namespace = apiObject('', {
  spec: object('', { finalizers: scalarList }),
  status: object('phase', { conditions: listOf(condition('lastTransitionTime')) }),
});
const serviceAccount = apiObject('automountServiceAccountToken', {
  imagePullSecrets: listOf(localObjectReference),
  secrets: listOf(objectReference),
});
const service = apiObject('', {
  spec: object(
    'allocateLoadBalancerNodePorts clusterIP externalName externalTrafficPolicy healthCheckNodePort internalTrafficPolicy ipFamilyPolicy loadBalancerClass loadBalancerIP publishNotReadyAddresses sessionAffinity trafficDistribution type',
    {
      clusterIPs: scalarList,
      externalIPs: scalarList,
      ipFamilies: scalarList,
      loadBalancerSourceRanges: scalarList,
      ports: listOf(object('appProtocol name nodePort port protocol targetPort')),
      selector: stringMap,
      sessionAffinityConfig: object('', { clientIP: object('timeoutSeconds') }),
    },
  ),
  status: object('', {
    conditions: listOf(metaCondition),
    loadBalancer: object('', {
      ingress: listOf(object('hostname ip ipMode', { ports: listOf(object('error port protocol')) })),
    }),
  }),
});
const endpointAddress = object('hostname ip nodeName', { targetRef: objectReference });
const endpoints = apiObject('', {
  subsets: listOf(
    object('', {
      addresses: listOf(endpointAddress),
      notReadyAddresses: listOf(endpointAddress),
      ports: listOf(object('appProtocol name port protocol')),
    }),
  ),
});
const persistentVolumeClaim = apiObject('', {
  spec: persistentVolumeClaimSpec,
  status: object('currentVolumeAttributesClassName phase', {
    accessModes: scalarList,
    allocatedResourceStatuses: stringMap,
    allocatedResources: resourceList,
    capacity: resourceList,
    conditions: listOf(condition('lastProbeTime lastTransitionTime')),
    modifyVolumeStatus: object('status targetVolumeAttributesClassName'),
  }),
});
const persistentVolume = apiObject('', {
  spec: object('persistentVolumeReclaimPolicy storageClassName volumeAttributesClassName volumeMode', {
    accessModes: scalarList,
    capacity: resourceList,
    claimRef: objectReference,
    csi: object('driver fsType readOnly volumeHandle', {
      controllerExpandSecretRef: secretReference,
      controllerPublishSecretRef: secretReference,
      nodeExpandSecretRef: secretReference,
      nodePublishSecretRef: secretReference,
      nodeStageSecretRef: secretReference,
      volumeAttributes: stringMap,
    }),
    hostPath: hostPathVolumeSource,
    local: object('fsType path'),
    mountOptions: scalarList,
    nfs: nfsVolumeSource,
    nodeAffinity: object('', { required: nodeSelector }),
    ...freeForm(
      'awsElasticBlockStore azureDisk azureFile cephfs cinder fc flexVolume flocker gcePersistentDisk glusterfs iscsi photonPersistentDisk portworxVolume quobyte rbd scaleIO storageos vsphereVolume',
    ),
  }),
  status: object('lastPhaseTransitionTime message phase reason'),
});
const event = apiObject(
  'action count eventTime firstTimestamp lastTimestamp message reason reportingComponent reportingInstance type',
  {
    involvedObject: objectReference,
    related: objectReference,
    series: object('count lastObservedTime'),
    source: object('component host'),
  },
);
const resourceQuota = apiObject('', {
  spec: object('', {
    hard: resourceList,
    scopeSelector: object('', { matchExpressions: listOf(object('operator scopeName', { values: scalarList })) }),
    scopes: scalarList,
  }),
  status: object('', { hard: resourceList, used: resourceList }),
});
const limitRange = apiObject('', {
  spec: object('', {
    limits: listOf(
      object('type', {
        default: resourceList,
        defaultRequest: resourceList,
        max: resourceList,
        maxLimitRequestRatio: resourceList,
        min: resourceList,
      }),
    ),
  }),
});
const nodeConfigSource = object('', {
  configMap: object('kubeletConfigKey name namespace resourceVersion uid'),
});
const node = apiObject('', {
  spec: object('externalID podCIDR providerID unschedulable', {
    configSource: nodeConfigSource,
    podCIDRs: scalarList,
    taints: listOf(object('effect key timeAdded value')),
  }),
  status: object('phase', {
    addresses: listOf(object('address type')),
    allocatable: resourceList,
    capacity: resourceList,
    conditions: listOf(condition('lastHeartbeatTime lastTransitionTime')),
    config: object('error', { active: nodeConfigSource, assigned: nodeConfigSource, lastKnownGood: nodeConfigSource }),
    // The kubelet port's JSON name is capitalised in k8s.io/api.
    daemonEndpoints: object('', { kubeletEndpoint: object('Port') }),
    features: object('supplementalGroupsPolicy'),
    images: listOf(object('sizeBytes', { names: scalarList })),
    nodeInfo: object(
      'architecture bootID containerRuntimeVersion kernelVersion kubeProxyVersion kubeletVersion machineID operatingSystem osImage systemUUID',
    ),
    runtimeHandlers: listOf(object('name', { features: object('recursiveReadOnlyMounts userNamespaces') })),
    volumesAttached: listOf(object('devicePath name')),
    volumesInUse: scalarList,
  }),
});

// apps/v1

const rollingUpdate = object('maxSurge maxUnavailable');
const deployment = apiObject('', {
  spec: object('minReadySeconds paused progressDeadlineSeconds replicas revisionHistoryLimit', {
    selector: labelSelector,
    strategy: object('type', { rollingUpdate }),
    template: podTemplateSpec,
  }),
  status: object(
    'availableReplicas collisionCount observedGeneration readyReplicas replicas unavailableReplicas updatedReplicas',
    { conditions: listOf(condition('lastTransitionTime lastUpdateTime')) },
  ),
});
const replicaSet = apiObject('', {
  spec: object('minReadySeconds replicas', { selector: labelSelector, template: podTemplateSpec }),
  status: object('availableReplicas fullyLabeledReplicas observedGeneration readyReplicas replicas', {
    conditions: listOf(condition('lastTransitionTime')),
  }),
});
const statefulSet = apiObject('', {
  spec: object('minReadySeconds podManagementPolicy replicas revisionHistoryLimit serviceName', {
    ordinals: object('start'),
    persistentVolumeClaimRetentionPolicy: object('whenDeleted whenScaled'),
    selector: labelSelector,
    template: podTemplateSpec,
    updateStrategy: object('type', { rollingUpdate: object('maxUnavailable partition') }),
    volumeClaimTemplates: listOf(persistentVolumeClaim),
  }),
  status: object(
    'availableReplicas collisionCount currentReplicas currentRevision observedGeneration readyReplicas replicas updateRevision updatedReplicas',
    { conditions: listOf(condition('lastTransitionTime')) },
  ),
});
const daemonSet = apiObject('', {
  spec: object('minReadySeconds revisionHistoryLimit', {
    selector: labelSelector,
    template: podTemplateSpec,
    updateStrategy: object('type', { rollingUpdate }),
  }),
  status: object(
    'collisionCount currentNumberScheduled desiredNumberScheduled numberAvailable numberMisscheduled numberReady numberUnavailable observedGeneration updatedNumberScheduled',
    { conditions: listOf(condition('lastTransitionTime')) },
  ),
});

// batch/v1

const jobSpec = object(
  'activeDeadlineSeconds backoffLimit backoffLimitPerIndex completionMode completions managedBy manualSelector maxFailedIndexes parallelism podReplacementPolicy suspend ttlSecondsAfterFinished',
  {
    podFailurePolicy: object('', {
      rules: listOf(
        object('action', {
          onExitCodes: object('containerName operator', { values: scalarList }),
          onPodConditions: listOf(object('status type')),
        }),
      ),
    }),
    selector: labelSelector,
    successPolicy: object('', { rules: listOf(object('succeededCount succeededIndexes')) }),
    template: podTemplateSpec,
  },
);
const job = apiObject('', {
  spec: jobSpec,
  status: object('active completedIndexes completionTime failed failedIndexes ready startTime succeeded terminating', {
    conditions: listOf(condition('lastProbeTime lastTransitionTime')),
    uncountedTerminatedPods: object('', { failed: scalarList, succeeded: scalarList }),
  }),
});
const cronJob = apiObject('', {
  spec: object(
    'concurrencyPolicy failedJobsHistoryLimit schedule startingDeadlineSeconds successfulJobsHistoryLimit suspend timeZone',
    { jobTemplate: object('', { metadata: objectMeta, spec: jobSpec }) },
  ),
  status: object('lastScheduleTime lastSuccessfulTime', { active: listOf(objectReference) }),
});

// rbac.authorization.k8s.io/v1

const policyRule = object('', {
  apiGroups: scalarList,
  nonResourceURLs: scalarList,
  resourceNames: scalarList,
  resources: scalarList,
  verbs: scalarList,
});
const role = apiObject('', { rules: listOf(policyRule) });
const clusterRole = apiObject('', {
  aggregationRule: object('', { clusterRoleSelectors: listOf(labelSelector) }),
  rules: listOf(policyRule),
});
const roleBinding = apiObject('', {
  roleRef: object('apiGroup kind name'),
  subjects: listOf(object('apiGroup kind name namespace')),
});

// networking.k8s.io/v1

const ingressBackend = object('', {
  resource: typedLocalObjectReference,
  service: object('name', { port: object('name number') }),
});
const ingress = apiObject('', {
  spec: object('ingressClassName', {
    defaultBackend: ingressBackend,
    rules: listOf(
      object('host', { http: object('', { paths: listOf(object('path pathType', { backend: ingressBackend })) }) }),
    ),
    tls: listOf(object('secretName', { hosts: scalarList })),
  }),
  status: object('', {
    loadBalancer: object('', {
      ingress: listOf(object('hostname ip', { ports: listOf(object('error port protocol')) })),
    }),
  }),
});
const networkPolicyPeer = object('', {
  ipBlock: object('cidr', { except: scalarList }),
  namespaceSelector: labelSelector,
  podSelector: labelSelector,
});
const networkPolicyPort = object('endPort port protocol');
const networkPolicy = apiObject('', {
  spec: object('', {
    egress: listOf(object('', { ports: listOf(networkPolicyPort), to: listOf(networkPolicyPeer) })),
    ingress: listOf(object('', { from: listOf(networkPolicyPeer), ports: listOf(networkPolicyPort) })),
    podSelector: labelSelector,
    policyTypes: scalarList,
  }),
});
const ingressClass = apiObject('', {
  spec: object('controller', { parameters: object('apiGroup kind name namespace scope') }),
});

// storage.k8s.io/v1, coordination.k8s.io/v1, scheduling.k8s.io/v1, policy/v1

const storageClass = apiObject('allowVolumeExpansion provisioner reclaimPolicy volumeBindingMode', {
  allowedTopologies: listOf(object('', { matchLabelExpressions: listOf(object('key', { values: scalarList })) })),
  mountOptions: scalarList,
  parameters: stringMap,
});
const lease = apiObject('', {
  spec: object('acquireTime holderIdentity leaseDurationSeconds leaseTransitions preferredHolder renewTime strategy'),
});
const priorityClass = apiObject('description globalDefault preemptionPolicy value');
const podDisruptionBudget = apiObject('', {
  spec: object('maxUnavailable minAvailable unhealthyPodEvictionPolicy', { selector: labelSelector }),
  status: object('currentHealthy desiredHealthy disruptionsAllowed expectedPods observedGeneration', {
    conditions: listOf(metaCondition),
    disruptedPods: mapOf(SCALAR),
  }),
});

// autoscaling/v1 and autoscaling/v2: the HorizontalPodAutoscaler's versions differ in shape

const crossVersionObjectReference = object('apiVersion kind name');
const horizontalPodAutoscalerV1 = apiObject('', {
  spec: object('maxReplicas minReplicas targetCPUUtilizationPercentage', {
    scaleTargetRef: crossVersionObjectReference,
  }),
  status: object('currentCPUUtilizationPercentage currentReplicas desiredReplicas lastScaleTime observedGeneration'),
});
const metricIdentifier = object('name', { selector: labelSelector });
const metricTarget = object('averageUtilization averageValue type value');
const metricValueStatus = object('averageUtilization averageValue value');
const hpaScalingRules = object('selectPolicy stabilizationWindowSeconds', {
  policies: listOf(object('periodSeconds type value')),
});
/** A MetricSpec's or a MetricStatus's sources: `value` is what each holds besides its identity (target or current). */
function metricSources(value: 'target' | 'current'): Record<string, FieldShape> {
  const holds = { [value]: value === 'target' ? metricTarget : metricValueStatus };
  return {
    containerResource: object('container name', holds),
    external: object('', { metric: metricIdentifier, ...holds }),
    object: object('', { describedObject: crossVersionObjectReference, metric: metricIdentifier, ...holds }),
    pods: object('', { metric: metricIdentifier, ...holds }),
    resource: object('name', holds),
  };
}
const horizontalPodAutoscalerV2 = apiObject('', {
  spec: object('maxReplicas minReplicas', {
    behavior: object('', { scaleDown: hpaScalingRules, scaleUp: hpaScalingRules }),
    metrics: listOf(object('type', metricSources('target'))),
    scaleTargetRef: crossVersionObjectReference,
  }),
  status: object('currentReplicas desiredReplicas lastScaleTime observedGeneration', {
    conditions: listOf(condition('lastTransitionTime')),
    currentMetrics: listOf(object('type', metricSources('current'))),
  }),
});

/** Top-level schemas by `group/Kind`, the core group empty (`/ConfigMap`). */
export const builtinKindSchemas: ReadonlyMap<string, ObjectShape> = new Map([
  ['/ConfigMap', configMap],
  ['/Endpoints', endpoints],
  ['/Event', event],
  ['/LimitRange', limitRange],
  ['/Namespace', namespace],
  ['/Node', node],
  ['/PersistentVolume', persistentVolume],
  ['/PersistentVolumeClaim', persistentVolumeClaim],
  ['/Pod', pod],
  ['/ResourceQuota', resourceQuota],
  ['/Secret', secret],
  ['/Service', service],
  ['/ServiceAccount', serviceAccount],
  ['apps/DaemonSet', daemonSet],
  ['apps/Deployment', deployment],
  ['apps/ReplicaSet', replicaSet],
  ['apps/StatefulSet', statefulSet],
  ['batch/CronJob', cronJob],
  ['batch/Job', job],
  ['coordination.k8s.io/Lease', lease],
  ['networking.k8s.io/Ingress', ingress],
  ['networking.k8s.io/IngressClass', ingressClass],
  ['networking.k8s.io/NetworkPolicy', networkPolicy],
  ['policy/PodDisruptionBudget', podDisruptionBudget],
  ['rbac.authorization.k8s.io/ClusterRole', clusterRole],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', roleBinding],
  ['rbac.authorization.k8s.io/Role', role],
  ['rbac.authorization.k8s.io/RoleBinding', roleBinding],
  ['scheduling.k8s.io/PriorityClass', priorityClass],
  ['storage.k8s.io/StorageClass', storageClass],
]);

/** Kinds whose versions differ in shape, by `group/version/Kind`. */
const versionedKindSchemas: ReadonlyMap<string, ObjectShape> = new Map([
  ['autoscaling/v1/HorizontalPodAutoscaler', horizontalPodAutoscalerV1],
  ['autoscaling/v2/HorizontalPodAutoscaler', horizontalPodAutoscalerV2],
]);

/** The schema of a built-in kind at `version`, if it has one. */
export function builtinKindSchema(group: string, version: string, kind: string): ObjectShape | undefined {
  return versionedKindSchemas.get(`${group}/${version}/${kind}`) ?? builtinKindSchemas.get(`${group}/${kind}`);
}

/** Every kind with a schema, at any version, as `group/Kind`. */
export function kindsWithSchema(): string[] {
  const versioned = [...versionedKindSchemas.keys()].map((key) => key.replace(/\/[^/]+\//, '/'));
  return [...new Set([...builtinKindSchemas.keys(), ...versioned])];
}
