import { POD_KINDS } from '../../translate/kinds/pod-spec.js';
import { expect } from 'chai';
import { tenantContext, TranslationError } from '../../translate/context.js';
import { EACH, violations } from '../../translate/kinds/invariants.js';
import { invariantsOf, KINDS, protobufFieldsOf } from '../../translate/kinds/kind-records.js';
import { objectDown, objectUp } from '../../translate/objects.js';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import { patchUp } from '../../translate/patch.js';
import type { FieldRule, MessageFields } from '../../translate/protobuf-fields.js';
import { checkStored, normalizedStored, storedObjectUp } from '../../translate/stored-object.js';
import { kindScope } from '../support/kind-scope.js';

type Json = Record<string, any>;

const A = tenantContext('aaaaaa', kindScope());
const P = A.prefix;
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');
const fieldsOf = (object: Json) =>
  violations(A, object, invariantsOf(A, groupOf(object.apiVersion), object.kind)).map((v) => v.field);

const webhookConfiguration = (webhook: Json) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: `${P}hook` },
  webhooks: [{ name: 'a.example.com', ...webhook }],
});
const tenantRequirement = { key: 'kubezoo.io/tenant', operator: 'In', values: ['aaaaaa'] };
const safeWebhook = {
  clientConfig: { service: { namespace: `${P}web`, name: 'hook' } },
  namespaceSelector: { matchExpressions: [tenantRequirement] },
  rules: [{ scope: 'Namespaced' }],
};

const podSpec = () => ({
  priorityClassName: 'high',
  runtimeClassName: 'gvisor',
  volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'fast' } } } }],
});
const subjects = () => [
  { kind: 'User', name: 'bob' },
  { kind: 'Group', name: 'system:authenticated' },
  { kind: 'ServiceAccount', namespace: 'dev', name: 'sa' },
];
const webhooks = () => [
  {
    name: 'a.example.com',
    clientConfig: { service: { namespace: 'dev', name: 'h' } },
    rules: [{ scope: '*' }],
    namespaceSelector: { matchLabels: { a: 'b' } },
  },
  { name: 'b.example.com', clientConfig: { service: { namespace: 'dev', name: 'h' } } },
];

/**
 * Tenant objects of every kind with invariants (every kind of kinds/kind-records.ts that has some:
 * a test below holds this list to the table), with every isolation-critical field set.
 */
const TENANT_OBJECTS: Json[] = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev' } },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv', annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } },
    spec: {
      claimRef: { namespace: 'dev', name: 'data' },
      storageClassName: 'fast',
      csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { name: 's', namespace: 'dev' } },
      rbd: { secretRef: { name: 's', namespace: 'dev' } },
      iscsi: { secretRef: { name: 's', namespace: 'dev' } },
      cephfs: { secretRef: { name: 's', namespace: 'dev' } },
      cinder: { secretRef: { name: 's', namespace: 'dev' } },
      flexVolume: { secretRef: { name: 's', namespace: 'dev' } },
      scaleIO: { secretRef: { name: 's', namespace: 'dev' } },
      storageos: { secretRef: { name: 's', namespace: 'dev' } },
      azureFile: { secretName: 's', secretNamespace: 'dev' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'dev' },
    spec: {
      volumeName: 'pv',
      storageClassName: 'fast',
      dataSource: { kind: 'PersistentVolumeClaim', name: 'old' },
      dataSourceRef: { apiGroup: 'snapshot.example.com', kind: 'Snap', name: 's', namespace: 'other' },
    },
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'fast' },
    provisioner: 'csi.example.com',
    parameters: {
      'csi.storage.k8s.io/provisioner-secret-namespace': 'dev',
      'csi.storage.k8s.io/node-stage-secret-namespace': '${pvc.namespace}',
      adminSecretNamespace: 'dev',
      pool: 'p',
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'dev',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u' }],
    },
    spec: {
      priorityClassName: 'high',
      runtimeClassName: 'gvisor',
      volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { spec: { storageClassName: 'fast' } } } }],
    },
  },
  { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't', namespace: 'dev' }, template: { spec: podSpec() } },
  ...(
    [
      ['v1', 'ReplicationController'],
      ['apps/v1', 'Deployment'],
      ['apps/v1', 'ReplicaSet'],
      ['apps/v1', 'DaemonSet'],
      ['batch/v1', 'Job'],
    ] as const
  ).map(([apiVersion, kind]) => ({
    apiVersion,
    kind,
    metadata: { name: 'w', namespace: 'dev' },
    spec: { template: { spec: podSpec() } },
  })),
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 's', namespace: 'dev' },
    spec: {
      template: { spec: { priorityClassName: 'high' } },
      volumeClaimTemplates: [{ spec: { storageClassName: 'fast', volumeName: 'pv' } }],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'r', namespace: 'dev' },
    data: { spec: { template: { spec: podSpec(), $patch: 'replace' } } },
    revision: 1,
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'dev' },
    spec: { jobTemplate: { spec: { template: { spec: { runtimeClassName: 'gvisor' } } } } },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'i', namespace: 'dev' },
    spec: { ingressClassName: 'nginx' },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'nginx' },
    spec: {
      controller: 'c',
      parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p', scope: 'Namespace', namespace: 'dev' },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'cluster' },
    spec: { controller: 'c', parameters: { apiGroup: 'k8s.example.com', kind: 'ClusterParams', name: 'p' } },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'r' },
    rules: [{ apiGroups: ['', 'stable.example.com', '*'], resources: ['*'], verbs: ['*'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'r', namespace: 'dev' },
    rules: [{ apiGroups: ['', 'stable.example.com', '*'], resources: ['*'], verbs: ['*'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'b' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
    subjects: subjects(),
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'b', namespace: 'dev' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    subjects: subjects(),
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'dev', name: 'conv' } } } },
    },
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'hook' },
    webhooks: webhooks(),
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'hook' },
    webhooks: webhooks(),
  },
  { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { audiences: ['vault', 'api'] } },
];

/** Upstream objects (already converted) that would leave tenant aaaaaa, and the fields that say so. */
const UNSAFE: [string, Json, string[]][] = [
  [
    'a Namespace without the tenant label',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${P}dev`, labels: {} } },
    ['metadata.labels.kubezoo.io/tenant'],
  ],
  [
    'a Namespace labelled for another tenant',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${P}dev`, labels: { 'kubezoo.io/tenant': 'bbbbbb' } } },
    ['metadata.labels.kubezoo.io/tenant'],
  ],
  [
    'a Namespace without the prefix',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { 'kubezoo.io/tenant': 'aaaaaa' } } },
    ['metadata.name'],
  ],
  [
    'a webhook without a namespaceSelector',
    webhookConfiguration({ ...safeWebhook, namespaceSelector: undefined }),
    ['webhooks[0].namespaceSelector'],
  ],
  [
    'a webhook whose selector lost the tenant requirement',
    webhookConfiguration({
      ...safeWebhook,
      namespaceSelector: { matchExpressions: [{ key: 'kubezoo.io/tenant', operator: 'NotIn', values: ['aaaaaa'] }] },
    }),
    ['webhooks[0].namespaceSelector'],
  ],
  [
    'a webhook rule of cluster scope',
    webhookConfiguration({ ...safeWebhook, rules: [{ scope: 'Namespaced' }, { scope: '*' }] }),
    ['webhooks[0].rules[1].scope'],
  ],
  [
    'a webhook rule without a scope',
    webhookConfiguration({ ...safeWebhook, rules: [{}] }),
    ['webhooks[0].rules[0].scope'],
  ],
  [
    'a webhook service in another tenant\u2019s namespace',
    webhookConfiguration({ ...safeWebhook, clientConfig: { service: { namespace: 'bbbbbb-web', name: 'h' } } }),
    ['webhooks[0].clientConfig.service.namespace'],
  ],
  [
    'a webhook by URL',
    webhookConfiguration({ ...safeWebhook, clientConfig: { url: 'https://evil' } }),
    ['webhooks[0].clientConfig.url'],
  ],
  [
    'a PV claimRef into another tenant\u2019s namespace',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `${P}pv` },
      spec: { claimRef: { namespace: 'bbbbbb-dev', name: 'data' } },
    },
    ['spec.claimRef'],
  ],
  [
    'a PV of an unprefixed StorageClass',
    { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `${P}pv` }, spec: { storageClassName: 'fast' } },
    ['spec.storageClassName'],
  ],
  [
    'a PV iSCSI secret in another namespace',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `${P}pv` },
      spec: { iscsi: { secretRef: { name: 's', namespace: 'kube-system' } } },
    },
    ['spec.iscsi.secretRef.namespace'],
  ],
  [
    'a PV azureFile secret namespace',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `${P}pv` },
      spec: { azureFile: { secretNamespace: 'kube-system' } },
    },
    ['spec.azureFile.secretNamespace'],
  ],
  [
    'a PVC bound to a PV not the tenant\u2019s',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'd', namespace: `${P}dev` },
      spec: { volumeName: 'pv-other', storageClassName: 'gold' },
    },
    ['spec.volumeName', 'spec.storageClassName'],
  ],
  [
    'a PVC cloned from another tenant\u2019s namespace',
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'd', namespace: `${P}dev` },
      spec: { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'x', namespace: 'bbbbbb-dev' } },
    },
    ['spec.dataSourceRef'],
  ],
  [
    'a StorageClass reading secrets of kube-system',
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: `${P}fast` },
      parameters: { 'csi.storage.k8s.io/provisioner-secret-namespace': 'kube-system' },
    },
    ['parameters'],
  ],
  [
    'a StorageClass without the prefix',
    { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' } },
    ['metadata.name'],
  ],
  [
    'a ConfigMap in another tenant\u2019s namespace',
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'bbbbbb-dev' } },
    ['metadata.namespace'],
  ],
  [
    'an owner reference to an unprefixed ClusterRole',
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: `${P}dev`,
        ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'admin', uid: 'u' }],
      },
    },
    ['metadata.ownerReferences[0]'],
  ],
  [
    'a binding to another tenant\u2019s user and role',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: `${P}dev` },
      roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [
        { kind: 'User', name: 'bbbbbb-bob' },
        { kind: 'ServiceAccount', namespace: 'kube-system', name: 'x' },
      ],
    },
    ['subjects[0]', 'subjects[1]', 'roleRef'],
  ],
  [
    'a Role over another tenant\u2019s API group',
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: `${P}dev` },
      rules: [{ apiGroups: ['bbbbbb-stable.example.com'] }],
    },
    ['rules[0].apiGroups[0]'],
  ],
  [
    'a CRD in another tenant\u2019s group',
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.bbbbbb-stable.example.com' },
      spec: { group: 'bbbbbb-stable.example.com' },
    },
    ['metadata.name', 'spec.group'],
  ],
  [
    'a Pod of another tenant\u2019s PriorityClass',
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: `${P}dev` },
      spec: { priorityClassName: 'bbbbbb-high' },
    },
    ['spec.priorityClassName'],
  ],
  [
    'a ControllerRevision recording another tenant\u2019s RuntimeClass',
    {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r', namespace: `${P}dev` },
      data: { spec: { template: { spec: { runtimeClassName: 'bbbbbb-gvisor' } } } },
    },
    ['data.spec.template.spec.runtimeClassName'],
  ],
  [
    'an IngressClass with parameters in another namespace',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: `${P}i` },
      spec: { parameters: { kind: 'P', name: 'p', scope: 'Namespace', namespace: 'kube-system' } },
    },
    ['spec.parameters'],
  ],
  [
    'a token for another tenant\u2019s audience',
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: { audiences: [`${P}vault`, 'bbbbbb-vault'] },
    },
    ['spec.audiences[1]'],
  ],
];

/** The JSON paths a protobuf field table reaches (EACH for repeated fields); a map reaches every key (`*`). */
function protobufPaths(fields: MessageFields, prefix: string[] = []): string[] {
  const paths: string[] = [];
  const add = (rule: FieldRule) => {
    if (rule.type === 'inline') return Object.values(rule.fields).forEach(add);
    const path = [...prefix, rule.name];
    paths.push(path.join('/'));
    if (rule.type === 'message' && rule.repeated) paths.push([...path, EACH].join('/'));
    if (rule.type === 'message') paths.push(...protobufPaths(rule.fields, rule.repeated ? [...path, EACH] : path));
    if (rule.type === 'strings') paths.push([...path, EACH].join('/'));
    if (rule.type === 'stringMap') paths.push([...path, '*'].join('/'));
  };
  Object.values(fields).forEach(add);
  return paths;
}

const covers = (paths: string[], path: readonly string[]) =>
  paths.includes(path.join('/')) || paths.includes([...path.slice(0, -1), '*'].join('/'));

describe('translate: isolation invariants (kinds/invariants.ts, kinds/kind-records.ts)', () => {
  describe('every converted tenant object keeps them', () => {
    it('has a tenant object of every kind of kinds/kind-records.ts with invariants', () => {
      const covered = new Set(TENANT_OBJECTS.map((object) => `${groupOf(object.apiVersion)}/${object.kind}`));
      const withInvariants = [...KINDS].filter(([, record]) => record.invariants.length > 0).map(([key]) => key);
      expect(withInvariants).not.to.deep.equal([]);
      expect(withInvariants.filter((key) => !covered.has(key))).to.deep.equal([]);
    });

    for (const object of TENANT_OBJECTS) {
      it(`${object.kind} ${object.metadata.name ?? ''}`, () => {
        const upstream = objectUp(A, object);
        expect(fieldsOf(upstream)).to.deep.equal([]);
        expect(() => checkStored(A, { group: groupOf(object.apiVersion), kind: object.kind }, upstream)).not.to.throw();
        expect(storedObjectUp(A, { group: groupOf(object.apiVersion), kind: object.kind }, object)).to.deep.equal(
          upstream,
        );
      });
    }

    it('storedObjectUp checks the type the URL writes, whatever kind the body claims', () => {
      const disguised = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', namespace: 'dev' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', name: 'system:authenticated' }],
      };
      expect(() => storedObjectUp(A, { group: '', kind: 'ConfigMap' }, disguised)).not.to.throw();
      expect(() => storedObjectUp(A, { group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' }, disguised))
        .to.throw(TranslationError, 'subjects[0]')
        .with.property('code', 403);
    });
  });

  describe('objects that would leave the tenant break them', () => {
    for (const [title, object, fields] of UNSAFE) {
      it(title, () => {
        expect(fieldsOf(object)).to.deep.equal(fields);
        try {
          checkStored(A, { group: groupOf(object.apiVersion), kind: object.kind, name: 'x' }, object);
          expect.fail('not refused');
        } catch (err) {
          expect(err).to.be.instanceOf(TranslationError);
          expect((err as TranslationError).code).to.equal(403);
          for (const field of fields) expect((err as TranslationError).message).to.include(field);
        }
      });
    }
  });

  describe('normalization', () => {
    it('re-adds the tenant requirement and the Namespaced scope of a webhook, keeping what the tenant selected', () => {
      const stored = webhookConfiguration({
        ...safeWebhook,
        namespaceSelector: { matchLabels: { team: 'a' } },
        rules: [{ scope: '*', operations: ['CREATE'] }],
      });
      const fixed = normalizedStored(
        A,
        { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' },
        stored,
      )!;
      expect(fixed.webhooks[0].namespaceSelector).to.deep.equal({
        matchLabels: { team: 'a' },
        matchExpressions: [tenantRequirement],
      });
      expect(fixed.webhooks[0].rules).to.deep.equal([{ scope: 'Namespaced', operations: ['CREATE'] }]);
      expect((stored.webhooks[0] as Json).namespaceSelector).to.deep.equal({ matchLabels: { team: 'a' } });
    });
    it('re-adds the tenant label of a Namespace whose labels are gone', () => {
      const fixed = normalizedStored(
        A,
        { group: '', kind: 'Namespace' },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${P}dev` } },
      )!;
      expect(fixed.metadata.labels).to.deep.equal({ 'kubezoo.io/tenant': 'aaaaaa' });
    });
    it('leaves an object that holds alone, and refuses what only a guess could fix', () => {
      expect(
        normalizedStored(
          A,
          { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' },
          webhookConfiguration(safeWebhook),
        ),
      ).to.equal(undefined);
      expect(() =>
        normalizedStored(
          A,
          { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' },
          webhookConfiguration({ namespaceSelector: undefined, clientConfig: { url: 'https://x' } }),
        ),
      ).to.throw(TranslationError, 'webhooks[0].clientConfig.url');
    });
  });

  describe('JSON patch copy and move of isolation-critical fields are refused before anything is sent', () => {
    const refused: [string, string, Json[]][] = [
      ['v1', 'PersistentVolume', [{ op: 'copy', from: '/metadata/labels/ns', path: '/spec/claimRef/namespace' }]],
      ['v1', 'PersistentVolume', [{ op: 'move', from: '/spec/claimRef', path: '/metadata/annotations/x' }]],
      [
        'admissionregistration.k8s.io/v1',
        'ValidatingWebhookConfiguration',
        [{ op: 'move', from: '/webhooks/0/namespaceSelector', path: '/webhooks/1/namespaceSelector' }],
      ],
      [
        'admissionregistration.k8s.io/v1',
        'ValidatingWebhookConfiguration',
        [{ op: 'copy', from: '/metadata/annotations/u', path: '/webhooks/0/clientConfig/url' }],
      ],
      [
        'admissionregistration.k8s.io/v1',
        'ValidatingWebhookConfiguration',
        [{ op: 'copy', from: '/webhooks/0', path: '/webhooks/-' }],
      ],
      ['v1', 'Namespace', [{ op: 'move', from: '/metadata/labels', path: '/metadata/annotations' }]],
      ['v1', 'ConfigMap', [{ op: 'copy', from: '/data/name', path: '/metadata/ownerReferences/0/name' }]],
      [
        'rbac.authorization.k8s.io/v1',
        'RoleBinding',
        [{ op: 'copy', from: '/metadata/name', path: '/subjects/0/name' }],
      ],
      ['storage.k8s.io/v1', 'StorageClass', [{ op: 'copy', from: '/metadata/annotations/a', path: '/parameters' }]],
    ];
    for (const [apiVersion, kind, patch] of refused) {
      it(`${kind}: ${JSON.stringify(patch)}`, () => {
        expect(() => patchUp(A, 'application/json-patch+json', patch, apiVersion, kind)).to.throw(
          TranslationError,
          'forbidden',
        );
      });
    }
    it('copies and moves elsewhere, and other operations, still go up', () => {
      const patch = [
        { op: 'copy', from: '/data/a', path: '/data/b' },
        { op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/b' },
        { op: 'remove', path: '/spec/claimRef' },
      ];
      expect(patchUp(A, 'application/json-patch+json', patch, 'v1', 'PersistentVolume')).to.deep.equal(patch);
    });
  });

  describe('the record of each kind', () => {
    it('names protobuf fields for every field its invariants read, so protobuf bodies are checked as JSON ones', () => {
      // Every record of the table, in each version it has protobuf fields for; and a kind without a
      // record (ConfigMap), whose fields are metadata's alone.
      const types = [
        ...[...KINDS].flatMap(([key, record]) => {
          const slash = key.lastIndexOf('/');
          const [group, kind] = [key.slice(0, slash), key.slice(slash + 1)];
          return Object.keys(record.protobuf).map((version) => [group, kind, version] as const);
        }),
        ['', 'ConfigMap', 'v1'] as const,
      ];
      expect(types.length).to.be.greaterThan(1);
      for (const [group, kind, version] of types) {
        const apiVersion = group ? `${group}/${version}` : version;
        const fields = protobufFieldsOf(apiVersion, kind);
        expect(fields, kind).not.to.equal(undefined);
        const paths = protobufPaths(fields!);
        for (const invariant of invariantsOf(A, group, kind)) {
          // Pods and templates go up as JSON only (body-up.ts, protobuf-body.ts refuses them): their
          // automount invariant, a boolean, has no protobuf table to name it.
          if (POD_KINDS.has(`${group}/${kind}`) && invariant.path.at(-1) === 'automountServiceAccountToken') continue;
          expect(covers(paths, invariant.path), `${kind} ${invariant.path.join('.')}`).to.equal(true);
        }
      }
    });
  });

  describe('conversions of the same class', () => {
    const round = (object: Json) => {
      const up = objectUp(A, object);
      expect(objectDown(A, up)).to.deep.equal(object);
      return up;
    };
    it('PVC dataSource and dataSourceRef: namespace prefixed, cluster-scoped names prefixed, tenant groups prefixed', () => {
      const up = round({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'd', namespace: 'dev' },
        spec: {
          dataSource: { kind: 'PersistentVolumeClaim', name: 'old' },
          dataSourceRef: { apiGroup: 'stable.example.com', kind: 'CronTab', name: 'c', namespace: 'other' },
        },
      });
      expect(up.spec.dataSource).to.deep.equal({ kind: 'PersistentVolumeClaim', name: 'old' });
      expect(up.spec.dataSourceRef).to.deep.equal({
        apiGroup: `${P}stable.example.com`,
        kind: 'CronTab',
        name: 'c',
        namespace: `${P}other`,
      });
      const cluster = round({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'd', namespace: 'dev' },
        spec: { dataSourceRef: { kind: 'PersistentVolume', name: 'pv' } },
      });
      expect(cluster.spec.dataSourceRef.name).to.equal(`${P}pv`);
    });
    it('IngressClass parameters: the namespace of a Namespace scope, the name of a Cluster scope', () => {
      expect(
        round({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'IngressClass',
          metadata: { name: 'n' },
          spec: { parameters: { kind: 'P', name: 'p', scope: 'Namespace', namespace: 'dev' } },
        }).spec.parameters,
      ).to.deep.equal({ kind: 'P', name: 'p', scope: 'Namespace', namespace: `${P}dev` });
      expect(
        round({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'IngressClass',
          metadata: { name: 'n' },
          spec: { parameters: { apiGroup: 'stable.example.com', kind: 'P', name: 'p' } },
        }).spec.parameters,
      ).to.deep.equal({ apiGroup: `${P}stable.example.com`, kind: 'P', name: `${P}p` });
    });
    it('PV secret references of every volume plugin, and StorageClass secret-namespace parameters', () => {
      const pv = round(TENANT_OBJECTS[1]);
      for (const plugin of ['rbd', 'iscsi', 'cinder', 'cephfs', 'flexVolume', 'scaleIO', 'storageos'])
        expect(pv.spec[plugin].secretRef.namespace, plugin).to.equal(`${P}dev`);
      expect(pv.spec.azureFile.secretNamespace).to.equal(`${P}dev`);
      const sc = round(TENANT_OBJECTS[3]);
      expect(sc.parameters).to.deep.equal({
        'csi.storage.k8s.io/provisioner-secret-namespace': `${P}dev`,
        'csi.storage.k8s.io/node-stage-secret-namespace': '${pvc.namespace}',
        adminSecretNamespace: `${P}dev`,
        pool: 'p',
      });
      expect(() =>
        objectUp(A, {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'x' },
          parameters: { 'csi.storage.k8s.io/node-publish-secret-namespace': "${pvc.annotations['ns']}" },
        }),
      ).to.throw(TranslationError, '${pvc.namespace}');
    });
    it('TokenRequest audiences carry the prefix; none (the API server\u2019s own) is the gateway\u2019s, which comes back down as none', () => {
      const up = (spec: Json | undefined) =>
        objectUp(A, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', ...(spec ? { spec } : {}) }).spec;
      expect(up({ audiences: ['vault'] }).audiences).to.deep.equal([`${P}vault`]);
      expect(up({ audiences: [] }).audiences).to.deep.equal([GATEWAY_AUDIENCE]);
      expect(up({ expirationSeconds: 600 })).to.deep.equal({ expirationSeconds: 600, audiences: [GATEWAY_AUDIENCE] });
      expect(up(undefined)).to.deep.equal({ audiences: [GATEWAY_AUDIENCE] });
      const answer = objectDown(A, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { name: `${P}ci`, namespace: `${P}dev` },
        spec: { audiences: [GATEWAY_AUDIENCE, `${P}vault`, 'bbbbbb-vault'] },
      });
      expect(answer?.spec.audiences).to.deep.equal(['vault']);
    });
    it('the gateway\u2019s audience is no tenant\u2019s: no tenant prefix makes it', () => {
      expect(GATEWAY_AUDIENCE[6]).not.to.equal('-');
      expect(
        objectUp(A, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { audiences: [GATEWAY_AUDIENCE] },
        }).spec.audiences,
      ).to.deep.equal([`${P}${GATEWAY_AUDIENCE}`]);
    });
  });
});
