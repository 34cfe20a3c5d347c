import { expect } from 'chai';
import {
  findUnknownFields,
  kindsWithFieldSchema,
  strictDecodingMessage,
  unknownFieldMessage,
} from '../../apiserver/validation/unknown-fields.js';

const podTemplate = {
  metadata: {
    labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop' },
    annotations: { 'prometheus.io/scrape': 'true' },
  },
  spec: {
    serviceAccountName: 'web',
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 30,
    imagePullSecrets: [{ name: 'registry' }],
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 1000,
      fsGroup: 2000,
      fsGroupChangePolicy: 'OnRootMismatch',
      supplementalGroups: [3000],
      seccompProfile: { type: 'RuntimeDefault' },
      sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
    },
    initContainers: [
      {
        name: 'migrate',
        image: 'shop/migrate:1.4',
        command: ['/bin/migrate'],
        args: ['--to', 'latest'],
        envFrom: [
          { configMapRef: { name: 'db' } },
          { secretRef: { name: 'db-creds', optional: false }, prefix: 'DB_' },
        ],
        restartPolicy: 'Always',
      },
    ],
    containers: [
      {
        name: 'web',
        image: 'shop/web:2.1',
        imagePullPolicy: 'IfNotPresent',
        workingDir: '/srv',
        ports: [
          { name: 'http', containerPort: 8080, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9090 },
        ],
        env: [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db-creds', key: 'password' } } },
          { name: 'FEATURES', valueFrom: { configMapKeyRef: { name: 'flags', key: 'features', optional: true } } },
          {
            name: 'MEM_LIMIT',
            valueFrom: { resourceFieldRef: { containerName: 'web', resource: 'limits.memory', divisor: '1Mi' } },
          },
        ],
        resources: {
          requests: { cpu: '250m', memory: '256Mi' },
          limits: { cpu: 1, memory: '512Mi', 'nvidia.com/gpu': '1' },
        },
        livenessProbe: {
          httpGet: {
            path: '/healthz',
            port: 'http',
            scheme: 'HTTP',
            httpHeaders: [{ name: 'X-Probe', value: 'liveness' }],
          },
          initialDelaySeconds: 10,
          periodSeconds: 10,
          timeoutSeconds: 2,
          failureThreshold: 3,
        },
        readinessProbe: { tcpSocket: { port: 8080 }, successThreshold: 1 },
        startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
        lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['/bin/warm'] } } },
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
        },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/web', readOnly: true },
          { name: 'cache', mountPath: '/var/cache/web', subPath: 'web' },
          { name: 'token', mountPath: '/var/run/secrets/tokens' },
        ],
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      },
    ],
    volumes: [
      {
        name: 'config',
        configMap: { name: 'web-config', defaultMode: 420, items: [{ key: 'app.yaml', path: 'app.yaml' }] },
      },
      { name: 'tls', secret: { secretName: 'web-tls', optional: true } },
      { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '128Mi' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'web-data' } },
      { name: 'host-logs', hostPath: { path: '/var/log', type: 'Directory' } },
      { name: 'share', nfs: { server: 'nfs.local', path: '/exports/web', readOnly: true } },
      {
        name: 'token',
        projected: {
          sources: [
            { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'vault-token' } },
            { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
            { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          ],
        },
      },
      {
        name: 'podinfo',
        downwardAPI: { items: [{ path: 'cpu', resourceFieldRef: { containerName: 'web', resource: 'requests.cpu' } }] },
      },
      {
        name: 'secrets-store',
        csi: { driver: 'secrets-store.csi.k8s.io', readOnly: true, volumeAttributes: { secretProviderClass: 'web' } },
      },
      {
        name: 'scratch',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { labels: { type: 'scratch' } },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: 'fast',
              resources: { requests: { storage: '1Gi' } },
            },
          },
        },
      },
    ],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 50, preference: { matchExpressions: [{ key: 'node-type', operator: 'In', values: ['compute'] }] } },
        ],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight: 100,
            podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' },
          },
        ],
      },
    },
    tolerations: [
      { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { app: 'web' } },
      },
    ],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    dnsConfig: { options: [{ name: 'ndots', value: '2' }] },
    hostAliases: [{ ip: '10.0.0.5', hostnames: ['legacy.local'] }],
  },
};

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '3' },
    managedFields: [
      // fieldsV1 is free-form: its `f:` keys must not be mistaken for fields.
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ],
  },
  spec: {
    replicas: 3,
    revisionHistoryLimit: 5,
    progressDeadlineSeconds: 600,
    selector: {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['batch'] }],
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
    template: podTemplate,
  },
  status: {
    observedGeneration: 7,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        reason: 'MinimumReplicasAvailable',
        lastUpdateTime: '2025-01-01T00:00:00Z',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
    ],
  },
};

const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    type: 'LoadBalancer',
    selector: { app: 'web' },
    ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', appProtocol: 'http' }],
    sessionAffinity: 'ClientIP',
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
    externalTrafficPolicy: 'Local',
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
    loadBalancerSourceRanges: ['10.0.0.0/8'],
  },
  status: {
    loadBalancer: { ingress: [{ ip: '203.0.113.10', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP' }] }] },
  },
};

const ingress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } },
  spec: {
    ingressClassName: 'nginx',
    defaultBackend: { service: { name: 'default', port: { number: 80 } } },
    tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }],
    rules: [
      {
        host: 'shop.example.com',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } },
            {
              path: '/static',
              pathType: 'ImplementationSpecific',
              backend: { resource: { apiGroup: 'k8s.example.com', kind: 'Bucket', name: 'assets' } },
            },
          ],
        },
      },
    ],
  },
};

const role = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'reader', namespace: 'shop' },
  rules: [
    { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'], resourceNames: ['web'] },
  ],
};
const roleBinding = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'reader', namespace: 'shop' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
  subjects: [
    { kind: 'ServiceAccount', name: 'web', namespace: 'shop' },
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
  ],
};
const clusterRole = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'monitoring' },
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] },
  rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
};
const clusterRoleBinding = { ...roleBinding, kind: 'ClusterRoleBinding', metadata: { name: 'monitoring' } };

const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'report' },
  spec: {
    schedule: '0 3 * * *',
    timeZone: 'Etc/UTC',
    concurrencyPolicy: 'Forbid',
    startingDeadlineSeconds: 120,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: {
      metadata: { labels: { job: 'report' } },
      spec: {
        backoffLimit: 2,
        activeDeadlineSeconds: 3600,
        ttlSecondsAfterFinished: 86400,
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { containerName: 'report', operator: 'In', values: [42] } }],
        },
        template: {
          spec: {
            restartPolicy: 'OnFailure',
            containers: [
              { name: 'report', image: 'shop/report:1.0', args: ['--daily'], resources: { limits: { memory: '1Gi' } } },
            ],
          },
        },
      },
    },
  },
  status: {
    lastScheduleTime: '2025-01-01T03:00:00Z',
    active: [{ kind: 'Job', name: 'report-1', namespace: 'shop', uid: 'u1' }],
  },
};

const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db' },
  spec: {
    serviceName: 'db',
    replicas: 3,
    podManagementPolicy: 'Parallel',
    selector: { matchLabels: { app: 'db' } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } },
    volumeClaimTemplates: [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
      },
    ],
  },
};

const manifests: [string, string, object][] = [
  ['apps', 'Deployment', deployment],
  ['', 'Service', service],
  ['networking.k8s.io', 'Ingress', ingress],
  ['rbac.authorization.k8s.io', 'Role', role],
  ['rbac.authorization.k8s.io', 'RoleBinding', roleBinding],
  ['rbac.authorization.k8s.io', 'ClusterRole', clusterRole],
  ['rbac.authorization.k8s.io', 'ClusterRoleBinding', clusterRoleBinding],
  ['batch', 'CronJob', cronJob],
  ['apps', 'StatefulSet', statefulSet],
  ['', 'Pod', { apiVersion: 'v1', kind: 'Pod', ...podTemplate, metadata: { ...podTemplate.metadata, name: 'web-0' } }],
  [
    '',
    'ConfigMap',
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'flags' },
      data: { features: 'a,b' },
      binaryData: { blob: 'AAE=' },
      immutable: true,
    },
  ],
  [
    '',
    'Secret',
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-creds' },
      type: 'Opaque',
      stringData: { password: 'hunter2' },
      data: { user: 'YWRtaW4=' },
    },
  ],
  [
    'networking.k8s.io',
    'NetworkPolicy',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'web' },
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { team: 'shop' } } },
              { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
            ],
            ports: [{ protocol: 'TCP', port: 8080 }],
          },
        ],
        egress: [{ to: [{ podSelector: {} }], ports: [{ port: 5432, endPort: 5433 }] }],
      },
    },
  ],
  [
    'policy',
    'PodDisruptionBudget',
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: {
        minAvailable: '50%',
        selector: { matchLabels: { app: 'web' } },
        unhealthyPodEvictionPolicy: 'AlwaysAllow',
      },
    },
  ],
];

describe('findUnknownFields', () => {
  describe('realistic manifests have no unknown fields', () => {
    for (const [group, kind, manifest] of manifests) {
      it(`${group || 'core'}/${kind}`, () => {
        expect(findUnknownFields(group, kind, manifest)).to.deep.equal([]);
      });
    }
  });

  it('finds a typo at the top of spec', () => {
    const object = { ...deployment, spec: { ...deployment.spec, replicass: 3 } };
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal(['spec.replicass']);
  });

  it('shows list indices in brackets, at every depth', () => {
    const web = podTemplate.spec.containers[0];
    const sidecar = { name: 'proxy', imagee: 'envoy', ports: [{ containerPort: 1 }, { containerPortt: 2 }] };
    const object = {
      ...deployment,
      spec: {
        ...deployment.spec,
        template: { ...podTemplate, spec: { ...podTemplate.spec, containers: [web, sidecar] } },
      },
    };
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal([
      'spec.template.spec.containers[1].imagee',
      'spec.template.spec.containers[1].ports[1].containerPortt',
    ]);
  });

  it('finds a typo in metadata', () => {
    expect(findUnknownFields('', 'ConfigMap', { metadata: { name: 'a', lables: { app: 'x' } } })).to.deep.equal([
      'metadata.lables',
    ]);
  });

  it('reports several fields in document order across depths', () => {
    const object = {
      metadata: { lables: {} },
      spec: { replicass: 1, template: { spec: { containers: [{ name: 'a', imagee: 'b' }] } } },
      extra: true,
    };
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal([
      'metadata.lables',
      'spec.replicass',
      'spec.template.spec.containers[0].imagee',
      'extra',
    ]);
  });

  it("never reports a map's keys, but does report a typo in the object holding the map", () => {
    const object = {
      metadata: { labels: { replicass: 'x' }, annotations: { imagee: 'y' } },
      spec: {
        selector: { matchLabel: { app: 'web' }, matchLabels: { lables: 'z' } },
        template: {
          spec: {
            nodeSelector: { anything: 'goes' },
            containers: [{ name: 'a', resources: { limits: { 'example.com/dongle': 1 }, limitz: {} } }],
          },
        },
      },
    };
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal([
      'spec.selector.matchLabel',
      'spec.template.spec.containers[0].resources.limitz',
    ]);
  });

  it('accepts status fields and finds typos in them', () => {
    const object = { ...deployment, status: { ...deployment.status, readyReplica: 1 } };
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal(['status.readyReplica']);
    const pod = {
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.1' }],
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null }],
        containerStatuses: [
          {
            name: 'web',
            ready: true,
            restartCount: 0,
            state: { running: { startedAt: '2025-01-01T00:00:00Z' } },
            user: { linux: { uid: 1, gid: 1 } },
          },
        ],
      },
    };
    expect(findUnknownFields('', 'Pod', pod)).to.deep.equal([]);
  });

  it('matches names case-sensitively, as kube does', () => {
    expect(findUnknownFields('', 'Namespace', { Metadata: {}, spec: { Finalizers: [] } })).to.deep.equal([
      'Metadata',
      'spec.Finalizers',
    ]);
  });

  it('does not take inherited object properties for fields', () => {
    const object = JSON.parse('{"spec": {"constructor": 1, "__proto__": {"toString": 2}}}');
    expect(findUnknownFields('apps', 'Deployment', object)).to.deep.equal(['spec.constructor', 'spec.__proto__']);
  });

  it('accepts anything inside free-form parts', () => {
    const object = {
      spec: {
        volumes: [{ name: 'legacy', rbd: { monitors: ['m'], anything: { deeply: ['nested'] } } }],
        containers: [{ name: 'a', image: 'b' }],
      },
    };
    expect(findUnknownFields('', 'Pod', object)).to.deep.equal([]);
  });

  it('models only the fields a sub-structure has where shapes are shared', () => {
    const object = {
      spec: {
        containers: [{ name: 'a', targetContainerName: 'b' }],
        ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'a' }],
      },
    };
    expect(findUnknownFields('', 'Pod', object)).to.deep.equal(['spec.containers[0].targetContainerName']);
  });

  it('knows the fields added up to v1.32 and drops the ones removed', () => {
    const pod = {
      spec: {
        resources: { limits: { cpu: '2' } },
        securityContext: { seLinuxChangePolicy: 'MountOption', supplementalGroupsPolicy: 'Strict' },
        resourceClaims: [
          { name: 'gpu', resourceClaimTemplateName: 'gpu' },
          { name: 'old', source: { resourceClaimName: 'x' } },
        ],
      },
    };
    expect(findUnknownFields('', 'Pod', pod)).to.deep.equal(['spec.resourceClaims[1].source']);
    const lease = { spec: { holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' } };
    expect(findUnknownFields('coordination.k8s.io', 'Lease', lease)).to.deep.equal([]);
  });

  it('leaves values of the wrong JSON type to type checking', () => {
    expect(
      findUnknownFields('apps', 'Deployment', { spec: { template: { spec: { containers: { imagee: 'x' } } } } }),
    ).to.deep.equal([]);
    expect(findUnknownFields('apps', 'Deployment', { spec: 'replicas' })).to.deep.equal([]);
    expect(findUnknownFields('apps', 'Deployment', ['spec'])).to.deep.equal([]);
  });

  it('keeps at most 100 paths, as the decoder keeps at most 100 errors', () => {
    const object = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`field${i}`, i]));
    const paths = findUnknownFields('', 'ConfigMap', object);
    expect(paths).to.have.length(100);
    expect(paths[99]).to.equal('field99');
  });

  it('returns [] for kinds without a schema', () => {
    expect(findUnknownFields('example.com', 'Widget', { spec: { anything: true } })).to.deep.equal([]);
    expect(findUnknownFields('', 'ReplicationController', { spec: { replicass: 1 } })).to.deep.equal([]);
    // Deployment lives in apps; the same kind name in another group is not it.
    expect(findUnknownFields('', 'Deployment', { spec: { replicass: 1 } })).to.deep.equal([]);
  });
});

describe('findUnknownFields of a kind whose versions differ', () => {
  const v1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 80,
    },
    status: { currentReplicas: 1, desiredReplicas: 2, currentCPUUtilizationPercentage: 40, lastScaleTime: null },
  };
  const v2 = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        {
          type: 'Object',
          object: {
            describedObject: { kind: 'Ingress', name: 'main' },
            metric: { name: 'hits', selector: { matchLabels: { a: 'b' } } },
            target: { type: 'Value', value: '1k' },
          },
        },
        {
          type: 'ContainerResource',
          containerResource: {
            name: 'memory',
            container: 'app',
            target: { type: 'AverageValue', averageValue: '1Gi' },
          },
        },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '30' } } },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }],
        },
      },
    },
    status: {
      currentReplicas: 1,
      desiredReplicas: 1,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 10, averageValue: '5m' } } },
      ],
      conditions: [
        { type: 'AbleToScale', status: 'True', lastTransitionTime: null, reason: 'ReadyForNewScale', message: 'ok' },
      ],
    },
  };

  it('checks each HorizontalPodAutoscaler version against its own fields', () => {
    expect(findUnknownFields('autoscaling', 'HorizontalPodAutoscaler', v1, 'v1')).to.deep.equal([]);
    expect(findUnknownFields('autoscaling', 'HorizontalPodAutoscaler', v2, 'v2')).to.deep.equal([]);
    expect(findUnknownFields('autoscaling', 'HorizontalPodAutoscaler', v1, 'v2')).to.deep.equal([
      'spec.targetCPUUtilizationPercentage',
      'status.currentCPUUtilizationPercentage',
    ]);
    expect(findUnknownFields('autoscaling', 'HorizontalPodAutoscaler', v2, 'v1')).to.deep.equal([
      'spec.metrics',
      'spec.behavior',
      'status.currentMetrics',
      'status.conditions',
    ]);
  });
});

describe('kindsWithFieldSchema', () => {
  it('lists every modelled kind as group/Kind, sorted', () => {
    const kinds = kindsWithFieldSchema();
    expect(kinds).to.have.length(31);
    expect(kinds).to.include.members([
      '/ConfigMap',
      'autoscaling/HorizontalPodAutoscaler',
      '/Event',
      '/Node',
      'apps/Deployment',
      'batch/CronJob',
      'coordination.k8s.io/Lease',
      'networking.k8s.io/IngressClass',
      'policy/PodDisruptionBudget',
      'rbac.authorization.k8s.io/ClusterRoleBinding',
      'scheduling.k8s.io/PriorityClass',
      'storage.k8s.io/StorageClass',
    ]);
    expect(kinds).to.deep.equal([...kinds].sort());
  });
});

describe('strictDecodingMessage', () => {
  it("words the Strict error as kube-apiserver's decoder does", () => {
    expect(strictDecodingMessage(['spec.foo', 'spec.template.spec.containers[0].imagee'])).to.equal(
      'strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].imagee"',
    );
  });

  it('quotes paths as Go does', () => {
    expect(unknownFieldMessage('spec.a"b\\c')).to.equal('unknown field "spec.a\\"b\\\\c"');
    expect(unknownFieldMessage('a\nb\u0001\u007f')).to.equal('unknown field "a\\nb\\x01\\x7f"');
    expect(unknownFieldMessage('café\u200b')).to.equal('unknown field "café\\u200b"');
  });
});
