import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { decodeKubernetesProtobuf } from '../../apiserver/protobuf/decode.js';
import { CUSTOM_JSON_FORMS } from '../../apiserver/protobuf/custom-json.js';
import { CUSTOM_JSON, ENVELOPE, MESSAGES, TOP_LEVEL_MESSAGES } from '../../apiserver/protobuf/schema.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { exampleCrd } from '../support/crd-fixture.js';
import { encodeKubernetesProtobuf } from '../support/protobuf-encode.js';
import { withoutEmpties } from '../support/without-empties.js';

/**
 * kube's own round-trip samples (k8s.io/api testdata/HEAD at the table's release): one object of
 * each kind with every field set, as the real Go encoders write it in protobuf and in JSON.
 */
const SAMPLES = JSON.parse(
  gunzipSync(
    readFileSync(new URL('../../../test/apiserver/fixtures/kubernetes-roundtrip.json.gz', import.meta.url)),
  ).toString('utf8'),
) as Record<string, { pb: string; json: Record<string, any> }>;

/**
 * The kinds a client may send as a body: every built-in resource with a create, update or patch
 * verb and every subresource that takes one (Binding, Eviction, TokenRequest, Scale…), and the
 * HorizontalPodAutoscaler that `kubectl autoscale` sends, in both served versions.
 */
const WRITABLE = new Map<string, string>();
for (const resource of BUILTIN_RESOURCES) {
  const writable = (verbs: string[]) => verbs.some((verb) => ['create', 'update', 'patch'].includes(verb));
  const apiVersion = (group: string, version: string) => (group ? `${group}/${version}` : version);
  const type = `${apiVersion(resource.group, resource.version)}/${resource.kind}`;
  if (writable(resource.verbs)) WRITABLE.set(type, resource.resource);
  for (const sub of resource.subresources) {
    // Connect subresources (exec, attach, proxy…) take options from the query, not a body.
    if (!writable(sub.verbs) || sub.kind.endsWith('Options')) continue;
    const subType = `${apiVersion(sub.group ?? resource.group, sub.version ?? resource.version)}/${sub.kind}`;
    if (!WRITABLE.has(subType)) WRITABLE.set(subType, `${resource.resource}/${sub.name}`);
  }
}
WRITABLE.set('autoscaling/v1/HorizontalPodAutoscaler', 'horizontalpodautoscalers');
WRITABLE.set('autoscaling/v2/HorizontalPodAutoscaler', 'horizontalpodautoscalers');

const MANAGED_FIELDS = new Set(['managedFields']);

/**
 * Where the decoder departs from Go's JSON on purpose (decode.ts, schema.ts): what the server owns
 * (managedFields of every ObjectMeta, templates' too; a review's status) is skipped, and empties.
 */
function comparable(object: Record<string, any>, type: string): unknown {
  const copy = { ...object };
  const message = TOP_LEVEL_MESSAGES.get(type)!;
  for (const field of Object.values(MESSAGES[message])) if (field.serverOwned) delete copy[field.name];
  return withoutEmpties(copy, MANAGED_FIELDS);
}

/** The sample's name in kube's testdata: `<group or core>.<version>.<Kind>`. */
function sampleName(type: string): string {
  const parts = type.split('/');
  return [parts.length === 2 ? 'core' : parts[0], ...parts.slice(-2)].join('.');
}

/** A CRD with every shape a schema's custom JSON forms take (kube publishes no protobuf sample of one). */
function crdSample(): Record<string, any> {
  const crd = exampleCrd('widgets', 'Widget', 'Namespaced') as Record<string, any>;
  crd.spec.versions[0].schema.openAPIV3Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1, maximum: 10.5, default: 3, example: { any: ['json'] } },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
          tuple: { type: 'array', items: [{ type: 'string' }, { type: 'number', multipleOf: 0.5 }] },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          open: { type: 'object', additionalProperties: false },
        },
        dependencies: { size: ['tags'], tags: { required: ['size'] } },
        'x-kubernetes-validations': [{ rule: 'self.size < 11', message: 'too big' }],
      },
    },
  };
  return crd;
}

describe('protobuf bodies of every kind a client may write (apiserver/protobuf)', () => {
  for (const [type, resource] of WRITABLE) {
    describe(`${type} (${resource})`, () => {
      it('has a protobuf message', () => {
        expect(TOP_LEVEL_MESSAGES.has(type), `no protobuf message for ${type}`).to.equal(true);
      });

      const sample = SAMPLES[sampleName(type)];
      if (sample) {
        it("decodes kube's own protobuf sample into kube's own JSON of it", () => {
          const decoded = decodeKubernetesProtobuf(Buffer.from(sample.pb, 'base64'));
          expect(`${decoded.apiVersion}/${decoded.kind}`).to.equal(type);
          expect(comparable(decoded.object, type)).to.deep.equal(comparable(sample.json, type));
        });
      }

      it('round-trips a sample through the table', () => {
        const object =
          sample?.json ?? (type === 'apiextensions.k8s.io/v1/CustomResourceDefinition' ? crdSample() : undefined);
        expect(object, `no sample of ${type}`).to.not.equal(undefined);
        const decoded = decodeKubernetesProtobuf(encodeKubernetesProtobuf(object));
        expect(comparable(decoded.object, type)).to.deep.equal(comparable(object, type));
      });
    });
  }

  it('gives every message with a JSON form of its own (Time, Quantity, RawExtension…) a converter', () => {
    // The envelope is read as the envelope, never as a field.
    expect([...CUSTOM_JSON].filter((name) => name !== ENVELOPE && !(name in CUSTOM_JSON_FORMS))).to.deep.equal([]);
  });
});
