/**
 * kube-apiserver 1.32's validation of the built-in kinds the devcluster checks beyond metadata
 * (apiserver/validation/kinds/), run as the registry runs it: after the devcluster's defaults.
 * Each case is a manifest mistake kube refuses, with the causes kubectl would print; each valid
 * object shows what must still pass.
 */
import { expect } from 'chai';
import { builtinValidator } from '../../apiserver/validation/kinds/builtin-kinds.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { applyDefaults } from '../../devcluster/defaults.js';

type Json = Record<string, any>;

/** `field: message` for each cause, as kubectl prints them, of the object as the devcluster stores it. */
function printed(group: string, object: Json, previous?: Json): string[] {
  const defaulted = structuredClone(object) as ApiObject;
  applyDefaults(group, object.kind, defaulted);
  const validate = builtinValidator(group, object.kind);
  if (!validate) throw new Error(`no validator for ${group}/${object.kind}`);
  return validate(defaulted, previous as ApiObject | undefined).map((cause) => `${cause.field}: ${cause.message}`);
}

/** What `with` changes, merged into a copy of `base` (objects merge, anything else replaces). */
function changed(base: Json, change: Json): Json {
  const copy = structuredClone(base);
  const merge = (target: Json, patch: Json) => {
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete target[key];
      else if (
        value &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        target[key] &&
        typeof target[key] === 'object'
      )
        merge(target[key], value);
      else target[key] = value;
    }
  };
  merge(copy, change);
  return copy;
}

const LABELS = { app: 'web' };
/** A copy each time: structuredClone keeps an object shared within one fixture shared. */
const labels = () => ({ ...LABELS });

function podTemplate(): Json {
  return {
    metadata: { labels: labels() },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/readyz', port: 'http', scheme: 'HTTPS' } },
          livenessProbe: { tcpSocket: { port: 8080 } },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: labels() } },
          ],
        },
      },
    },
  };
}

const deployment = (): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas: 3, selector: { matchLabels: labels() }, template: podTemplate() },
});

const statefulSet = (): Json => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    serviceName: 'db',
    replicas: 3,
    selector: { matchLabels: labels() },
    template: podTemplate(),
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }],
  },
});

describe('devcluster: kube validation of built-in kinds', () => {
  describe('Deployment', () => {
    it('accepts a well-formed Deployment (probes, ports, mounts and strategy defaulted as kube does)', () => {
      expect(printed('apps', deployment())).to.deep.equal([]);
      expect(printed('apps', changed(deployment(), { spec: { strategy: { type: 'RollingUpdate' } } }))).to.deep.equal(
        [],
      );
    });

    it('refuses a selector its template does not match, or none, or an empty one', () => {
      expect(
        printed('apps', changed(deployment(), { spec: { template: { metadata: { labels: { app: 'other' } } } } })),
      ).to.deep.equal([
        'spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`',
      ]);
      // kube's nil selector selects nothing, so the template "does not match" it either.
      expect(printed('apps', changed(deployment(), { spec: { selector: undefined } }))).to.deep.equal([
        'spec.selector: Required value',
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
      ]);
      const emptySelector = deployment();
      emptySelector.spec.selector = {};
      expect(printed('apps', emptySelector)).to.deep.equal([
        'spec.selector: Invalid value: {}: empty selector is invalid for deployment',
      ]);
    });

    it('refuses negative replicas, a strategy that can make no progress, and a template that does not always restart', () => {
      expect(
        printed(
          'apps',
          changed(deployment(), {
            spec: {
              replicas: -1,
              strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
              template: { spec: { restartPolicy: 'Never' } },
            },
          }),
        ),
      ).to.deep.equal([
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
      ]);
      expect(
        printed('apps', changed(deployment(), { spec: { strategy: { rollingUpdate: { maxUnavailable: '150%' } } } })),
      ).to.deep.equal([
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
      ]);
      expect(
        printed('apps', changed(deployment(), { spec: { strategy: { rollingUpdate: { maxSurge: 'lots' } } } })),
      ).to.deep.equal([
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"lots\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ]);
    });

    it("checks the template's containers: names, images, ports, probes and volume mounts", () => {
      const bad = deployment();
      bad.spec.template.spec.containers = [
        {
          name: 'Web',
          image: '',
          ports: [
            { name: 'http-port-number-one', containerPort: 70000 },
            { containerPort: 80, protocol: 'HTTP' },
          ],
          readinessProbe: { httpGet: { path: '/readyz', port: 8080 }, exec: { command: ['true'] } },
          livenessProbe: { periodSeconds: 10 },
          volumeMounts: [{ name: 'cache', mountPath: '/data' }],
        },
        { name: 'side', image: 'busybox', startupProbe: { httpGet: { port: '8080' } } },
        { name: 'side', image: 'busybox' },
      ];
      expect(printed('apps', bad)).to.deep.equal([
        "spec.template.spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'spec.template.spec.containers[0].image: Required value',
        'spec.template.spec.containers[0].ports[0].name: Invalid value: "http-port-number-one": must be no more than 15 characters',
        'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.template.spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "cache"',
        'spec.template.spec.containers[0].livenessProbe: Required value: must specify a handler type',
        'spec.template.spec.containers[0].readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type',
        'spec.template.spec.containers[1].startupProbe.httpGet.port: Invalid value: "8080": must contain at least one letter (a-z)',
        'spec.template.spec.containers[2].name: Duplicate value: "side"',
      ]);
    });

    it('checks volumes (one source, a secret named, a file mode in range) and pod anti-affinity terms', () => {
      const bad = deployment();
      bad.spec.template.spec.volumes = [
        { name: 'data', emptyDir: {}, secret: { secretName: 'x' } },
        { name: 'ca', secret: { defaultMode: 1000 } },
      ];
      bad.spec.template.spec.containers[0].volumeMounts = [{ name: 'ca', mountPath: '/ca' }];
      bad.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey =
        '';
      expect(printed('apps', bad)).to.deep.equal([
        'spec.template.spec.volumes[0].secret: Forbidden: may not specify more than 1 volume type',
        'spec.template.spec.volumes[1].secret.secretName: Required value',
        'spec.template.spec.volumes[1].secret.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive',
        'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "ca"',
        'spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
        'spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty',
        "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ]);
    });
  });

  describe('StatefulSet', () => {
    it('accepts one whose claim template has no access modes and whose containers have no image: kube 1.32 does not validate either (kubernetes#132211)', () => {
      const sts = statefulSet();
      sts.spec.template.spec.containers[0].image = '';
      expect(printed('apps', sts)).to.deep.equal([]);
    });

    it('refuses a selector its template does not match, an unknown pod management policy or update strategy', () => {
      expect(
        printed(
          'apps',
          changed(statefulSet(), {
            spec: {
              selector: { matchLabels: { app: 'db' } },
              podManagementPolicy: 'AllAtOnce',
              updateStrategy: { type: 'Rolling' },
            },
          }),
        ),
      ).to.deep.equal([
        "spec.podManagementPolicy: Invalid value: \"AllAtOnce\": must be 'OrderedReady' or 'Parallel'",
        'spec.updateStrategy: Invalid value: {"type":"Rolling"}: must be \'RollingUpdate\' or \'OnDelete\'',
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
      ]);
    });
  });

  describe('PersistentVolumeClaim (what the StatefulSet controller makes of a claim template)', () => {
    const claim = (spec: Json): Json => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-db-0', namespace: 'default' },
      spec,
    });

    it('accepts a claim with an access mode and a storage request', () => {
      expect(
        printed('', claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } })),
      ).to.deep.equal([]);
    });

    it('refuses one without access modes or a storage request, with an unknown mode, or asking for nothing', () => {
      expect(printed('', claim({}))).to.deep.equal([
        'spec.accessModes: Required value: at least 1 access mode is required',
        'spec.resources[storage]: Required value',
      ]);
      expect(
        printed('', claim({ accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '0Gi' } } })),
      ).to.deep.equal([
        'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
        'spec.resources[storage]: Invalid value: "0Gi": must be greater than zero',
      ]);
    });
  });

  describe('Service', () => {
    const service = (spec: Json): Json => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec,
    });

    it('accepts named ports with a port name as target, and a headless Service without ports', () => {
      expect(
        printed(
          '',
          service({
            type: 'LoadBalancer',
            selector: LABELS,
            ports: [
              { name: 'https', port: 443, targetPort: 'https' },
              { name: 'dns', port: 443, protocol: 'UDP' },
            ],
          }),
        ),
      ).to.deep.equal([]);
      expect(printed('', service({ clusterIP: 'None', selector: LABELS }))).to.deep.equal([]);
    });

    it('refuses a Service without ports, and ports out of range, unnamed among several, duplicated or of an unknown protocol', () => {
      expect(printed('', service({ selector: LABELS }))).to.deep.equal(['spec.ports: Required value']);
      expect(
        printed(
          '',
          service({
            ports: [
              { name: 'web', port: 70000, targetPort: 'web-port-number-one' },
              { port: 80, targetPort: 0 },
              { name: 'web', port: 81, protocol: 'HTTP', nodePort: 30080 },
              { name: 'again', port: 70000 },
            ],
          }),
        ),
      ).to.deep.equal([
        'spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[0].targetPort: Invalid value: "web-port-number-one": must be no more than 15 characters',
        'spec.ports[1].name: Required value',
        'spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.ports[2].name: Duplicate value: "web"',
        'spec.ports[2].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        "spec.ports[2].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
        'spec.ports[3].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
        // The target port is defaulted to the port, as kube does, and so refused with it.
        'spec.ports[3].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.ports[3]: Duplicate value: {"protocol":"TCP","port":70000}',
      ]);
    });

    it("refuses an unknown type, a headless LoadBalancer, and the kubelet's port on a load balancer", () => {
      expect(printed('', service({ type: 'Ingress', ports: [{ port: 80 }] }))).to.deep.equal([
        'spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ]);
      expect(printed('', service({ type: 'LoadBalancer', clusterIP: 'None', ports: [{ port: 10250 }] }))).to.deep.equal(
        [
          'spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet',
          'spec.clusterIP: Invalid value: "None": may not be set to \'None\' for LoadBalancer services',
        ],
      );
    });
  });

  describe('PodDisruptionBudget', () => {
    const pdb = (spec: Json): Json => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec,
    });

    it('accepts maxUnavailable or minAvailable, as a number or a percent', () => {
      expect(printed('policy', pdb({ maxUnavailable: 1, selector: { matchLabels: LABELS } }))).to.deep.equal([]);
      expect(printed('policy', pdb({ minAvailable: '50%', selector: { matchLabels: LABELS } }))).to.deep.equal([]);
    });

    it('refuses both at once, a negative number, a percent over 100 and a malformed selector', () => {
      expect(
        printed(
          'policy',
          pdb({
            minAvailable: -1,
            maxUnavailable: '101%',
            selector: { matchExpressions: [{ key: 'app', operator: 'In' }] },
          }),
        ),
      ).to.deep.equal([
        'spec: Invalid value: {"minAvailable":-1,"maxUnavailable":"101%","selector":{"matchExpressions":[{"key":"app","operator":"In"}]}}: minAvailable and maxUnavailable cannot be both set',
        'spec.minAvailable: Invalid value: -1: must be greater than or equal to 0',
        'spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%',
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ]);
    });
  });

  describe('RBAC', () => {
    const clusterRole = (rules: Json[]): Json => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
      rules,
    });

    it('accepts resource rules and non-resource rules in a ClusterRole', () => {
      expect(
        printed(
          'rbac.authorization.k8s.io',
          clusterRole([
            { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
            { nonResourceURLs: ['/healthz'], verbs: ['get'] },
          ]),
        ),
      ).to.deep.equal([]);
    });

    it('refuses rules without verbs, resource rules without groups or resources, and rules mixing both kinds', () => {
      expect(
        printed(
          'rbac.authorization.k8s.io',
          clusterRole([
            { apiGroups: [''], resources: ['pods'] },
            { verbs: ['get'] },
            { apiGroups: [''], resources: ['pods'], nonResourceURLs: ['/healthz'], verbs: ['get'] },
          ]),
        ),
      ).to.deep.equal([
        'rules[0].verbs: Required value: verbs must contain at least one value',
        'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
        'rules[1].resources: Required value: resource rules must supply at least one resource',
        'rules[2].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs',
      ]);
      expect(
        printed('rbac.authorization.k8s.io', {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'r', namespace: 'default' },
          rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
        }),
      ).to.deep.equal([
        'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
      ]);
    });

    const binding = (change: Json = {}): Json =>
      changed(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'readers' },
          roleRef: { kind: 'ClusterRole', name: 'reader' },
          subjects: [
            { kind: 'User', name: 'alice' },
            { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
          ],
        },
        change,
      );

    it('accepts a binding whose roleRef and User subjects leave their group to the defaults', () => {
      expect(printed('rbac.authorization.k8s.io', binding())).to.deep.equal([]);
    });

    it('refuses a Role in a ClusterRoleBinding, a ServiceAccount without a namespace, an unknown subject kind, and a changed roleRef', () => {
      expect(
        printed(
          'rbac.authorization.k8s.io',
          binding({
            roleRef: { kind: 'Role' },
            subjects: [
              { kind: 'ServiceAccount', name: 'robot' },
              { kind: 'Team', name: 'ops' },
            ],
          }),
        ),
      ).to.deep.equal([
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        'subjects[0].namespace: Required value',
        'subjects[1].kind: Unsupported value: "Team": supported values: "ServiceAccount", "User", "Group"',
      ]);
      const stored = binding();
      applyDefaults('rbac.authorization.k8s.io', 'ClusterRoleBinding', stored as ApiObject);
      expect(printed('rbac.authorization.k8s.io', binding({ roleRef: { name: 'writer' } }), stored)).to.deep.equal([
        'roleRef: Invalid value: {"kind":"ClusterRole","name":"writer","apiGroup":"rbac.authorization.k8s.io"}: cannot change roleRef',
      ]);
    });
  });
});
