import { expect } from 'chai';
import { PatchError, applyPatch } from '../../apiserver/patch/index.js';
import { mergePatch } from '../../apiserver/patch/merge-patch.js';

/** RFC 7386 Appendix A: original, patch, result. */
const rfc7386Examples: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

const configMapKind = { group: '', version: 'v1', kind: 'ConfigMap' };

describe('JSON merge patch', () => {
  describe('RFC 7386 Appendix A', () => {
    for (const [original, patch, result] of rfc7386Examples) {
      it(`${JSON.stringify(original)} patched by ${JSON.stringify(patch)}`, () => {
        expect(mergePatch(original, patch)).to.deep.equal(result);
      });
    }
  });

  it('drops null members of objects it inserts, inside arrays too, as kube-apiserver does', () => {
    const patched = mergePatch(
      { spec: {} },
      { spec: { items: [{ name: 'a', value: null }], extra: { keep: 1, drop: null } } },
    );
    expect(patched).to.deep.equal({ spec: { items: [{ name: 'a' }], extra: { keep: 1 } } });
  });

  it('keeps nulls inside an array that replaces an object member, as kube-apiserver does', () => {
    expect(mergePatch({ a: { b: 1 } }, { a: [{ c: null }] })).to.deep.equal({ a: [{ c: null }] });
  });

  it('leaves its inputs unmodified and shares nothing with them', () => {
    const original = { metadata: { labels: { app: 'web' } }, data: { a: '1' } };
    const patch = { metadata: { labels: { tier: 'front' } }, data: { a: null } };
    const before = structuredClone({ original, patch });
    const patched = mergePatch(original, patch) as typeof original & { metadata: { labels: Record<string, string> } };
    patched.metadata.labels.app = 'changed';
    expect({ original, patch }).to.deep.equal(before);
  });

  describe('through applyPatch', () => {
    it('applies what kubectl label and annotate send', () => {
      const configMap = {
        metadata: { name: 'c', labels: { app: 'web', old: 'x' }, annotations: { a: '1' } },
        data: { k: 'v' },
      };
      const patched = applyPatch(
        'application/merge-patch+json',
        configMap,
        { metadata: { labels: { old: null, env: 'prod' }, annotations: { b: '2' } } },
        configMapKind,
        true,
      );
      expect(patched).to.deep.equal({
        metadata: { name: 'c', labels: { app: 'web', env: 'prod' }, annotations: { a: '1', b: '2' } },
        data: { k: 'v' },
      });
    });

    it('replaces lists whole, even where a strategic merge patch would merge them', () => {
      const deployment = {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'a', image: 'a:1' },
                { name: 'b', image: 'b:1' },
              ],
            },
          },
        },
      };
      const patch = { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } };
      const patched = applyPatch(
        'application/merge-patch+json',
        deployment,
        patch,
        { group: 'apps', version: 'v1', kind: 'Deployment' },
        true,
      );
      expect(patched).to.deep.equal(patch);
    });

    it('serves custom resources', () => {
      const widget = { spec: { size: 1, color: 'red' } };
      expect(
        applyPatch(
          'application/merge-patch+json',
          widget,
          { spec: { size: 2 } },
          { group: 'example.com', version: 'v1', kind: 'Widget' },
          false,
        ),
      ).to.deep.equal({ spec: { size: 2, color: 'red' } });
    });

    it("answers a null or scalar patch with evanphx/json-patch's 400", () => {
      for (const patch of [null, 'x', 3, true]) {
        expect(() => applyPatch('application/merge-patch+json', {}, patch, configMapKind, true))
          .to.throw(PatchError, 'Invalid JSON Patch')
          .with.property('status', 400);
      }
    });

    it('answers an array patch, whose result is no object, with a 422', () => {
      expect(() => applyPatch('application/merge-patch+json', { a: 1 }, ['x'], configMapKind, true))
        .to.throw(PatchError, /is invalid: patch: Invalid value: "\[\\"x\\"\]"/)
        .with.property('status', 422);
    });
  });
});
