/**
 * The multi-cluster resourceVersion and continue token in karmada-search's formats: the cases of
 * Karmada's pkg/search/proxy/store/util_test.go, replayed, and a round trip of any map.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { formatMultiClusterContinue, parseMultiClusterContinue } from '../../search/multi-cluster-continue.js';
import {
  MultiClusterResourceVersion,
  recoverClusterResourceVersion,
} from '../../search/multi-cluster-resource-version.js';
import { testSeed } from '../support/seed.js';

const encode = (text: string) => Buffer.from(text).toString('base64url');

function versionsOf(parsed: MultiClusterResourceVersion): { rvs: Record<string, string>; isZero: boolean } {
  return { rvs: Object.fromEntries(parsed.entries()), isZero: parsed.isZero };
}

function built(rvs: Record<string, string>, isZero = false): MultiClusterResourceVersion {
  const version = MultiClusterResourceVersion.parse(isZero ? '0' : '');
  for (const [cluster, rv] of Object.entries(rvs)) version.set(cluster, rv);
  return version;
}

describe('cache: multi-cluster resourceVersion and continue (Karmada util_test.go)', () => {
  describe('newMultiClusterResourceVersionFromString', () => {
    const cases: [string, string, Record<string, string>, boolean][] = [
      ['empty', '', {}, false],
      ['zero', '0', {}, true],
      ['decode error', '`not encoded`', {}, false],
      ['not a json', encode('not a json'), {}, false],
      ['success - normal', encode('{"cluster1":"1","cluster2":"2"}'), { cluster1: '1', cluster2: '2' }, false],
      ['success - empty cluster name', encode('{"":"1","cluster2":"2"}'), { '': '1', cluster2: '2' }, false],
      [
        'success - empty ResourceVersion',
        encode('{"cluster1":"","cluster2":""}'),
        { cluster1: '', cluster2: '' },
        false,
      ],
    ];
    for (const [title, text, rvs, isZero] of cases) {
      it(title, () => expect(versionsOf(MultiClusterResourceVersion.parse(text))).to.deep.equal({ rvs, isZero }));
    }
    it('padded base64, or the standard alphabet, is not RawURLEncoding and reads as empty', () => {
      const padded = Buffer.from('{"c1":"1"}').toString('base64');
      expect(padded.endsWith('=')).to.equal(true);
      expect(versionsOf(MultiClusterResourceVersion.parse(padded)).rvs).to.deep.equal({});
    });
    it('an entry that is no string is skipped, the others kept (Go decodes what it can)', () => {
      const parsed = MultiClusterResourceVersion.parse(encode('{"c1":1,"c2":"2"}'));
      expect(versionsOf(parsed).rvs).to.deep.equal({ c2: '2' });
    });
  });

  describe('RecoverClusterResourceVersion (what an update sends to the cluster)', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const cases: [string, string, string][] = [
      ['rv is empty', '', ''],
      ['rv is 0', '0', '0'],
      ['single cluster rv', '1000', '1000'],
      ['cluster rv not set', b64('{}'), ''],
      ['recover cluster rv', b64('{"cluster1":"1","cluster2":"2"}'), '1'],
    ];
    for (const [name, rv, want] of cases)
      it(name, () => expect(recoverClusterResourceVersion(rv, 'cluster1')).to.equal(want));
  });

  describe('multiClusterResourceVersion.get', () => {
    it('zero', () => expect(built({}, true).get('cluster1')).to.equal('0'));
    it('not exist', () => expect(built({}).get('cluster1')).to.equal(''));
    it('get success', () => expect(built({ cluster1: '1' }).get('cluster1')).to.equal('1'));
  });

  describe('multiClusterResourceVersion.String', () => {
    it('zero', () => expect(built({}, true).toString()).to.equal('0'));
    it('empty', () => expect(built({}).toString()).to.equal(''));
    it('get success - normal', () =>
      expect(built({ cluster2: '2', cluster1: '1' }).toString()).to.equal(encode('{"cluster1":"1","cluster2":"2"}')));
    it('get success - empty cluster name', () =>
      expect(built({ '': '1', cluster2: '2' }).toString()).to.equal(encode('{"":"1","cluster2":"2"}')));
    it('get success - empty ResourceVersion', () =>
      expect(built({ cluster1: '', cluster2: '' }).toString()).to.equal(encode('{"cluster1":"","cluster2":""}')));
    it("the design's example: {cluster1: 1000}", () =>
      expect(built({ cluster1: '1000' }).toString()).to.equal('eyJjbHVzdGVyMSI6IjEwMDAifQ'));
    it('setting a version other than "0" ends "0"; setting "0" keeps it', () => {
      const zero = built({}, true);
      zero.set('c1', '0');
      expect(zero.toString()).to.equal('0');
      zero.set('c2', '7');
      expect(zero.toString()).to.equal(encode('{"c1":"0","c2":"7"}'));
    });
  });

  describe('BuildMultiClusterResourceVersion', () => {
    it('empty map is ""', () => expect(built({}).toString()).to.equal(''));
    it('a map prints sorted', () => expect(built({ b: '2', a: '1' }).toString()).to.equal(encode('{"a":"1","b":"2"}')));
  });

  describe('newMultiClusterContinueFromString', () => {
    const cases: [string, string, { rv: string; cluster: string; continue: string }][] = [
      ['empty', '', { rv: '', cluster: '', continue: '' }],
      ['not encoded', 'not encoded', { rv: '', cluster: '', continue: '' }],
      ['not json', encode('not json'), { rv: '', cluster: '', continue: '' }],
      ['success', encode('{"cluster":"cluster1","continue":"1"}'), { rv: '', cluster: 'cluster1', continue: '1' }],
      ['keys match fields in any case', encode('{"Cluster":"c","RV":"x"}'), { rv: 'x', cluster: 'c', continue: '' }],
    ];
    for (const [title, text, want] of cases)
      it(title, () => expect(parseMultiClusterContinue(text)).to.deep.equal(want));
  });

  describe('multiClusterContinue.String', () => {
    it('empty', () => expect(formatMultiClusterContinue({ rv: '', cluster: '', continue: '' })).to.equal(''));
    it('no cluster is "" whatever else is set', () =>
      expect(formatMultiClusterContinue({ rv: '123', cluster: '', continue: '1' })).to.equal(''));
    it('success', () =>
      expect(formatMultiClusterContinue({ rv: '123', cluster: 'cluster1', continue: '1' })).to.equal(
        encode('{"rv":"123","cluster":"cluster1","continue":"1"}'),
      ));
    it('continue is omitted when empty, rv is not', () =>
      expect(formatMultiClusterContinue({ rv: '', cluster: 'c2', continue: '' })).to.equal(
        encode('{"rv":"","cluster":"c2"}'),
      ));
    it("escapes as Go's encoder does", () =>
      expect(formatMultiClusterContinue({ rv: '', cluster: 'c', continue: 'a<b>&' })).to.equal(
        encode('{"rv":"","cluster":"c","continue":"a\\u003cb\\u003e\\u0026"}'),
      ));
  });

  it('any map of versions survives a round trip, and any token too', () => {
    const { seed } = testSeed(import.meta.url);
    const name = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    fc.assert(
      fc.property(fc.dictionary(name, fc.stringMatching(/^[0-9]{1,8}$/)), name, fc.string(), (rvs, cluster, next) => {
        const text = built(rvs).toString();
        expect(versionsOf(MultiClusterResourceVersion.parse(text)).rvs).to.deep.equal(
          Object.keys(rvs).length === 0 ? {} : rvs,
        );
        const token = { rv: text, cluster, continue: next };
        expect(parseMultiClusterContinue(formatMultiClusterContinue(token))).to.deep.equal(token);
      }),
      { seed },
    );
  });
});
