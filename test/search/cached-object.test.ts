/**
 * The cached form of an object: what readers get from it (metadata, selectable fields, text) is
 * what the cluster sent, though most of it is read from the text or shared between objects.
 */
import { expect } from 'chai';
import v8, { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import { CachedObject } from '../../search/cached-object.js';
import { answerText, CACHE_SOURCE_ANNOTATION, cachedText, objectText } from '../../search/cached-object-text.js';
import { fieldsForSelector, selectableFieldsOf, toCachedObject } from '../../search/to-cached-object.js';
import { rawPod } from '../support/cached-objects.js';

const podFields = selectableFieldsOf('', 'pods', true);

describe('cache: CachedObject', () => {
  it('reads name, namespace, labels, resourceVersion and uid as the cluster sent them', () => {
    const cached = toCachedObject(
      rawPod('a', { namespace: 'ns1', resourceVersion: '42', labels: { app: 'x' } }),
      podFields,
    );
    expect(cached.metadata.name).to.equal('a');
    expect(cached.metadata.namespace).to.equal('ns1');
    expect(cached.metadata.labels).to.deep.equal({ app: 'x' });
    expect(cached.metadata.resourceVersion).to.equal('42');
    expect(cached.metadata.uid).to.equal('uid-a');
    expect(JSON.parse(cached.text).metadata.name).to.equal('a');
  });

  it('keeps the selectable fields that have a value, and gives name and namespace to selectors', () => {
    const cached = toCachedObject(rawPod('a', { nodeName: 'n1', phase: 'Running' }), podFields);
    expect(cached.fields).to.deep.equal({
      'spec.nodeName': 'n1',
      'spec.host': 'n1',
      'spec.hostNetwork': 'false',
      'status.phase': 'Running',
    });
    expect(fieldsForSelector(cached)).to.include({ 'metadata.name': 'a', 'metadata.namespace': 'default' });
    const configMap = toCachedObject({ metadata: { name: 'c' } }, selectableFieldsOf('', 'configmaps', true));
    expect(configMap.fields, 'no values: an empty record').to.deep.equal({});
  });

  it('reads back a resourceVersion that JSON escapes, or none', () => {
    for (const resourceVersion of ['1"2', 'a\\b', '', 'ü\n']) {
      const cached = toCachedObject(rawPod('a', { resourceVersion }), podFields);
      expect(cached.metadata.resourceVersion).to.equal(resourceVersion);
      expect(JSON.parse(answerText(cached, { kind: 'Pod', apiVersion: 'v1' }, 'c', '7')).metadata).to.include({
        resourceVersion: '7',
        name: 'a',
      });
    }
    expect(toCachedObject(rawPod('a'), podFields).metadata.resourceVersion).to.equal('');
  });

  it('reads a text in another layout by parsing it', () => {
    const cached = new CachedObject(
      '{"metadata":{"uid":"u","resourceVersion":"5"}}',
      'a',
      undefined,
      undefined,
      [],
      undefined,
    );
    expect(cached.metadata.resourceVersion).to.equal('5');
    expect(cached.metadata.uid).to.equal('u');
  });

  it('objects with the same labels share one frozen set, apart from the object sent', () => {
    const labels = { app: 'web', 'pod-template-hash': '7d9f8c6b5' };
    const raws = ['a', 'b'].map((name) => rawPod(name, { namespace: 'a-long-namespace-name', labels: { ...labels } }));
    const [a, b] = raws.map((raw) => toCachedObject(raw, podFields));
    expect(a.metadata.labels).to.equal(b.metadata.labels);
    expect(Object.isFrozen(a.metadata.labels)).to.equal(true);
    expect(Object.isFrozen(raws[0].metadata.labels), 'the object sent is not changed').to.equal(false);
    expect(a.metadata.labels).to.deep.equal(labels);
  });

  it('label sets of the same keys share one hidden class, however many first keys the process has made objects with', () => {
    setFlagsFromString('--allow-natives-syntax');
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's own check of hidden classes is only reachable as source
    const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    // Records keyed by tenant or namespace: past about 1,500 first keys V8 stops sharing new classes from the empty object's.
    const records = Array.from({ length: 3000 }, (_, i) => ({ [`t${i}-default`]: i }));
    const [a, b] = ['t1', 't2'].map((tenant) =>
      toCachedObject(
        rawPod(`p-${tenant}`, { labels: { 'kubezoo.io/tenant': tenant, 'kubernetes.io/metadata.name': tenant } }),
        podFields,
      ),
    );
    expect(records).to.have.length(3000);
    expect(a.metadata.labels).to.not.equal(b.metadata.labels);
    expect(sameHiddenClass(a.metadata.labels!, b.metadata.labels!)).to.equal(true);
  });

  it("holds once the long annotation and data values other objects hold too, and answers each object's text whole", () => {
    const ca = `-----BEGIN CERTIFICATE-----\n${'MIIBcTCCARagAwIBAgIQbTsLiGsQ7L6x8GzV74IiQzAKBggqhkjOPQQDAjAYMRYw\n'.repeat(8)}-----END CERTIFICATE-----\n`;
    const description = `Contains a CA bundle that can be used to verify the kube-apiserver ${'when using internal endpoints. '.repeat(5)}`;
    const configMapFields = selectableFieldsOf('', 'configmaps', true);
    const rootCa = (namespace: string, resourceVersion: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'kube-root-ca.crt',
        namespace,
        resourceVersion,
        uid: `uid-${namespace}`,
        annotations: { 'kubernetes.io/description': description, short: 'own' },
      },
      data: { 'ca.crt': ca },
    });
    const raws = ['t1-default', 't1-kube-system', 't2-default'].map((namespace, i) =>
      rootCa(namespace, String(10 + i)),
    );
    const cached = raws.map((raw) => toCachedObject(structuredClone(raw), configMapFields));
    const bodies = cached.map((object) => (object as unknown as { body: string | string[] }).body);
    expect(typeof bodies[0], 'the first holder keeps its text whole').to.equal('string');
    for (const body of bodies.slice(1)) {
      expect(body, 'the later ones: own pieces around the shared values').to.have.length(5);
      expect([body[1], body[3]]).to.deep.equal([JSON.stringify(description), JSON.stringify(ca)]);
    }
    const type = { kind: 'ConfigMap', apiVersion: 'v1' };
    cached.forEach((object, i) => {
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = raws[i];
      expect(JSON.parse(object.text)).to.deep.equal(rest);
      expect(object.text, 'as the whole text would be').to.equal(cachedText(raws[i]));
      expect(object.metadata.resourceVersion).to.equal(String(10 + i));
      expect(object.metadata.uid).to.equal(`uid-${raws[i].metadata.namespace}`);
      const answer = JSON.parse(answerText(object, type, 'c', '99'));
      expect(answer.data).to.deep.equal({ 'ca.crt': ca });
      expect(answer.metadata.resourceVersion).to.equal('99');
      expect(answer.metadata.annotations).to.deep.equal({
        [CACHE_SOURCE_ANNOTATION]: 'c',
        'kubernetes.io/description': description,
        short: 'own',
      });
    });
    const short = ['a', 'b'].map((namespace) =>
      toCachedObject({ metadata: { name: 'c', namespace }, data: { key: 'x'.repeat(120) } }, configMapFields),
    );
    expect(typeof (short[1] as unknown as { body: unknown }).body, 'a short value is not worth it').to.equal('string');
  });

  it("holds once the body a binding shares with others (the tenant's grant in each of its namespaces), and answers each whole", () => {
    const bindingFields = selectableFieldsOf('rbac.authorization.k8s.io', 'rolebindings', true);
    const grant = (tenant: string, namespace: string, resourceVersion: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: {
        name: 'paddock:cluster-admin',
        namespace: `${tenant}-${namespace}`,
        resourceVersion,
        uid: `uid-${tenant}-${namespace}`,
        labels: { 'kubezoo.io/tenant': tenant },
      },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${tenant}-cluster-admin` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${tenant}-admin` }],
    });
    const raws = [
      grant('bdy111', 'default', '10'),
      grant('bdy111', 'kube-system', '11'),
      grant('bdy222', 'default', '12'),
      grant('bdy111', 'kube-public', '13'),
    ];
    const cached = raws.map((raw) => toCachedObject(structuredClone(raw), bindingFields));
    const bodies = cached.map((object) => (object as unknown as { body: string | string[] }).body);
    const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...members } = raws[0];
    const body = JSON.stringify(members).slice(1, -1);
    expect(typeof bodies[0], 'the first holder keeps its text whole').to.equal('string');
    expect(typeof bodies[2], "another tenant's grant: a body of its own").to.equal('string');
    for (const spliced of [bodies[1], bodies[3]])
      expect([...spliced])
        .to.have.length(3)
        .and.to.include(body);
    const type = { kind: 'RoleBinding', apiVersion: 'rbac.authorization.k8s.io/v1' };
    cached.forEach((object, i) => {
      const whole = { text: cachedText(raws[i]) };
      expect(object.text).to.equal(whole.text);
      expect(answerText(object, type, 'c', '99')).to.equal(answerText(whole, type, 'c', '99'));
      expect(object.metadata.resourceVersion).to.equal(raws[i].metadata.resourceVersion);
      expect(object.metadata.uid).to.equal(raws[i].metadata.uid);
    });
  });

  describe('managedFields', () => {
    const namespaceFields = selectableFieldsOf('', 'namespaces', false);
    const NAMESPACE = { kind: 'Namespace', apiVersion: 'v1' };
    /** A namespace as the gateway makes one for a tenant: only the names, uid and times differ. */
    const namespace = (name: string, time: string, fieldsV1: object = NAMESPACE_FIELDS) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        resourceVersion: String(name.length),
        uid: `uid-${name}`,
        labels: { 'kubezoo.io/tenant': name.slice(0, 6), 'kubernetes.io/metadata.name': name },
        creationTimestamp: time,
        managedFields: [
          { manager: 'unknown', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1 },
        ],
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });

    it("holds each entry's text beside its time once, and answers every object byte for byte as the cluster sent it", () => {
      const raws = [
        namespace('mf0001-default', '2026-12-06T04:50:17Z'),
        namespace('mf0001-kube-system', '2026-12-06T04:50:18Z'),
        namespace('mf0002-default', '2026-12-06T05:01:02Z'),
      ];
      // A second manager's entry after the first, and an entry with no time.
      raws[2].metadata.managedFields.push(
        { ...raws[2].metadata.managedFields[0], manager: 'kubectl-label', time: '2026-12-06T05:09:09Z' },
        { ...raws[2].metadata.managedFields[0], manager: 'no-time', time: undefined as unknown as string },
      );
      const cached = raws.map((raw) => toCachedObject(structuredClone(raw), namespaceFields));
      const bodies = cached.map((object) => (object as unknown as { body: string | string[] }).body);
      expect(typeof bodies[0], 'the first holder keeps its text whole').to.equal('string');
      const entry = JSON.stringify(raws[1].metadata.managedFields[0]);
      const [head, tail] = entry.split('"2026-12-06T04:50:18Z"');
      expect(bodies[1], 'own pieces around the entry: the time its own').to.have.length(5);
      expect(bodies[1].slice(1, 4)).to.deep.equal([head, '"2026-12-06T04:50:18Z"', tail]);
      expect(bodies[2]).to.include.members([head, tail, '"2026-12-06T05:01:02Z"']);
      expect(
        [...bodies[2]].filter((piece) => piece === tail),
        "the second manager's entry: its fieldsV1 shared, its head a first",
      ).to.have.length(2);
      cached.forEach((object, i) => {
        const whole = { text: cachedText(raws[i]) };
        expect(object.text).to.equal(whole.text);
        expect(objectText(object, NAMESPACE)).to.equal(objectText(whole, NAMESPACE));
        expect(answerText(object, NAMESPACE, 'c', '99')).to.equal(answerText(whole, NAMESPACE, 'c', '99'));
        expect(object.metadata.resourceVersion).to.equal(raws[i].metadata.resourceVersion);
        const { apiVersion: _apiVersion, kind: _kind, ...rest } = JSON.parse(JSON.stringify(raws[i]));
        expect(JSON.parse(object.text)).to.deep.equal(rest);
      });
    });

    it('objects whose entries have the same fieldsV1 share its storage: a heap of 2,000 holds about one', () => {
      const gc = collector();
      // 4 KiB of fieldsV1, the same in every object: 8 MiB if each held its own.
      const fieldsV1 = { 'f:metadata': { 'f:labels': Object.fromEntries(LABEL_KEYS.map((key) => [key, {}])) } };
      expect(JSON.stringify(fieldsV1).length).to.be.above(4096);
      const second = (i: number) =>
        `2026-12-06T05:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
      const raws = Array.from({ length: 2000 }, (_, i) =>
        namespace(`mf${String(i).padStart(4, '0')}-default`, second(i), fieldsV1),
      );
      gc();
      const before = v8.getHeapStatistics().used_heap_size;
      const cached = raws.map((raw) => toCachedObject(raw, namespaceFields));
      gc();
      const grown = v8.getHeapStatistics().used_heap_size - before;
      expect(cached).to.have.length(2000);
      expect(grown).to.be.below(2 * 1024 * 1024);
    });
  });
});

const NAMESPACE_FIELDS = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {}, 'f:kubezoo.io/tenant': {} } },
  'f:spec': { 'f:finalizers': {} },
};
const LABEL_KEYS = Array.from({ length: 160 }, (_, i) => `f:example.com/label-number-${i}`);

/** The collector, as `--expose-gc` would give it, for a test that reads what the heap holds. */
/**
 * A full collection whose heap figures can be read at once: the second collection finishes the
 * first's sweeping, which V8 otherwise does on other threads (slower when the machine is busy,
 * leaving garbage counted as used).
 */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}
