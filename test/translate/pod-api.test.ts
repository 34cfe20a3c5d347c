import { expect } from 'chai';
import { goJsonMarshalUnstructured } from '../../apiserver/go-json/marshal.js';
import {
  podApiAdding,
  tenantContext,
  TranslationError,
  type PodApi,
  type TenantContext,
} from '../../translate/context.js';
import { collectionDown } from '../../translate/list-text.js';
import { objectDown, objectUp } from '../../translate/objects.js';
import { patchUp } from '../../translate/patch.js';
import { checkStored, normalizedStored } from '../../translate/stored-object.js';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import { setGatewayToken } from '../../translate/kinds/pod-api.js';
import { kindScope } from '../support/kind-scope.js';

type Json = Record<string, any>;

const CA = '-----BEGIN CERTIFICATE-----\nMIIBgateway\n-----END CERTIFICATE-----\n';
const API: PodApi = { host: '10.0.0.7', port: 6443, ip: '10.0.0.7', caPem: CA, adds: 'all' };
const A: TenantContext = { ...tenantContext('aaaaaa', kindScope()), podApi: API };
const B: TenantContext = { ...tenantContext('bbbbbb', kindScope()), podApi: API };
const TOKEN_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

const GATEWAY_VARIABLES = [
  { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
  { name: 'KUBERNETES_SERVICE_PORT_HTTPS', value: '6443' },
  { name: 'KUBERNETES_PORT', value: 'tcp://10.0.0.7:6443' },
  { name: 'KUBERNETES_PORT_6443_TCP', value: 'tcp://10.0.0.7:6443' },
  { name: 'KUBERNETES_PORT_6443_TCP_PROTO', value: 'tcp' },
  { name: 'KUBERNETES_PORT_6443_TCP_PORT', value: '6443' },
  { name: 'KUBERNETES_PORT_6443_TCP_ADDR', value: '10.0.0.7' },
];

/** kube 1.32's token volume as its admission adds it, and as the gateway shows the one it added. */
const kubeTokenVolume = (name: string) => ({
  name,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  },
});

/** The same volume upstream: a token for the gateway, its CA and the tenant's namespace name from the pod's annotations. */
const gatewayTokenVolume = (name: string) => ({
  name,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token', audience: GATEWAY_AUDIENCE } },
      {
        downwardAPI: {
          items: [
            { path: 'ca.crt', fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['paddock.io/api-ca']" } },
          ],
        },
      },
      {
        downwardAPI: {
          items: [
            {
              path: 'namespace',
              fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['paddock.io/namespace']" },
            },
          ],
        },
      },
    ],
  },
});

const tenantPod = (): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'op', namespace: 'dev', annotations: { team: 'blue' } },
  spec: {
    initContainers: [{ name: 'setup', image: 'busybox' }],
    containers: [
      { name: 'main', image: 'op', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'mine.example' }] },
      { name: 'side', image: 'op', volumeMounts: [{ name: 'own', mountPath: TOKEN_DIR }] },
    ],
    volumes: [{ name: 'own', emptyDir: {} }],
  },
});

const deployment = (template: Json): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'op', namespace: 'dev' },
  spec: { selector: { matchLabels: { app: 'op' } }, template },
});

describe('translate: pods pointed at the gateway (kinds/pod-api)', () => {
  describe('a pod up', () => {
    const up = objectUp(A, tenantPod());

    it('gives every container and init container the kubernetes Service’s variables for the gateway, its own winning', () => {
      expect(up.spec.initContainers[0].env).to.deep.equal([
        { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.7' },
        ...GATEWAY_VARIABLES,
      ]);
      expect(up.spec.containers[0].env).to.deep.equal([
        { name: 'KUBERNETES_SERVICE_HOST', value: 'mine.example' },
        ...GATEWAY_VARIABLES,
      ]);
    });

    it('adds kube’s token volume for the gateway: its audience, its CA and the namespace’s own name, from annotations', () => {
      expect(up.spec.volumes).to.deep.equal([
        { name: 'own', emptyDir: {} },
        gatewayTokenVolume('kube-api-access-pddck'),
      ]);
      expect(up.metadata.annotations).to.deep.equal({
        team: 'blue',
        'paddock.io/api-endpoint': '10.0.0.7:6443',
        'paddock.io/automount': 'unset',
        'paddock.io/api-ca': CA,
        'paddock.io/namespace': 'dev',
      });
    });

    it('mounts it where kube’s admission would: every container without a mount at the path', () => {
      const mount = { name: 'kube-api-access-pddck', readOnly: true, mountPath: TOKEN_DIR };
      expect(up.spec.initContainers[0].volumeMounts).to.deep.equal([mount]);
      expect(up.spec.containers[0].volumeMounts).to.deep.equal([mount]);
      expect(up.spec.containers[1].volumeMounts).to.deep.equal([{ name: 'own', mountPath: TOKEN_DIR }]);
    });

    it('names the gateway’s IP kubernetes.default.svc…, and nothing when the gateway is reached by name', () => {
      expect(up.spec.hostAliases).to.deep.equal([
        {
          ip: '10.0.0.7',
          hostnames: [
            'kubernetes',
            'kubernetes.default',
            'kubernetes.default.svc',
            'kubernetes.default.svc.cluster.local',
          ],
        },
      ]);
      const byName = { ...A, podApi: { ...API, host: 'paddock.example', ip: undefined } };
      const named = objectUp(byName, tenantPod());
      expect(named.spec.hostAliases).to.equal(undefined);
      expect(named.spec.initContainers[0].env[0]).to.deep.equal({
        name: 'KUBERNETES_SERVICE_HOST',
        value: 'paddock.example',
      });
    });

    it('reads back as written, with the token volume as kube’s admission adds it', () => {
      const down = objectDown(A, up)!;
      const mount = { name: 'kube-api-access-pddck', readOnly: true, mountPath: TOKEN_DIR };
      const expected = tenantPod();
      expected.spec.volumes.push(kubeTokenVolume('kube-api-access-pddck'));
      expected.spec.initContainers[0].volumeMounts = [mount];
      expected.spec.containers[0].volumeMounts = [mount];
      expect(down).to.deep.equal(expected);
    });

    it('keeps a token volume the pod has (a pod copied from one read back), converted, and adds none', () => {
      const copied = tenantPod();
      copied.spec.volumes.push(kubeTokenVolume('kube-api-access-x7k2q'));
      const again = objectUp(A, copied);
      expect(again.spec.volumes).to.deep.equal([
        { name: 'own', emptyDir: {} },
        gatewayTokenVolume('kube-api-access-x7k2q'),
      ]);
      expect(again.spec.initContainers[0].volumeMounts[0].name).to.equal('kube-api-access-x7k2q');
      expect(objectDown(A, again)!.spec.volumes[1]).to.deep.equal(kubeTokenVolume('kube-api-access-x7k2q'));
    });

    it('is left alone when it turns automount off, but for the annotations only the gateway writes', () => {
      const off = tenantPod();
      off.spec.automountServiceAccountToken = false;
      off.metadata.annotations['paddock.io/api-ca'] = 'a CA of the tenant’s choosing';
      off.metadata.annotations['paddock.io/namespace'] = 'kube-system';
      const upOff = objectUp(A, off);
      expect(upOff.metadata.annotations).to.deep.equal({
        team: 'blue',
        'paddock.io/automount': 'false',
        'paddock.io/namespace': 'dev',
      });
      expect(upOff.spec.automountServiceAccountToken).to.equal(false);
      expect(upOff.spec.volumes).to.deep.equal([{ name: 'own', emptyDir: {} }]);
      expect(upOff.spec.containers[0].env).to.deep.equal([{ name: 'KUBERNETES_SERVICE_HOST', value: 'mine.example' }]);
      expect(upOff.spec.hostAliases).to.equal(undefined);
    });

    it('is only converted when the gateway says nowhere: audiences and namespace fields, no variables or volume', () => {
      const bare = tenantContext('aaaaaa', kindScope());
      const upBare = objectUp(bare, tenantPod());
      expect(upBare.spec.volumes).to.deep.equal([{ name: 'own', emptyDir: {} }]);
      expect(upBare.metadata.annotations).to.deep.equal({ team: 'blue' });
    });
  });

  describe('any pod’s own references', () => {
    const withReferences = (): Json => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'dev' },
      spec: {
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'c',
            image: 'x',
            env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
          },
        ],
        volumes: [
          {
            name: 'tokens',
            projected: {
              sources: [
                { serviceAccountToken: { audience: 'vault', path: 'vault-token' } },
                { serviceAccountToken: { audience: 'bbbbbb-vault', path: 'other-token' } },
                { serviceAccountToken: { path: 'api-token' } },
              ],
            },
          },
          { name: 'facts', downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
        ],
      },
    });

    it('a token’s audience carries the tenant’s prefix, none is the gateway’s: never another tenant’s or the cluster’s API', () => {
      const text = (pod: Json) =>
        JSON.stringify({
          kind: 'PodList',
          apiVersion: 'v1',
          metadata: {},
          items: [{ ...pod, metadata: { ...pod.metadata, namespace: 'aaaaaa-dev' } }],
        });
      // Read from a list's text too: the gateway's annotation has it converted whole.
      const listed = collectionDown(
        A,
        text(objectUp(A, withReferences())),
        { group: '', kind: 'Pod', namespaced: true },
        false,
      )!;
      expect(JSON.parse(listed.elements[0]).spec.volumes[0]).to.deep.equal(withReferences().spec.volumes[0]);
      const up = objectUp(A, withReferences());
      expect(up.spec.volumes[0].projected.sources.map((s: Json) => s.serviceAccountToken.audience)).to.deep.equal([
        'aaaaaa-vault',
        'aaaaaa-bbbbbb-vault',
        GATEWAY_AUDIENCE,
      ]);
      const down = objectDown(A, up)!;
      expect(down.spec.volumes[0]).to.deep.equal(withReferences().spec.volumes[0]);
      // What another tenant's pod holds is none of this one's to see.
      up.spec.volumes[0].projected.sources[0].serviceAccountToken.audience = 'bbbbbb-vault';
      expect(objectDown(A, up)!.spec.volumes[0].projected.sources[0]).to.deep.equal({
        serviceAccountToken: { path: 'vault-token' },
      });
    });

    it('the downward API’s namespace, in env and volumes, is the tenant’s name of it, held in an annotation', () => {
      const up = objectUp(A, withReferences());
      const field = "metadata.annotations['paddock.io/namespace']";
      expect(up.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath).to.equal(field);
      expect(up.spec.volumes[1].downwardAPI.items[0].fieldRef.fieldPath).to.equal(field);
      expect(up.metadata.annotations).to.deep.equal({ 'paddock.io/automount': 'false', 'paddock.io/namespace': 'dev' });
      expect(objectDown(A, up)).to.deep.equal(withReferences());
    });
  });

  describe('automountServiceAccountToken upstream: always false, the tenant’s own recorded', () => {
    const pod = (automount?: boolean | null): Json => {
      const p = tenantPod();
      if (automount !== undefined) p.spec.automountServiceAccountToken = automount;
      return p;
    };
    for (const [own, recorded, mounted] of [
      [undefined, 'unset', true],
      [true, 'true', true],
      [false, 'false', false],
    ] as const) {
      it(`${String(own)}: false upstream, "${recorded}" recorded, ${mounted ? 'the gateway’s volume' : 'no volume'}, and reads back as written`, () => {
        const up = objectUp(A, pod(own));
        expect(up.spec.automountServiceAccountToken).to.equal(false);
        expect(up.metadata.annotations['paddock.io/automount']).to.equal(recorded);
        expect(up.spec.volumes.some((v: Json) => v.name === 'kube-api-access-pddck')).to.equal(mounted);
        const down = objectDown(A, up)!;
        expect(down.spec.automountServiceAccountToken).to.equal(own);
        expect(down.metadata.annotations).to.deep.equal({ team: 'blue' });
      });
    }

    it('no volume where the pod’s account turns it off (PodApi.tokenVolume), still false upstream', () => {
      const quiet = { ...A, podApi: { ...API, tokenVolume: false as const } };
      const up = objectUp(quiet, pod());
      expect(up.spec.automountServiceAccountToken).to.equal(false);
      expect(up.spec.volumes).to.deep.equal([{ name: 'own', emptyDir: {} }]);
      expect(up.spec.hostAliases).to.have.length(1);
      expect(objectDown(A, up)!.spec.automountServiceAccountToken).to.equal(undefined);
    });

    it('a merge patch that sets it, or nulls it, sends false and records the tenant’s; one that says nothing sends nothing', () => {
      const patch = (spec: Json) =>
        patchUp(
          A,
          'application/merge-patch+json',
          { spec: { template: { spec } } },
          'apps/v1',
          'Deployment',
          'dev',
        ) as Json;
      expect(patch({ automountServiceAccountToken: true }).spec.template).to.deep.equal({
        metadata: { annotations: { 'paddock.io/automount': 'true', 'paddock.io/namespace': 'dev' } },
        spec: { automountServiceAccountToken: false },
      });
      expect(patch({ automountServiceAccountToken: null }).spec.template.metadata.annotations).to.include({
        'paddock.io/automount': 'unset',
      });
      expect(patch({ nodeName: 'n1' }).spec.template).to.deep.equal({ spec: { nodeName: 'n1' } });
    });

    it('a JSON patch operation on an annotation only the gateway writes is refused (403), on a pod or a template', () => {
      const refusal = (kind: string, apiVersion: string, operation: Json) => {
        try {
          patchUp(A, 'application/json-patch+json', [operation], apiVersion, kind, 'dev');
        } catch (err) {
          return { code: (err as TranslationError).code, message: (err as Error).message };
        }
        return undefined;
      };
      const template = '/spec/template/metadata/annotations';
      const cases: [Json, string, string][] = [
        [{ op: 'add', path: `${template}/paddock.io~1automount`, value: 'true' }, 'automount', 'path'],
        [{ op: 'replace', path: `${template}/paddock.io~1automount`, value: 'unset' }, 'automount', 'path'],
        [{ op: 'remove', path: `${template}/paddock.io~1api-ca` }, 'api-ca', 'path'],
        [{ op: 'test', path: `${template}/paddock.io~1namespace`, value: 'dev' }, 'namespace', 'path'],
        [
          { op: 'copy', from: `${template}/paddock.io~1api-endpoint`, path: `${template}/mine` },
          'api-endpoint',
          'from',
        ],
      ];
      for (const [operation, key, where] of cases)
        expect(refusal('Deployment', 'apps/v1', operation), JSON.stringify(operation)).to.deep.equal({
          code: 403,
          message: `Deployment: the JSON patch operation "${operation.op}" on ${operation[where]} is forbidden: the annotation paddock.io/${key} is written by the gateway alone`,
        });
      expect(
        refusal('Pod', 'v1', { op: 'add', path: '/metadata/annotations/paddock.io~1automount', value: 'false' }),
      ).to.include({ code: 403 });
      // The tenant's own annotations, and the same key where no pod is, go up as they are.
      expect(refusal('Deployment', 'apps/v1', { op: 'add', path: `${template}/team`, value: 'a' })).to.equal(undefined);
      expect(
        refusal('ConfigMap', 'v1', { op: 'add', path: '/metadata/annotations/paddock.io~1automount', value: 'x' }),
      ).to.equal(undefined);
      expect(
        refusal('Deployment', 'apps/v1', {
          op: 'add',
          path: '/metadata/annotations/paddock.io~1automount',
          value: 'x',
        }),
      ).to.equal(undefined);
    });

    it('a strategic merge patch that replaces the spec makes it whole: false, the volume and the record', () => {
      const up = patchUp(
        A,
        'application/strategic-merge-patch+json',
        { spec: { template: { spec: { $patch: 'replace', containers: [{ name: 'main', image: 'op' }] } } } },
        'apps/v1',
        'Deployment',
        'dev',
      ) as Json;
      const template = up.spec.template;
      expect(template.spec.automountServiceAccountToken).to.equal(false);
      expect(template.spec.volumes).to.deep.equal([gatewayTokenVolume('kube-api-access-pddck')]);
      expect(template.metadata.annotations['paddock.io/automount']).to.equal('unset');
    });

    it('is an invariant of a pod spec that is there: a result without it is stored with false, an object with no pod spec as it is', () => {
      const unset = deployment({
        metadata: { labels: { app: 'op' } },
        spec: { containers: [{ name: 'm', image: 'op' }] },
      });
      // As the upstream's dry run answers it: in the tenant's namespace there.
      unset.metadata.namespace = 'aaaaaa-dev';
      const normalized = normalizedStored(A, { group: 'apps', kind: 'Deployment' }, unset);
      expect(normalized?.spec.template.spec.automountServiceAccountToken).to.equal(false);
      const revision = {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name: 'r' },
        revision: 1,
        data: { blob: 'x' },
      };
      expect(() => checkStored(A, { group: 'apps', kind: 'ControllerRevision' }, revision)).not.to.throw();
      expect(() =>
        checkStored(
          A,
          { group: 'apps', kind: 'ControllerRevision' },
          { ...revision, data: { spec: { template: { spec: {} } } } },
        ),
      ).to.throw('automountServiceAccountToken');
      // A pod cannot change its volumes or this field once made: one made before the rule keeps what it has.
      const made = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'aaaaaa-dev' },
        spec: { containers: [] },
      };
      expect(normalizedStored(A, { group: '', kind: 'Pod' }, made)).to.equal(undefined);
    });

    it('setGatewayToken gives a template the gateway’s volume, as up would, or takes it away, and leaves a tenant’s own alone', () => {
      const quiet = { ...A, podApi: { ...API, tokenVolume: false as const } };
      const without = objectUp(quiet, deployment({ metadata: {}, spec: { containers: [{ name: 'm', image: 'op' }] } }));
      const withIt = objectUp(A, deployment({ metadata: {}, spec: { containers: [{ name: 'm', image: 'op' }] } }));
      const given = structuredClone(without);
      expect(setGatewayToken(A, given.spec.template, true, 'dev')).to.equal(true);
      expect(given.spec.template.spec.volumes).to.deep.equal(withIt.spec.template.spec.volumes);
      expect(given.spec.template.spec.containers[0].volumeMounts).to.deep.equal(
        withIt.spec.template.spec.containers[0].volumeMounts,
      );
      expect(given.spec.template.metadata.annotations).to.include({
        'paddock.io/api-ca': CA,
        'paddock.io/namespace': 'dev',
      });
      expect(setGatewayToken(A, given.spec.template, true, 'dev')).to.equal(false);
      expect(setGatewayToken(A, given.spec.template, false, 'dev')).to.equal(true);
      expect(given.spec.template.spec.volumes).to.equal(undefined);
      expect(given.spec.template.spec.containers[0].volumeMounts).to.equal(undefined);
      const own = structuredClone(without);
      own.spec.template.spec.volumes = [{ name: 'kube-api-access-mine', emptyDir: {} }];
      expect(setGatewayToken(A, own.spec.template, true, 'dev')).to.equal(false);
    });

    it('a record of the field by a manager goes where the tenant left it unset', () => {
      const up = objectUp(A, pod());
      up.metadata.managedFields = [
        {
          manager: 'kubectl',
          operation: 'Update',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:automountServiceAccountToken': {}, 'f:nodeName': {} } },
        },
      ];
      expect(objectDown(A, up)!.metadata.managedFields[0].fieldsV1).to.deep.equal({ 'f:spec': { 'f:nodeName': {} } });
    });
  });

  describe('a workload’s pod template', () => {
    const template = () => ({
      metadata: { labels: { app: 'op' } },
      spec: { containers: [{ name: 'main', image: 'op' }] },
    });

    it('is pointed at the gateway, which the pods its controller makes inherit', () => {
      const up = objectUp(A, deployment(template()));
      const pod = up.spec.template;
      expect(pod.spec.containers[0].env).to.deep.equal([
        { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.7' },
        ...GATEWAY_VARIABLES,
      ]);
      expect(pod.spec.volumes).to.deep.equal([gatewayTokenVolume('kube-api-access-pddck')]);
      expect(pod.metadata.annotations['paddock.io/namespace']).to.equal('dev');
      // A pod of it reads back with kube's volume, as one made by kube's own admission would.
      const made = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { ...pod.metadata, name: 'op-1', namespace: 'aaaaaa-dev' },
        spec: pod.spec,
      };
      const podDown = objectDown(A, made)!;
      expect(podDown.spec.volumes).to.deep.equal([kubeTokenVolume('kube-api-access-pddck')]);
      expect(podDown.spec.containers[0].env).to.equal(undefined);
    });

    it('reads back exactly as written, in every kind that holds one', () => {
      // A kind that holds its template at spec.template.
      const workload = (apiVersion: string, kind: string): Json => ({
        apiVersion,
        kind,
        metadata: { name: kind.toLowerCase(), namespace: 'dev' },
        spec: { template: template() },
      });
      const kinds: Json[] = [
        deployment(template()),
        workload('apps/v1', 'StatefulSet'),
        workload('apps/v1', 'DaemonSet'),
        workload('apps/v1', 'ReplicaSet'),
        workload('batch/v1', 'Job'),
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'c', namespace: 'dev' },
          spec: { schedule: '* * * * *', jobTemplate: { spec: { template: template() } } },
        },
        { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't', namespace: 'dev' }, template: template() },
        workload('v1', 'ReplicationController'),
      ];
      for (const object of kinds) {
        const up = objectUp(A, object);
        expect(JSON.stringify(up), object.kind).to.include('KUBERNETES_SERVICE_HOST');
        expect(objectDown(A, up), object.kind).to.deep.equal(object);
      }
    });

    it('a patch other than an apply gets the variables only: a list it carries replaces the stored one', () => {
      const patch = { spec: { template: { spec: { containers: [{ name: 'main', image: 'op:2' }] } } } };
      const smp = patchUp(A, 'application/strategic-merge-patch+json', patch, 'apps/v1', 'Deployment') as Json;
      expect(smp.spec.template.spec.volumes).to.equal(undefined);
      expect(smp.spec.template.spec.containers[0].volumeMounts).to.equal(undefined);
      expect(smp.spec.template.spec.containers[0].env).to.deep.equal([
        { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.7' },
        ...GATEWAY_VARIABLES,
      ]);
      const apply = patchUp(A, 'application/apply-patch+yaml', deployment(template()), 'apps/v1', 'Deployment') as Json;
      expect(apply.spec.template.spec.volumes).to.deep.equal([gatewayTokenVolume('kube-api-access-pddck')]);
    });

    it('a JSON patch that replaces the whole template (kubectl rollout undo) gets all of it, the same as the revision it restores', () => {
      const [undo] = patchUp(
        A,
        'application/json-patch+json',
        [{ op: 'replace', path: '/spec/template', value: template() }],
        'apps/v1',
        'Deployment',
        'dev',
      ) as Json[];
      expect(undo.value).to.deep.equal(objectUp(A, deployment(template())).spec.template);
      const [part] = patchUp(
        A,
        'application/json-patch+json',
        [{ op: 'replace', path: '/spec/template/spec/containers', value: template().spec.containers }],
        'apps/v1',
        'Deployment',
        'dev',
      ) as Json[];
      expect(part.value[0].volumeMounts).to.equal(undefined);
      expect(part.value[0].env[0]).to.deep.equal({ name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.7' });
    });

    it('managedFields record nothing the gateway added', () => {
      const up = objectUp(A, deployment(template()));
      const spec = up.spec.template.spec;
      const container = (env: string[], mounts: boolean) => ({
        '.': {},
        'f:name': {},
        'f:env': Object.fromEntries(
          env.map((name) => [`k:{"name":"${name}"}`, { '.': {}, 'f:name': {}, 'f:value': {} }]),
        ),
        ...(mounts ? { 'f:volumeMounts': { '.': {}, [`k:{"mountPath":"${TOKEN_DIR}"}`]: { '.': {} } } } : {}),
      });
      const fields = (env: string[], gateway: boolean) => ({
        'f:spec': {
          'f:template': {
            'f:metadata': {
              'f:labels': { '.': {}, 'f:app': {} },
              ...(gateway
                ? { 'f:annotations': { '.': {}, 'f:paddock.io/api-endpoint': {}, 'f:paddock.io/namespace': {} } }
                : {}),
            },
            'f:spec': {
              'f:containers': { 'k:{"name":"main"}': container(env, gateway) },
              ...(gateway
                ? {
                    'f:volumes': { '.': {}, 'k:{"name":"kube-api-access-pddck"}': { '.': {}, 'f:name': {} } },
                    'f:hostAliases': { '.': {}, 'k:{"ip":"10.0.0.7"}': { '.': {}, 'f:ip': {} } },
                  }
                : {}),
            },
          },
        },
      });
      const names = spec.containers[0].env.map((e: Json) => e.name);
      up.metadata.managedFields = [
        {
          manager: 'kubectl',
          operation: 'Update',
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: fields(['MINE', ...names], true),
        },
      ];
      const down = objectDown(A, up)!;
      const expected = fields(['MINE'], false);
      expect(down.metadata.managedFields[0].fieldsV1).to.deep.equal(expected);
    });

    it('a Table row’s metadata (from its text too) records nothing the gateway added', () => {
      const up = objectUp(A, deployment(template()));
      const fieldsV1 = {
        'f:spec': {
          'f:template': {
            'f:metadata': { 'f:annotations': { '.': {}, 'f:paddock.io/api-endpoint': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"main"}': {
                  '.': {},
                  'f:name': {},
                  'f:env': { '.': {}, 'k:{"name":"KUBERNETES_PORT_6443_TCP_ADDR"}': { '.': {} } },
                },
              },
            },
          },
        },
      };
      const row = {
        cells: ['op'],
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: {
            name: 'op',
            namespace: 'aaaaaa-dev',
            managedFields: [
              { manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1 },
            ],
          },
        },
      };
      const expected = {
        'f:spec': {
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"main"}': { '.': {}, 'f:name': {} } } } },
        },
      };
      const rows = { group: 'apps', kind: 'Deployment', namespaced: true };
      const text = JSON.stringify({
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: {},
        columnDefinitions: [],
        rows: [row],
      });
      const page = collectionDown(A, text, rows, false)!;
      expect(JSON.parse(page.elements[0]).object.metadata.managedFields[0].fieldsV1).to.deep.equal(expected);
      expect(up.spec.template.metadata.annotations['paddock.io/api-endpoint']).to.equal('10.0.0.7:6443');
    });

    it('kubectl’s record of what it applied goes up as the cluster keeps it after an apply, and reads back as kubectl wrote it', () => {
      // As kubectl writes it: Go's encoding of a map, keys sorted.
      const applied = goJsonMarshalUnstructured(deployment(template()));
      const object = deployment(template());
      object.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': applied };
      const up = objectUp(A, object);
      // The cluster writes it from a server-side apply's body itself, which the gateway pointed at itself.
      const record = JSON.parse(up.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      expect(record.spec.template).to.deep.equal(up.spec.template);
      expect(objectDown(A, up)!.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).to.equal(
        applied,
      );
      // A pod's record reads back without the token volume the pod itself shows: kubectl would delete it.
      const pod = tenantPod();
      const podApplied = goJsonMarshalUnstructured(tenantPod());
      pod.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] = podApplied;
      const podDown = objectDown(A, objectUp(A, pod))!;
      expect(podDown.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).to.equal(podApplied);
      expect(podDown.spec.volumes.map((v: Json) => v.name)).to.deep.equal(['own', 'kube-api-access-pddck']);
    });
  });

  it('a list from its text converts a pointed pod whole: nothing the gateway added shows', () => {
    const up = objectUp(A, tenantPod());
    const plain = objectUp(A, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q', namespace: 'dev' },
      spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'x' }] },
    });
    const text = JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9' },
      items: [plain, up, plain].map(({ apiVersion: _v, kind: _k, ...item }) => ({
        ...item,
        metadata: { ...item.metadata, namespace: 'aaaaaa-dev' },
      })),
    });
    const POD_ROWS = { group: '', kind: 'Pod', namespaced: true };
    const page = collectionDown(A, text, POD_ROWS, false)!;
    const items = page.elements.map((element) => JSON.parse(element));
    expect(items.map((item) => item.metadata.name)).to.deep.equal(['q', 'op', 'q']);
    expect(page.elements[1]).not.to.include('paddock.io/');
    expect(items[1].spec.containers[0].env).to.deep.equal([{ name: 'KUBERNETES_SERVICE_HOST', value: 'mine.example' }]);
    expect(items[1].spec.hostAliases).to.equal(undefined);
    // Another tenant sees none of it.
    expect(collectionDown(B, text, POD_ROWS, false)!.elements).to.deep.equal([]);
  });

  it('each namespace’s kube-root-ca.crt holds the gateway’s CA, read whole or from a list’s text; other ConfigMaps are as stored', () => {
    const rootCa = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kube-root-ca.crt', namespace: 'aaaaaa-dev' },
      data: { 'ca.crt': 'the cluster’s CA' },
    };
    const other = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'aaaaaa-dev' },
      data: { 'ca.crt': 'mine' },
    };
    expect(objectDown(A, rootCa)!.data).to.deep.equal({ 'ca.crt': CA });
    expect(objectDown(A, other)!.data).to.deep.equal({ 'ca.crt': 'mine' });
    expect(objectDown(tenantContext('aaaaaa', kindScope()), rootCa)!.data).to.deep.equal({
      'ca.crt': 'the cluster’s CA',
    });
    const text = JSON.stringify({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: {},
      items: [rootCa, other].map(({ apiVersion: _v, kind: _k, ...item }) => item),
    });
    const page = collectionDown(A, text, { group: '', kind: 'ConfigMap', namespaced: true }, false)!;
    expect(page.elements.map((element) => JSON.parse(element).data)).to.deep.equal([
      { 'ca.crt': CA },
      { 'ca.crt': 'mine' },
    ]);
  });

  it('podApiAdding narrows what a conversion adds, and leaves a context without a PodApi as it is', () => {
    expect(podApiAdding(A, 'env').podApi).to.deep.equal({ ...API, adds: 'env' });
    const bare = tenantContext('aaaaaa', kindScope());
    expect(podApiAdding(bare, 'env')).to.equal(bare);
  });
});
