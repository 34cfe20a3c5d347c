/**
 * The cached form of an object: what readers get from it (metadata, selectable fields, text) is
 * what the cluster sent, though most of it is read from the text or shared between objects.
 */
import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { CachedObject } from '../../search/cached-object.js';
import { answerText, CACHE_SOURCE_ANNOTATION, cachedText } from '../../search/cached-object-text.js';
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
});
