import { expect } from 'chai';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { decodeKubernetesProtobuf } from '../../apiserver/protobuf/decode.js';
import { CUSTOM_JSON, MESSAGES, TOP_LEVEL_MESSAGES, type FieldSpec } from '../../apiserver/protobuf/schema.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { WireReader } from '../../apiserver/protobuf/wire.js';
import { groupOfApiVersion, tenantContext, TranslationError } from '../../translate/context.js';
import { objectUp } from '../../translate/objects.js';
import { KINDS, protobufFieldsOf } from '../../translate/kinds/kind-records.js';
import { POD_KINDS } from '../../translate/kinds/pod-spec.js';
import { protobufBodyShadow, protobufBodyUp, type ProtobufRequest } from '../../translate/protobuf-body.js';
import type { MessageFields } from '../../translate/protobuf-fields.js';
import { PROTOBUF, startCaptureServer, type CaptureServer } from '../support/kubectl-protobuf-capture.js';
import { envelope, intField, lenField, mapEntry, message, tag, varint } from '../support/protobuf-wire.js';
import { kindScope } from '../support/kind-scope.js';
import { testSeed } from '../support/seed.js';

type Json = Record<string, any>;

const kinds = kindScope();
const ctx = tenantContext('abc123', kinds);
const P = 'abc123-';

/**
 * What the gateway does with the same object as JSON: the URL's namespace filled in where the
 * object has none (protobuf always carries an ObjectMeta, empty or not), then objectUp.
 */
function jsonUp(object: Json, request: ProtobufRequest): Json {
  const hasNamespace = typeof object.metadata?.namespace === 'string';
  const filled =
    request.namespace && !hasNamespace
      ? { ...object, metadata: { ...(object.metadata ?? {}), namespace: request.namespace } }
      : object;
  return objectUp(ctx, filled);
}

function isNamespaced(apiVersion: string, kind: string): boolean {
  return kinds.kindIsNamespaced(groupOfApiVersion(apiVersion), kind) === true;
}

/** The raw object (the last runtime.Unknown field 2) of a body. */
function rawOf(body: Buffer): Buffer {
  const reader = new WireReader(body.subarray(4));
  let raw = Buffer.alloc(0);
  while (!reader.done) {
    const { field, wireType } = reader.tag();
    if (field === 2) raw = Buffer.from(reader.lengthDelimited());
    else reader.skip(wireType);
  }
  return raw;
}

function translationError(run: () => unknown): TranslationError {
  try {
    run();
  } catch (err) {
    if (err instanceof TranslationError) return err;
    throw err;
  }
  throw new Error('expected a TranslationError');
}

/** Hex, so a failed comparison shows where the bytes differ. */
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

// Field builders: `s` a string field, `m` a nested message.
const s = (field: number, value: string) => lenField(field, value);
const m = (field: number, ...fields: Buffer[]) => lenField(field, message(...fields));

/** `group/Kind`, as kinds/kind-records.ts keys its table. */
function splitKey(key: string): { group: string; kind: string } {
  const slash = key.lastIndexOf('/');
  return { group: key.slice(0, slash), kind: key.slice(slash + 1) };
}

const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/**
 * A JSON object written as protobuf through a kind's fields (translate/protobuf-fields.ts), field
 * numbers in order. A member the fields do not name cannot be written, and is an error: an object
 * meant to exercise the kind's rules must stay inside what its protobuf table reads.
 */
function encode(object: Json, fields: MessageFields, where: string): Buffer {
  const written = new Set<string>();
  const parts: Buffer[] = [];
  for (const [number, rule] of Object.entries(fields).map(([n, r]) => [Number(n), r] as const)) {
    if (rule.type === 'inline') {
      const names = new Set(
        Object.values(rule.fields).flatMap((inner) => (inner.type === 'inline' ? [] : [inner.name])),
      );
      const inner = Object.fromEntries(Object.entries(object).filter(([name]) => names.has(name)));
      if (Object.keys(inner).length === 0) continue;
      Object.keys(inner).forEach((name) => written.add(name));
      parts.push(lenField(number, encode(inner, rule.fields, where)));
      continue;
    }
    const value = object[rule.name];
    if (value === undefined) continue;
    written.add(rule.name);
    const at = `${where}.${rule.name}`;
    switch (rule.type) {
      case 'string':
        parts.push(lenField(number, value as string));
        break;
      case 'strings':
        for (const item of value as string[]) parts.push(lenField(number, item));
        break;
      case 'stringMap':
        for (const [k, v] of Object.entries(value as Record<string, string>)) parts.push(mapEntry(number, k, v));
        break;
      case 'message':
        for (const item of rule.repeated ? (value as Json[]) : [value as Json])
          parts.push(lenField(number, encode(item, rule.fields, at)));
        break;
    }
  }
  const unwritten = Object.keys(object).filter((name) => !written.has(name));
  if (unwritten.length > 0) throw new Error(`${where}: ${unwritten.join(', ')} not in the kind's protobuf fields`);
  return message(...parts);
}

/** Rewrites a raw object of a built-in kind and returns the raw object that goes up. */
function rawUp(apiVersion: string, kind: string, raw: Buffer, namespace?: string): Buffer {
  return rawOf(protobufBodyUp(ctx, envelope(apiVersion, kind, raw), { apiVersion, kind, namespace }));
}

describe('protobuf bodies rewritten in place (translate/protobuf-body.ts)', () => {
  describe('bodies captured from the real kubectl 1.32', function () {
    this.timeout(120_000);

    interface Capture {
      args: string[];
      request: ProtobufRequest;
      check: (up: Json) => void;
    }
    const rbac = 'rbac.authorization.k8s.io/v1';
    const CAPTURES: Capture[] = [
      {
        args: ['create', 'namespace', 'x'],
        request: { apiVersion: 'v1', kind: 'Namespace' },
        check: (up) => expect(up.metadata).to.deep.equal({ name: `${P}x`, labels: { 'kubezoo.io/tenant': 'abc123' } }),
      },
      {
        args: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
        request: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' },
        check: (up) =>
          expect(up.metadata).to.deep.equal({ name: 'web', namespace: `${P}default`, labels: { app: 'web' } }),
      },
      {
        args: ['create', 'configmap', 'c', '--from-literal=a=b'],
        request: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' },
        check: (up) =>
          expect(up).to.deep.include({ metadata: { name: 'c', namespace: `${P}default` }, data: { a: 'b' } }),
      },
      {
        args: ['create', 'secret', 'generic', 's', '--from-literal=p=q'],
        request: { apiVersion: 'v1', kind: 'Secret', namespace: 'dev' },
        check: (up) => expect(up.metadata.namespace).to.equal(`${P}dev`),
      },
      {
        args: ['create', 'serviceaccount', 'sa'],
        request: { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default' },
        check: (up) => expect(up.metadata.namespace).to.equal(`${P}default`),
      },
      {
        args: ['create', 'quota', 'q', '--hard=pods=10,cpu=2'],
        request: { apiVersion: 'v1', kind: 'ResourceQuota', namespace: 'default' },
        check: (up) => expect(up.spec).to.deep.equal({ hard: { pods: '10', cpu: '2' } }),
      },
      {
        args: ['create', 'job', 'j', '--image=busybox', '--', 'echo', 'hi'],
        request: { apiVersion: 'batch/v1', kind: 'Job', namespace: 'default' },
        check: (up) => expect(up.metadata.namespace).to.equal(`${P}default`),
      },
      {
        args: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'echo', 'hi'],
        request: { apiVersion: 'batch/v1', kind: 'CronJob', namespace: 'default' },
        check: (up) => expect(up.spec.jobTemplate.metadata).to.deep.equal({ name: 'cj' }),
      },
      {
        args: ['create', 'role', 'r', '--verb=get', '--resource=pods', '--resource-name=web'],
        request: { apiVersion: rbac, kind: 'Role', namespace: 'default' },
        check: (up) =>
          expect(up.rules).to.deep.equal([
            { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] },
          ]),
      },
      {
        args: ['create', 'rolebinding', 'rb', '--role=r', '--user=alice', '--serviceaccount=default:sa'],
        request: { apiVersion: rbac, kind: 'RoleBinding', namespace: 'default' },
        check: (up) => {
          expect(up.subjects).to.deep.equal([
            { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `${P}alice` },
            { kind: 'ServiceAccount', name: 'sa', namespace: `${P}default` },
          ]);
          expect(up.roleRef).to.deep.equal({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
        },
      },
      {
        args: ['create', 'rolebinding', 'view-devs', '--clusterrole=view', '--group=devs'],
        request: { apiVersion: rbac, kind: 'RoleBinding', namespace: 'dev' },
        check: (up) => expect(up.roleRef.name).to.equal(`${P}view`),
      },
      {
        args: ['create', 'clusterrole', 'cr', '--verb=list', '--resource=nodes'],
        request: { apiVersion: rbac, kind: 'ClusterRole' },
        check: (up) => expect(up.metadata).to.deep.equal({ name: `${P}cr`, labels: { 'kubezoo.io/tenant': 'abc123' } }),
      },
      {
        args: ['create', 'clusterrole', 'agg', '--aggregation-rule=team=a'],
        request: { apiVersion: rbac, kind: 'ClusterRole' },
        check: (up) =>
          expect(up.aggregationRule).to.deep.equal({
            clusterRoleSelectors: [
              {
                matchLabels: { team: 'a' },
                matchExpressions: [{ key: 'kubezoo.io/tenant', operator: 'In', values: ['abc123'] }],
              },
            ],
          }),
      },
      {
        args: ['create', 'clusterrole', 'ns-reader', '--verb=get', '--resource=namespaces', '--resource-name=dev'],
        request: { apiVersion: rbac, kind: 'ClusterRole' },
        check: (up) =>
          expect(up.rules).to.deep.equal([
            { verbs: ['get'], apiGroups: [''], resources: ['namespaces'], resourceNames: [`${P}dev`] },
          ]),
      },
      {
        args: [
          'create',
          'clusterrolebinding',
          'crb',
          '--clusterrole=cr',
          '--group=devs',
          '--serviceaccount=kube-system:ctl',
        ],
        request: { apiVersion: rbac, kind: 'ClusterRoleBinding' },
        check: (up) => {
          expect(up.metadata.name).to.equal(`${P}crb`);
          expect(up.roleRef.name).to.equal('abc123:cr');
          expect(up.subjects).to.deep.equal([
            { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `${P}devs` },
            { kind: 'ServiceAccount', name: 'ctl', namespace: `${P}kube-system` },
          ]);
        },
      },
      {
        args: ['auth', 'can-i', 'get', 'configmaps/settings', '-n', 'dev'],
        request: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' },
        check: (up) =>
          expect(up.spec.resourceAttributes).to.deep.equal({
            namespace: `${P}dev`,
            verb: 'get',
            resource: 'configmaps',
            name: 'settings',
          }),
      },
      {
        args: ['auth', 'can-i', 'delete', 'namespaces/prod'],
        request: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' },
        check: (up) => expect(up.spec.resourceAttributes.name).to.equal(`${P}prod`),
      },
    ];

    let capture: CaptureServer;
    const bodies = new Map<Capture, Buffer>();

    before(async () => {
      capture = await startCaptureServer();
      for (const c of CAPTURES) {
        const post = await capture.post(c.args);
        expect(post.contentType).to.equal(PROTOBUF);
        bodies.set(c, post.body);
      }
    });

    after(async () => {
      await capture?.close();
    });

    for (const c of CAPTURES) {
      it(`translates kubectl ${c.args.join(' ')} as its JSON would be`, () => {
        const body = bodies.get(c)!;
        if (POD_KINDS.has(`${groupOfApiVersion(c.request.apiVersion)}/${c.request.kind}`)) {
          // A pod template is refused here: the gateway decodes it and sends it up as JSON (gateway/proxy/body-up.ts).
          expect(translationError(() => protobufBodyUp(ctx, body, c.request)).code).to.equal(415);
          c.check(jsonUp(decodeKubernetesProtobuf(body).object, c.request));
          return;
        }
        const up = decodeKubernetesProtobuf(protobufBodyUp(ctx, body, c.request)).object;
        expect(up).to.deep.equal(jsonUp(decodeKubernetesProtobuf(body).object, c.request));
        c.check(up);
      });
    }

    it('returns a body byte for byte when there is nothing to translate', () => {
      const configMap = bodies.get(CAPTURES.find((c) => c.request.kind === 'ConfigMap')!)!;
      expect(hex(protobufBodyUp(ctx, configMap, { apiVersion: 'v1', kind: 'ConfigMap' }))).to.equal(hex(configMap));
    });

    it('answers every truncation of a real body with a body or a TranslationError, never another error', () => {
      for (const [c, body] of bodies) {
        for (let length = 0; length < body.length; length++) {
          try {
            protobufBodyUp(ctx, body.subarray(0, length), c.request);
          } catch (err) {
            expect(err, `${c.args.join(' ')}: ${length} of ${body.length} bytes`).to.be.instanceOf(TranslationError);
          }
        }
      }
    });

    it('answers corrupted real bodies with a body or a TranslationError, never another error', () => {
      const cases = [...bodies];
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: cases.length - 1 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          (which, edits) => {
            const [c, original] = cases[which];
            const body = Buffer.from(original);
            // The magic stays intact so that corruption reaches the wire reader.
            for (const [position, byte] of edits) body[4 + (position % (body.length - 4))] = byte;
            try {
              protobufBodyUp(ctx, body, c.request);
            } catch (err) {
              if (!(err instanceof TranslationError)) throw err;
            }
          },
        ),
        { seed: testSeed(import.meta.url, 20260301).seed, numRuns: 3000 },
      );
    });
  });

  describe('the kinds of kinds/kind-records.ts, field by field', () => {
    it("reads a claim's dataSource as Kubernetes numbers it: only dataSourceRef has a namespace (4)", () => {
      const claim = (refNamespace: string) =>
        message(
          m(1, s(1, 'restored')),
          m(2, m(7, s(2, 'VolumeSnapshot'), s(3, 'snap'), s(4, 'dev')), m(8, s(2, 'Backup'), s(4, refNamespace))),
        );
      // Field 4 of a TypedLocalObjectReference is none of Kubernetes': copied as sent, like any field it does not know.
      expect(hex(rawUp('v1', 'PersistentVolumeClaim', claim('dev')))).to.equal(hex(claim(`${P}dev`)));
    });

    it('prefixes PersistentVolumes, their claimRef, storage classes and CSI secret namespaces', () => {
      const pv = (
        name: string,
        annotation: string,
        secretNamespace: string,
        claimNamespace: string,
        storageClass: string,
      ) =>
        message(
          m(1, s(1, name), mapEntry(12, 'volume.beta.kubernetes.io/storage-class', annotation)),
          m(
            2,
            m(2, m(22, s(1, 'csi.example.com'), m(6, s(1, 'publish')), m(10, s(1, 'expand'), s(2, secretNamespace)))),
            m(4, s(1, 'PersistentVolumeClaim'), s(2, claimNamespace), s(3, 'data')),
            s(6, storageClass),
          ),
        );
      expect(hex(rawUp('v1', 'PersistentVolume', pv('pv1', 'slow', 'kube', 'dev', 'slow')))).to.equal(
        hex(pv(`${P}pv1`, `${P}slow`, `${P}kube`, `${P}dev`, `${P}slow`)),
      );

      const pvc = (namespace: string, volume: string) =>
        message(m(1, s(1, 'data'), s(3, namespace)), m(2, s(1, 'ReadWriteOnce'), s(3, volume), s(5, '')));
      // An empty storageClassName means "no class" and stays empty.
      expect(hex(rawUp('v1', 'PersistentVolumeClaim', pvc('dev', 'pv1')))).to.equal(hex(pvc(`${P}dev`, `${P}pv1`)));
    });

    it('prefixes the references of Events, Endpoints and EndpointSlices', () => {
      const ref = (kind: string, namespace: string, name: string) =>
        message(s(1, kind), s(2, namespace), s(3, name), s(5, 'v1'));
      const coreEvent = (namespace: string, refNamespace: string, relatedName: string) =>
        message(
          m(1, s(1, 'e'), s(3, namespace)),
          lenField(2, ref('Pod', refNamespace, 'web')),
          s(4, 'pod web started'),
          lenField(13, ref('Namespace', '', relatedName)),
        );
      expect(hex(rawUp('v1', 'Event', coreEvent('dev', 'dev', 'dev')))).to.equal(
        hex(coreEvent(`${P}dev`, `${P}dev`, `${P}dev`)),
      );

      const event = (namespace: string) =>
        message(
          m(1, s(1, 'e'), s(3, namespace)),
          s(7, 'Started'),
          lenField(8, ref('Pod', namespace, 'web')),
          lenField(9, ref('Pod', namespace, 'db')),
          s(10, 'note'),
        );
      expect(hex(rawUp('events.k8s.io/v1', 'Event', event('dev')))).to.equal(hex(event(`${P}dev`)));

      const address = (ip: string, namespace: string) => message(s(1, ip), lenField(2, ref('Pod', namespace, 'web')));
      const endpoints = (namespace: string) =>
        message(
          m(1, s(1, 'svc')),
          m(
            2,
            lenField(1, address('10.0.0.1', namespace)),
            lenField(2, address('10.0.0.2', namespace)),
            m(3, intField(2, 80)),
          ),
        );
      expect(hex(rawUp('v1', 'Endpoints', endpoints('dev'), 'dev'))).to.equal(
        hex(
          message(
            m(1, s(1, 'svc'), s(3, `${P}dev`)),
            m(
              2,
              lenField(1, address('10.0.0.1', `${P}dev`)),
              lenField(2, address('10.0.0.2', `${P}dev`)),
              m(3, intField(2, 80)),
            ),
          ),
        ),
      );

      const slice = (namespace: string) =>
        message(
          m(1, s(1, 'svc-1'), s(3, namespace)),
          s(4, 'IPv4'),
          m(2, s(1, '10.0.0.1'), lenField(4, ref('Pod', namespace, 'web'))),
        );
      expect(hex(rawUp('discovery.k8s.io/v1', 'EndpointSlice', slice('dev')))).to.equal(hex(slice(`${P}dev`)));
    });

    it('prefixes ingress classes', () => {
      const ingress = (className: string) =>
        message(m(1, s(1, 'ing'), s(3, 'dev')), m(2, s(4, className), m(3, s(1, 'foo.com'))));
      expect(hex(rawUp('networking.k8s.io/v1', 'Ingress', ingress('nginx')))).to.equal(
        hex(message(m(1, s(1, 'ing'), s(3, `${P}dev`)), m(2, s(4, `${P}nginx`), m(3, s(1, 'foo.com'))))),
      );
    });

    it("prefixes the API groups of rules that name the tenant's own groups", () => {
      const clusterRole = (name: string, group: string) =>
        message(m(1, s(1, name)), m(2, s(1, 'get'), s(2, group), s(2, ''), s(2, '*'), s(3, 'crontabs')));
      const labelled = (name: string, group: string) =>
        message(
          m(1, s(1, name), mapEntry(11, 'kubezoo.io/tenant', 'abc123')),
          m(2, s(1, 'get'), s(2, group), s(2, ''), s(2, '*'), s(3, 'crontabs')),
        );
      expect(
        hex(rawUp('rbac.authorization.k8s.io/v1', 'ClusterRole', clusterRole('cr', 'stable.example.com'))),
      ).to.equal(hex(labelled(`${P}cr`, `${P}stable.example.com`)));
    });

    it("prefixes a CRD's group, name and conversion webhook service, and refuses built-in groups", () => {
      const crd = (name: string, group: string, namespace: string) =>
        message(
          m(1, s(1, name)),
          m(
            2,
            s(1, group),
            m(3, s(1, 'crontabs'), s(4, 'CronTab')),
            s(4, 'Namespaced'),
            m(9, s(1, 'Webhook'), m(2, m(2, m(1, s(1, namespace), s(2, 'conv')), s(2, 'ca')), s(3, 'v1'))),
          ),
        );
      expect(
        hex(
          rawUp(
            'apiextensions.k8s.io/v1',
            'CustomResourceDefinition',
            crd('crontabs.stable.example.com', 'stable.example.com', 'conv'),
          ),
        ),
      ).to.equal(hex(crd(`crontabs.${P}stable.example.com`, `${P}stable.example.com`, `${P}conv`)));
      const error = translationError(() =>
        rawUp('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd('pods.apps', 'apps', 'conv')),
      );
      expect([error.code, error.message]).to.deep.equal([
        403,
        'CustomResourceDefinitions in the built-in API group "apps" are not allowed for tenants',
      ]);
    });

    it("narrows webhooks to the tenant's namespaces and refuses webhooks by URL", () => {
      const requirement = (key: string, value: string) => message(s(1, key), s(2, 'In'), s(3, value));
      const rule = (...scope: Buffer[]) => m(3, s(1, 'CREATE'), m(2, s(1, ''), s(2, 'v1'), s(3, 'pods'), ...scope));
      const sent = message(
        m(1, s(1, 'policy')),
        m(
          2,
          s(1, 'a.example.com'),
          m(2, m(1, s(1, 'hooks'), s(2, 'svc'))),
          rule(),
          m(5, lenField(2, requirement('env', 'prod'))),
          s(6, 'None'),
        ),
        m(2, s(1, 'b.example.com'), m(2, m(1, s(1, 'hooks'), s(2, 'svc'))), rule(s(4, 'Cluster'))),
      );
      const tenantOnly = lenField(2, requirement('kubezoo.io/tenant', 'abc123'));
      const up = message(
        m(1, s(1, `${P}policy`)),
        m(
          2,
          s(1, 'a.example.com'),
          m(2, m(1, s(1, `${P}hooks`), s(2, 'svc'))),
          rule(s(4, 'Namespaced')),
          m(5, lenField(2, requirement('env', 'prod')), tenantOnly),
          s(6, 'None'),
        ),
        m(
          2,
          s(1, 'b.example.com'),
          m(2, m(1, s(1, `${P}hooks`), s(2, 'svc'))),
          rule(s(4, 'Namespaced')),
          m(5, tenantOnly),
        ),
      );
      for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
        expect(hex(rawUp('admissionregistration.k8s.io/v1', kind, sent)), kind).to.equal(hex(up));
      }
      const byUrl = message(m(1, s(1, 'policy')), m(2, s(1, 'a.example.com'), m(2, s(3, 'https://example.com'))));
      const error = translationError(() =>
        rawUp('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', byUrl),
      );
      expect([error.code, error.message]).to.deep.equal([403, 'webhooks by URL are not allowed for tenants']);
    });

    it('translates the identities, namespaces and names that reviews ask about', () => {
      const sar = (namespace: string, name: string, user: string, group: string, everyone: string) =>
        message(
          m(1),
          m(
            2,
            m(1, s(1, namespace), s(2, 'get'), s(5, 'namespaces'), s(7, name)),
            s(3, user),
            s(4, group),
            s(4, everyone),
            mapEntry(5, 'scope', s(1, 'x')),
          ),
        );
      expect(
        hex(
          rawUp(
            'authorization.k8s.io/v1',
            'SubjectAccessReview',
            sar('dev', 'prod', 'bob', 'devs', 'system:authenticated'),
          ),
        ),
      ).to.equal(hex(sar(`${P}dev`, `${P}prod`, `${P}bob`, `${P}devs`, `${P}system:authenticated`)));

      const local = (namespace: string) =>
        message(
          m(1, s(3, namespace)),
          m(2, m(1, s(1, namespace), s(2, 'list'), s(5, 'pods')), s(3, 'system:serviceaccount:dev:sa')),
        );
      expect(hex(rawUp('authorization.k8s.io/v1', 'LocalSubjectAccessReview', local('dev')))).to.equal(
        hex(
          message(
            m(1, s(3, `${P}dev`)),
            m(2, m(1, s(1, `${P}dev`), s(2, 'list'), s(5, 'pods')), s(3, `system:serviceaccount:${P}dev:sa`)),
          ),
        ),
      );

      const rules = (namespace: string) => message(m(1), m(2, s(1, namespace)), m(3));
      expect(hex(rawUp('authorization.k8s.io/v1', 'SelfSubjectRulesReview', rules('dev')))).to.equal(
        hex(rules(`${P}dev`)),
      );

      const whoami = (user: string, group: string) => message(m(1), m(2, m(1, s(1, user), s(2, 'uid-1'), s(3, group))));
      expect(hex(rawUp('authentication.k8s.io/v1', 'SelfSubjectReview', whoami('alice', 'devs')))).to.equal(
        hex(whoami(`${P}alice`, `${P}devs`)),
      );
    });

    it('forces the tenant label on Namespaces and refuses another value for it', () => {
      const namespace = (name: string, ...labels: Buffer[]) =>
        message(m(1, s(1, name), ...labels), m(2, s(1, 'kubernetes')));
      expect(
        hex(
          rawUp(
            'v1',
            'Namespace',
            namespace('dev', mapEntry(11, 'team', 'a'), mapEntry(11, 'kubernetes.io/metadata.name', 'dev')),
          ),
        ),
      ).to.equal(
        hex(
          namespace(
            `${P}dev`,
            mapEntry(11, 'team', 'a'),
            mapEntry(11, 'kubernetes.io/metadata.name', `${P}dev`),
            mapEntry(11, 'kubezoo.io/tenant', 'abc123'),
          ),
        ),
      );
      const error = translationError(() =>
        rawUp('v1', 'Namespace', namespace('dev', mapEntry(11, 'kubezoo.io/tenant', 'other'))),
      );
      expect(error.code).to.equal(403);
    });

    it('sees an empty string as JSON does: kept where Go prints it, absent where it is omitempty', () => {
      const rbac = 'rbac.authorization.k8s.io/v1';
      const cases: [string, string, Buffer, (up: Json) => void][] = [
        // Subject.name has no omitempty: JSON carries "" and the user rule prefixes it.
        [
          rbac,
          'RoleBinding',
          message(m(1, s(1, 'rb'), s(3, 'dev')), m(2, s(1, 'User'), s(3, '')), m(3, s(2, 'Role'), s(3, 'r'))),
          (up) => expect(up.subjects).to.deep.equal([{ kind: 'User', name: P }]),
        ],
        // SubjectAccessReviewSpec.user is omitempty: no user, nothing to prefix.
        [
          'authorization.k8s.io/v1',
          'SubjectAccessReview',
          message(m(1), m(2, s(3, ''), s(4, 'devs'))),
          (up) => expect(up.spec).to.deep.equal({ groups: [`${P}devs`] }),
        ],
      ];
      for (const [apiVersion, kind, object, check] of cases) {
        const body = envelope(apiVersion, kind, object);
        const up = decodeKubernetesProtobuf(protobufBodyUp(ctx, body, { apiVersion, kind })).object;
        expect(up).to.deep.equal(jsonUp(decodeKubernetesProtobuf(body).object, { apiVersion, kind }));
        check(up);
      }
    });

    it('refuses names that no longer fit once prefixed, as for JSON', () => {
      const error = translationError(() => rawUp('v1', 'Namespace', message(m(1, s(1, 'n'.repeat(60))))));
      expect([error.code, error.reason]).to.deep.equal([422, 'Invalid']);
    });

    it('translates owner references and managedFields in the metadata of every kind', () => {
      const meta = (namespace: string, owner: string, group: string) =>
        m(
          1,
          s(1, 'x'),
          s(3, namespace),
          m(13, s(5, 'v1'), s(1, 'Namespace'), s(3, owner), s(4, 'uid-1'), intField(6, 1)),
          m(17, s(1, 'kubectl'), s(2, 'Update'), s(3, `${group}/v1`), s(6, 'FieldsV1')),
        );
      expect(
        hex(rawUp('policy/v1', 'PodDisruptionBudget', message(meta('dev', 'dev', 'stable.example.com')))),
      ).to.equal(hex(message(meta(`${P}dev`, `${P}dev`, `${P}stable.example.com`))));
    });

    it('gives custom resources the metadata rules and their group its prefix, in the envelope too', () => {
      const body = envelope(
        'stable.example.com/v1',
        'CronTab',
        message(m(1, s(1, 'ct'), s(3, 'dev')), m(2, s(1, '*/5 * * * *'))),
        lenField(4, 'application/vnd.kubernetes.protobuf'),
      );
      const up = protobufBodyUp(ctx, body, { apiVersion: 'stable.example.com/v1', kind: 'CronTab' });
      expect(hex(up)).to.equal(
        hex(
          envelope(
            `${P}stable.example.com/v1`,
            'CronTab',
            message(m(1, s(1, 'ct'), s(3, `${P}dev`)), m(2, s(1, '*/5 * * * *'))),
            lenField(4, 'application/vnd.kubernetes.protobuf'),
          ),
        ),
      );
    });

    it('refuses, for every kind of the table, a version that has no protobuf fields (415) rather than send it up untranslated', () => {
      for (const [key, record] of KINDS) {
        const { group, kind } = splitKey(key);
        const version = 'v0alpha0';
        expect(record.protobuf, key).not.to.have.property(version);
        const error = translationError(() => rawUp(apiVersionOf(group, version), kind, message(m(1, s(1, 'x')))));
        expect([error.code, error.reason], key).to.deep.equal([415, 'UnsupportedMediaType']);
      }
      const error = translationError(() => rawUp('batch/v1beta1', 'CronJob', message(m(1, s(1, 'cj')))));
      expect([error.code, error.reason, error.message]).to.deep.equal([
        415,
        'UnsupportedMediaType',
        'protobuf bodies of kind "CronJob" (apiVersion "batch/v1beta1") cannot be translated field by field; send JSON',
      ]);
      expect(translationError(() => rawUp('v1', 'ConfigMapList', message(m(1, s(1, '/self'))))).code).to.equal(415);
    });
  });

  /**
   * Every kind of kinds/kind-records.ts that can be sent as protobuf, from that table itself: an
   * object of each (OBJECTS, keyed as the table is) is written as protobuf through the kind's
   * fields, and must go up as its JSON goes up through objectUp. A kind added to the table without
   * an object here fails the first test.
   */
  describe('every kind of kinds/kind-records.ts with protobuf fields, translated as its JSON', () => {
    const reference = (kind: string, name: string, namespace?: string) => ({
      kind,
      ...(namespace === undefined ? {} : { namespace }),
      name,
      apiVersion: 'v1',
    });
    const rules = () => [{ apiGroups: ['stable.example.com', ''], resources: ['crontabs'], resourceNames: ['ct'] }];
    const webhooks = () => [
      {
        clientConfig: { service: { namespace: 'hooks' } },
        rules: [{ scope: 'Namespaced' }],
        namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
      },
    ];
    const resourceAttributes = () => ({
      namespace: 'dev',
      group: 'stable.example.com',
      resource: 'crontabs',
      name: 'ct',
    });
    const named = (name: string, namespace?: string) => ({ name, ...(namespace === undefined ? {} : { namespace }) });

    /** Each in the tenant's view, with the fields its kind's rules rewrite (and only fields the kind's protobuf table has). */
    const OBJECTS: Record<string, Json> = {
      '/Namespace': { metadata: { name: 'dev', labels: { team: 'a' } } },
      '/ConfigMap': { metadata: named('c', 'dev') },
      '/Event': {
        metadata: named('e', 'dev'),
        involvedObject: reference('Pod', 'web', 'dev'),
        related: reference('Namespace', 'dev'),
      },
      'events.k8s.io/Event': {
        metadata: named('e', 'dev'),
        regarding: reference('Pod', 'web', 'dev'),
        related: reference('Pod', 'db', 'dev'),
      },
      '/Endpoints': {
        metadata: named('svc', 'dev'),
        subsets: [
          {
            addresses: [{ targetRef: reference('Pod', 'web', 'dev') }],
            notReadyAddresses: [{ targetRef: reference('Pod', 'db', 'dev') }],
          },
        ],
      },
      'discovery.k8s.io/EndpointSlice': {
        metadata: named('svc-1', 'dev'),
        endpoints: [{ targetRef: reference('Pod', 'web', 'dev') }],
      },
      '/PersistentVolume': {
        metadata: named('pv1'),
        spec: {
          csi: { nodePublishSecretRef: { namespace: 'kube' } },
          claimRef: reference('PersistentVolumeClaim', 'data', 'dev'),
          storageClassName: 'slow',
        },
      },
      '/PersistentVolumeClaim': {
        metadata: named('data', 'dev'),
        spec: { volumeName: 'pv1', storageClassName: 'fast' },
      },
      'storage.k8s.io/StorageClass': {
        metadata: named('fast'),
        parameters: { 'csi.storage.k8s.io/provisioner-secret-namespace': 'kube', type: 'ssd' },
      },
      'networking.k8s.io/Ingress': { metadata: named('ing', 'dev'), spec: { ingressClassName: 'nginx' } },
      'networking.k8s.io/IngressClass': {
        metadata: named('nginx'),
        spec: {
          parameters: {
            apiGroup: 'k8s.example.com',
            kind: 'IngressParameters',
            name: 'p',
            scope: 'Namespace',
            namespace: 'dev',
          },
        },
      },
      'rbac.authorization.k8s.io/Role': { metadata: named('r', 'dev'), rules: rules() },
      'rbac.authorization.k8s.io/ClusterRole': {
        metadata: named('cr'),
        rules: rules(),
        aggregationRule: {
          clusterRoleSelectors: [
            { matchExpressions: [{ key: 'rbac.example.com/aggregate', operator: 'In', values: ['true'] }] },
          ],
        },
      },
      'rbac.authorization.k8s.io/RoleBinding': {
        metadata: named('rb', 'dev'),
        subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'dev' }],
        roleRef: { kind: 'ClusterRole', name: 'reader' },
      },
      'rbac.authorization.k8s.io/ClusterRoleBinding': {
        metadata: named('crb'),
        subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'dev' }],
        roleRef: { kind: 'ClusterRole', name: 'reader' },
      },
      'apiextensions.k8s.io/CustomResourceDefinition': {
        metadata: named('crontabs.stable.example.com'),
        spec: {
          group: 'stable.example.com',
          conversion: { webhook: { clientConfig: { service: { namespace: 'conv' } } } },
        },
      },
      'admissionregistration.k8s.io/MutatingWebhookConfiguration': { metadata: named('m'), webhooks: webhooks() },
      'admissionregistration.k8s.io/ValidatingWebhookConfiguration': { metadata: named('v'), webhooks: webhooks() },
      'authentication.k8s.io/SelfSubjectReview': {
        metadata: named('ssr'),
        status: { userInfo: { username: 'alice', groups: ['devs'] } },
      },
      'authorization.k8s.io/SubjectAccessReview': {
        metadata: named('sar'),
        spec: { resourceAttributes: resourceAttributes(), user: 'alice', groups: ['devs'] },
      },
      'authorization.k8s.io/LocalSubjectAccessReview': {
        metadata: named('lsar', 'dev'),
        spec: { resourceAttributes: resourceAttributes(), user: 'alice', groups: ['devs'] },
      },
      'authorization.k8s.io/SelfSubjectAccessReview': {
        metadata: named('ssar'),
        spec: { resourceAttributes: resourceAttributes() },
      },
      'authorization.k8s.io/SelfSubjectRulesReview': {
        metadata: named('ssrr'),
        spec: { namespace: 'dev' },
        status: { resourceRules: rules() },
      },
    };

    // Pods and their templates are never rewritten in place: the gateway sends them up as JSON.
    const PROTOBUF_KINDS = [...KINDS].filter(
      ([key, record]) => Object.keys(record.protobuf).length > 0 && !POD_KINDS.has(key),
    );

    it('has an object for every kind of the table that can be sent as protobuf, and for no other', () => {
      expect(PROTOBUF_KINDS).not.to.deep.equal([]);
      const keys = PROTOBUF_KINDS.map(([key]) => key).sort();
      expect(
        Object.keys(OBJECTS).sort(),
        `kinds without an object: ${keys.filter((key) => !(key in OBJECTS)).join(', ') || 'none'}`,
      ).to.deep.equal(keys);
    });

    for (const [key, record] of PROTOBUF_KINDS) {
      for (const [version, own] of Object.entries(record.protobuf)) {
        const { group, kind } = splitKey(key);
        const apiVersion = apiVersionOf(group, version);
        it(`${apiVersion} ${kind}`, () => {
          const object = OBJECTS[key];
          expect(object, `no object for ${key} in OBJECTS`).not.to.equal(undefined);
          // The object exercises every part of the kind's own table, and nothing the table leaves out.
          for (const rule of Object.values(own))
            if (rule.type !== 'inline') expect(object, `${key}: the table's ${rule.name}`).to.have.property(rule.name);
          const request: ProtobufRequest = { apiVersion, kind };
          const body = envelope(apiVersion, kind, encode(object, protobufFieldsOf(apiVersion, kind)!, key));
          expect(protobufBodyShadow(body, request), 'the object as the table reads it').to.deep.equal(object);

          // The object in JSON, as objectUp converts it (apiVersion and kind travel in the envelope).
          const typeless = ({ apiVersion: _apiVersion, kind: _kind, ...rest }: Json) => rest;
          const expected = typeless(objectUp(ctx, { apiVersion, kind, ...object }));
          expect(protobufBodyShadow(protobufBodyUp(ctx, body, request), request)).to.deep.equal(expected);
          // The kind's own rules rewrote something: the object tests the kind, not only its metadata.
          const withoutMetadata = ({ metadata: _metadata, ...rest }: Json) => rest;
          if (Object.keys(own).length > 0)
            expect(withoutMetadata(expected), `${key}: its own fields went up unchanged`).not.to.deep.equal(
              withoutMetadata(object),
            );
          else expect(expected, key).not.to.deep.equal(object);
        });
      }
    }
  });

  describe('the envelope', () => {
    const configMap = message(m(1, s(1, 'c')), mapEntry(2, 'a', 'b'));

    it('refuses a body without the k8s\\0 magic (415)', () => {
      for (const body of [Buffer.from('{"kind":"ConfigMap"}'), Buffer.from('k8s')]) {
        const error = translationError(() => protobufBodyUp(ctx, body, { apiVersion: 'v1', kind: 'ConfigMap' }));
        expect([error.code, error.message]).to.deep.equal([
          415,
          'the body is not a Kubernetes protobuf object: it does not start with "k8s\\0"',
        ]);
      }
    });

    it('refuses an encoded raw object (415)', () => {
      const error = translationError(() =>
        protobufBodyUp(ctx, envelope('v1', 'ConfigMap', configMap, lenField(3, 'gzip')), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
        }),
      );
      expect([error.code, error.message]).to.deep.equal([
        415,
        'protobuf bodies with contentEncoding "gzip" are not supported',
      ]);
    });

    it('refuses a body whose type disagrees with the URL (400)', () => {
      const kindError = translationError(() =>
        protobufBodyUp(ctx, envelope('v1', 'ConfigMap', configMap), {
          apiVersion: 'v1',
          kind: 'Secret',
          namespace: 'dev',
        }),
      );
      expect([kindError.code, kindError.message]).to.deep.equal([
        400,
        'the kind in the data (ConfigMap) does not match the expected kind (Secret)',
      ]);
      const versionError = translationError(() =>
        protobufBodyUp(ctx, envelope('apps/v1', 'Deployment', message()), {
          apiVersion: 'batch/v1',
          kind: 'Deployment',
        }),
      );
      expect([versionError.code, versionError.message]).to.deep.equal([
        400,
        'the API version in the data (apps/v1) does not match the expected API version (batch/v1)',
      ]);
    });

    it('takes the type from the URL when the envelope has none, and writes it in, translated', () => {
      const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(2, message(m(1, s(1, 'ct'))))]);
      const up = protobufBodyUp(ctx, body, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', namespace: 'dev' });
      expect(hex(up)).to.equal(
        hex(envelope(`${P}stable.example.com/v1`, 'CronTab', message(m(1, s(1, 'ct'), s(3, `${P}dev`))))),
      );
      const error = translationError(() => protobufBodyUp(ctx, body, { apiVersion: '', kind: '' }));
      expect([error.code, error.message]).to.deep.equal([400, 'the protobuf body names no apiVersion and kind']);
    });

    it('sends up only the last raw object, which is the one the apiserver would read', () => {
      const body = envelope('v1', 'ConfigMap', message(m(1, s(1, 'first'), s(3, 'victim'))), lenField(2, configMap));
      const up = protobufBodyUp(ctx, body, { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'dev' });
      expect(hex(up)).to.equal(
        hex(envelope('v1', 'ConfigMap', message(m(1, s(1, 'c'), s(3, `${P}dev`)), mapEntry(2, 'a', 'b')))),
      );
    });
  });

  describe('hostile bytes', () => {
    const request: ProtobufRequest = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'dev' };

    it('merges a message sent twice, as the apiserver does, so no part of it escapes translation', () => {
      // Go's decoder merges both metadata fields: the namespace in the first must be translated too.
      const body = envelope('v1', 'ConfigMap', message(m(1, s(3, 'victim')), mapEntry(2, 'a', 'b'), m(1, s(1, 'c'))));
      expect(rawOf(protobufBodyUp(ctx, body, request))).to.deep.equal(
        message(m(1, s(3, `${P}victim`), s(1, 'c')), mapEntry(2, 'a', 'b')),
      );
      const binding = message(m(1, s(1, 'crb')), m(3, s(2, 'ClusterRole')), m(3, s(3, 'cluster-admin')));
      expect(hex(rawUp('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', binding))).to.equal(
        hex(
          message(
            m(1, s(1, `${P}crb`), mapEntry(11, 'kubezoo.io/cluster-role-binding-of', 'abc123')),
            m(3, s(2, 'ClusterRole'), s(3, 'abc123:cluster-admin')),
          ),
        ),
      );
    });

    it('refuses garbage lengths, truncated varints and wrong wire types (400)', () => {
      const bodies = [
        envelope('v1', 'ConfigMap', Buffer.concat([tag(1, 2), varint(50), Buffer.from('short')])),
        Buffer.concat([Buffer.from('k8s\0', 'latin1'), tag(2, 2), varint(2n ** 40n), Buffer.from('x')]),
        envelope('v1', 'ConfigMap', Buffer.concat([tag(99, 0), Buffer.from([0x80])])),
        envelope('v1', 'ConfigMap', message(intField(1, 5))),
        Buffer.concat([Buffer.from('k8s\0', 'latin1'), intField(1, 1)]),
        envelope('v1', 'ConfigMap', tag(7, 3)),
      ];
      for (const body of bodies) {
        const error = translationError(() => protobufBodyUp(ctx, body, request));
        expect([error.code, error.reason], hex(body)).to.deep.equal([400, 'BadRequest']);
        expect(error.message).to.match(/^malformed protobuf body: /);
      }
    });

    it('refuses strings it must read that are not UTF-8 (400), and copies those it does not read', () => {
      const notUtf8 = Buffer.from([0x66, 0xff, 0x6f]);
      const error = translationError(() =>
        protobufBodyUp(ctx, envelope('v1', 'ConfigMap', message(m(1, lenField(1, notUtf8)))), request),
      );
      expect([error.code, error.message]).to.deep.equal([400, 'malformed protobuf body: name is not valid UTF-8']);
      const data = message(m(1, s(1, 'c')), lenField(2, message(s(1, 'k'), lenField(2, notUtf8))));
      expect(hex(rawUp('v1', 'ConfigMap', data))).to.equal(hex(data));
    });

    // No timing is asserted: a hang, or a pass quadratic in the depth, ends at the test's timeout.
    it('copies 10k nested messages off the table without reading them, and refuses them where it must read (never a hang)', () => {
      const nested = (field: number, depth: number) => {
        let inner = Buffer.from('core');
        for (let level = 0; level < depth; level++) inner = lenField(field, inner);
        return inner;
      };
      const offTable = message(m(1, s(1, 'c'), lenField(50, nested(1, 10_000))), lenField(60, nested(60, 10_000)));
      expect(hex(rawUp('v1', 'ConfigMap', offTable))).to.equal(hex(offTable));
      // Along metadata (1) → name (1) the nesting is a name, and not UTF-8 once lengths take two bytes.
      expect(translationError(() => rawUp('v1', 'ConfigMap', nested(1, 10_000))).code).to.equal(400);
      expect(
        translationError(() => rawUp('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', nested(3, 10_000))).code,
      ).to.equal(400);
    });

    // A rewrite quadratic in the labels would not end within the test's timeout; no timing is asserted.
    it('rewrites a 3 MiB Namespace of 100k labels', () => {
      const labels = Array.from({ length: 100_000 }, (_, index) => mapEntry(11, `key-${index}`, 'value'));
      const body = envelope('v1', 'Namespace', lenField(1, Buffer.concat([s(1, 'big'), ...labels])));
      const translated = protobufBodyUp(ctx, body, { apiVersion: 'v1', kind: 'Namespace' });
      const up = decodeKubernetesProtobuf(translated).object as Json;
      expect(Object.keys(up.metadata.labels)).to.have.length(100_001);
      expect(up.metadata.labels['kubezoo.io/tenant']).to.equal('abc123');
    });
  });

  describe('properties over random objects of every kind the full decoder knows', () => {
    interface Sample {
      bytes: Buffer;
      /** Fields neither the decoder nor the rewrite knows, as sent: they must arrive byte for byte. */
      unknown: Buffer[];
    }
    const STRINGS = [
      '',
      'x',
      'dev',
      'default',
      'alice',
      'devs',
      'system:masters',
      'system:serviceaccounts:dev',
      'system:serviceaccount:dev:sa',
      'User',
      'Group',
      'ServiceAccount',
      'Role',
      'ClusterRole',
      'Namespace',
      'ConfigMap',
      'PriorityClass',
      'v1',
      'apps/v1',
      'stable.example.com',
      'stable.example.com/v1',
      '*',
      'pods',
      'namespaces',
      'clusterroles',
      'kubernetes.io/metadata.name',
      'kubezoo.io/tenant',
      'abc123',
      '__proto__',
      'é',
    ];
    const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);
    /** What the bytes of a message with a JSON form of its own hold (RawExtension, FieldsV1, a CRD schema's JSON). */
    const JSON_TEXTS = ['{}', '{"a":1}', '[1,"x"]', '"é"', 'true'];
    const MAX_DEPTH = 7;

    const unknownField: fc.Arbitrary<Buffer> = fc
      .tuple(
        fc.integer({ min: 1000, max: 2 ** 29 - 1 }),
        fc.oneof(
          fc.bigInt({ min: 2n ** 40n, max: 2n ** 63n }).map((value) => [0, varint(value)] as const),
          fc.uint8Array({ minLength: 8, maxLength: 8 }).map((value) => [1, Buffer.from(value)] as const),
          fc
            .uint8Array({ minLength: 12, maxLength: 12 })
            .map((value) => [2, Buffer.concat([varint(12), value])] as const),
          fc.uint8Array({ minLength: 4, maxLength: 4 }).map((value) => [5, Buffer.from(value)] as const),
        ),
      )
      .map(([field, [wireType, value]]) => Buffer.concat([tag(field, wireType), value]));

    function scalar(type: string, inCustom: boolean): fc.Arbitrary<(field: number) => Buffer> {
      switch (type) {
        case 'string':
          return fc.constantFrom(...STRINGS).map((value) => (field: number) => lenField(field, value));
        case 'bytes':
          if (inCustom) return fc.constantFrom(...JSON_TEXTS).map((text) => (field: number) => lenField(field, text));
          return fc.uint8Array({ maxLength: 4 }).map((value) => (field: number) => lenField(field, Buffer.from(value)));
        case 'double':
          return fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (field: number) => {
            const bytes = Buffer.alloc(8);
            bytes.writeDoubleLE(value);
            return Buffer.concat([tag(field, 1), bytes]);
          });
        case 'bool':
          return fc.boolean().map((value) => (field: number) => intField(field, value ? 1 : 0));
        default:
          return fc.integer({ min: -100_000, max: 100_000 }).map((value) => (field: number) => intField(field, value));
      }
    }

    const messages = new Map<string, fc.Arbitrary<Sample>>();
    /** A random message of the schema, as bytes, with unknown fields slipped in among its own. */
    function messageOf(name: string, depth: number): fc.Arbitrary<Sample> {
      const key = `${name}@${depth}`;
      const known = messages.get(key);
      if (known) return known;
      const fields = Object.entries(MESSAGES[name]).flatMap(([number, spec]) => {
        // The decoder skips what the server owns, so it could not tell what the rewrite made of it.
        if (spec.serverOwned) return [];
        const occurrence = field(Number(number), spec, depth, CUSTOM_JSON.has(name));
        if (occurrence === undefined) return [];
        // Most fields absent, so that objects stay small however deep the schema goes.
        const present =
          spec.repeated || spec.map
            ? fc.array(occurrence, { minLength: 1, maxLength: 2 })
            : occurrence.map((one) => [one]);
        return [fc.oneof({ arbitrary: fc.constant([]), weight: 1 }, { arbitrary: present, weight: 1 })];
      });
      const arbitrary = fc
        .tuple(fc.tuple(...fields), fc.array(unknownField, { maxLength: 1 }), fc.nat())
        .map(([present, unknown, at]) => {
          const parts = present.flat();
          const bytes = parts.map((part) => part.bytes);
          bytes.splice(at % (bytes.length + 1), 0, ...unknown);
          return { bytes: Buffer.concat(bytes), unknown: [...parts.flatMap((part) => part.unknown), ...unknown] };
        });
      messages.set(key, arbitrary);
      return arbitrary;
    }

    function field(
      number: number,
      spec: FieldSpec,
      depth: number,
      inCustom: boolean,
    ): fc.Arbitrary<Sample> | undefined {
      const value = SCALARS.has(spec.type)
        ? scalar(spec.type, inCustom).map((write) => ({ write, unknown: [] as Buffer[] }))
        : depth < MAX_DEPTH
          ? messageOf(spec.type, depth + 1).map((sample) => ({
              write: (at: number) => lenField(at, sample.bytes),
              unknown: sample.unknown,
            }))
          : undefined;
      if (value === undefined) return undefined;
      if (!spec.map) return value.map(({ write, unknown }) => ({ bytes: write(number), unknown }));
      return fc.tuple(fc.constantFrom(...STRINGS), value).map(([key, { write, unknown }]) => ({
        bytes: lenField(number, message(lenField(1, key), write(2))),
        unknown,
      }));
    }

    /** The kinds the devcluster serves, its resources' and their subresources'. */
    const served = new Set(
      BUILTIN_RESOURCES.flatMap((resource) =>
        [resource, ...resource.subresources.map((sub) => ({ ...resource, ...sub }))].map(
          ({ group, version, kind }) => `${group ? `${group}/` : ''}${version}/${kind}`,
        ),
      ),
    );
    // Objects only (not the options kinds of exec, attach…, read from the query), and not
    // ControllerRevision, whose raw `data` the gateway takes only as JSON (tested above).
    const TOP_LEVEL = [...TOP_LEVEL_MESSAGES]
      .filter(([type, name]) => served.has(type) && MESSAGES[name][1]?.name === 'metadata')
      .map(([type, name]) => {
        const kind = type.slice(type.lastIndexOf('/') + 1);
        return { apiVersion: type.slice(0, type.lastIndexOf('/')), kind, name };
      })
      .filter(({ apiVersion, kind }) => protobufFieldsOf(apiVersion, kind) !== undefined)
      // Pods and their templates are refused, below: the gateway decodes them whole.
      .filter(({ apiVersion, kind }) => !POD_KINDS.has(`${groupOfApiVersion(apiVersion)}/${kind}`));
    const cases = fc.constantFrom(...TOP_LEVEL).chain((top) =>
      fc.record({
        top: fc.constant(top),
        object: messageOf(top.name, 0),
        withNamespace: fc.boolean(),
        withType: fc.boolean(),
        extra: fc.array(unknownField, { maxLength: 1 }),
      }),
    );

    it('refuses pods and pod templates (pointing them at the gateway adds fields no table reads): the gateway sends them up as JSON', () => {
      const pods = [...TOP_LEVEL_MESSAGES]
        .map(([type, name]) => ({
          apiVersion: type.slice(0, type.lastIndexOf('/')),
          kind: type.slice(type.lastIndexOf('/') + 1),
          name,
        }))
        .filter(({ apiVersion, kind }) => POD_KINDS.has(`${groupOfApiVersion(apiVersion)}/${kind}`));
      expect(pods.map(({ kind }) => kind)).to.include.members(['Pod', 'Deployment', 'CronJob']);
      for (const { apiVersion, kind } of pods) {
        const error = translationError(() =>
          protobufBodyUp(ctx, envelope(apiVersion, kind, Buffer.alloc(0)), { apiVersion, kind }),
        );
        expect([error.code, error.message], kind).to.deep.equal([
          415,
          `protobuf bodies of kind "${kind}" (apiVersion "${apiVersion}") cannot be translated field by field; send JSON`,
        ]);
      }
    });

    it('translates every object as objectUp translates its JSON, and keeps unknown fields byte for byte', () => {
      fc.assert(
        fc.property(cases, ({ top, object, withNamespace, withType, extra }) => {
          const body = envelope(top.apiVersion, top.kind, object.bytes, ...extra);
          const sent = withType
            ? body
            : Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(2, object.bytes), ...extra]);
          const request: ProtobufRequest = {
            apiVersion: top.apiVersion,
            kind: top.kind,
            ...(withNamespace && isNamespaced(top.apiVersion, top.kind) ? { namespace: 'dev' } : {}),
          };
          let expected: Json | TranslationError;
          try {
            expected = jsonUp(decodeKubernetesProtobuf(body).object, request);
          } catch (err) {
            if (!(err instanceof TranslationError)) throw err;
            expected = err;
          }
          if (expected instanceof TranslationError) {
            const error = translationError(() => protobufBodyUp(ctx, sent, request));
            expect([error.code, error.message]).to.deep.equal([expected.code, expected.message]);
            return;
          }
          const up = protobufBodyUp(ctx, sent, request);
          expect(decodeKubernetesProtobuf(up).object).to.deep.equal(expected);
          for (const unknown of [...object.unknown, ...extra])
            expect(up.includes(unknown), hex(unknown)).to.equal(true);
          // Nothing to translate: not a byte changes.
          if (
            withType &&
            request.namespace === undefined &&
            isDeepStrictEqual(expected, decodeKubernetesProtobuf(body).object)
          )
            expect(hex(up)).to.equal(hex(body));
        }),
        { seed: testSeed(import.meta.url, 20260302).seed, numRuns: 1000 },
      );
    });
  });
});
