import { expect } from 'chai';
import { PatchError, applyPatch } from '../../apiserver/patch/index.js';
import { applyJsonPatch, maxJsonPatchOperations } from '../../apiserver/patch/json-patch.js';

/** RFC 6902 Appendix A examples that succeed: document, patch, result. */
const rfc6902Examples: [string, object, unknown[], unknown][] = [
  [
    'A.1 adding an object member',
    { foo: 'bar' },
    [{ op: 'add', path: '/baz', value: 'qux' }],
    { baz: 'qux', foo: 'bar' },
  ],
  [
    'A.2 adding an array element',
    { foo: ['bar', 'baz'] },
    [{ op: 'add', path: '/foo/1', value: 'qux' }],
    { foo: ['bar', 'qux', 'baz'] },
  ],
  ['A.3 removing an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  [
    'A.4 removing an array element',
    { foo: ['bar', 'qux', 'baz'] },
    [{ op: 'remove', path: '/foo/1' }],
    { foo: ['bar', 'baz'] },
  ],
  [
    'A.5 replacing a value',
    { baz: 'qux', foo: 'bar' },
    [{ op: 'replace', path: '/baz', value: 'boo' }],
    { baz: 'boo', foo: 'bar' },
  ],
  [
    'A.6 moving a value',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  [
    'A.7 moving an array element',
    { foo: ['all', 'grass', 'cows', 'eat'] },
    [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] },
  ],
  [
    'A.8 testing a value: success',
    { baz: 'qux', foo: ['a', 2, 'c'] },
    [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    { baz: 'qux', foo: ['a', 2, 'c'] },
  ],
  [
    'A.10 adding a nested member object',
    { foo: 'bar' },
    [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    { foo: 'bar', child: { grandchild: {} } },
  ],
  [
    'A.11 ignoring unrecognized elements',
    { foo: 'bar' },
    [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    { foo: 'bar', baz: 'qux' },
  ],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  [
    'A.16 adding an array value',
    { foo: ['bar'] },
    [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    { foo: ['bar', ['abc', 'def']] },
  ],
];

/** RFC 6902 Appendix A examples that fail, with the error evanphx/json-patch v4 gives. */
const rfc6902Failures: [string, object, unknown[], string][] = [
  [
    'A.9 testing a value: error',
    { baz: 'qux' },
    [{ op: 'test', path: '/baz', value: 'bar' }],
    'testing value /baz failed: test failed',
  ],
  [
    'A.12 adding to a nonexistent target',
    { foo: 'bar' },
    [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    'add operation does not apply: doc is missing path: "/baz/bat": missing value',
  ],
  [
    'A.15 comparing strings and numbers',
    { '/': 9, '~1': 10 },
    [{ op: 'test', path: '/~01', value: '10' }],
    'testing value /~01 failed: test failed',
  ],
];

/** Failures kube-apiserver reports, with evanphx/json-patch v4's text. */
const v4Failures: [string, unknown[], string][] = [
  [
    'remove of a missing member',
    [{ op: 'remove', path: '/metadata/labels/missing' }],
    "error in remove for path: '/metadata/labels/missing': Unable to remove nonexistent key: missing: missing value",
  ],
  [
    'remove below a missing member',
    [{ op: 'remove', path: '/spec/missing/x' }],
    'remove operation does not apply: doc is missing path: "/spec/missing/x": missing value',
  ],
  [
    'replace below a missing member',
    [{ op: 'replace', path: '/status/x', value: 1 }],
    'replace operation does not apply: doc is missing path: /status/x: missing value',
  ],
  [
    'replace past the end of an array',
    [{ op: 'replace', path: '/spec/ports/5', value: {} }],
    'replace operation does not apply: doc is missing key: /spec/ports/5: missing value',
  ],
  [
    'add past the end of an array',
    [{ op: 'add', path: '/spec/ports/3', value: {} }],
    "error in add for path: '/spec/ports/3': Unable to access invalid index: 3: invalid index referenced",
  ],
  [
    'add at a non-numeric index',
    [{ op: 'add', path: '/spec/ports/x', value: {} }],
    "error in add for path: '/spec/ports/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
  ],
  [
    'remove past the start of an array',
    [{ op: 'remove', path: '/spec/ports/-3' }],
    "error in remove for path: '/spec/ports/-3': Unable to access invalid index: -3: invalid index referenced",
  ],
  [
    'test of a missing member against a value',
    [{ op: 'test', path: '/metadata/labels/missing', value: 'x' }],
    'testing value /metadata/labels/missing failed: test failed',
  ],
  [
    'move from a missing member',
    [{ op: 'move', from: '/metadata/missing', path: '/metadata/other' }],
    "error in move for path: 'missing': Unable to remove nonexistent key: missing: missing value",
  ],
  [
    'move into its own child',
    [{ op: 'move', from: '/metadata/labels', path: '/metadata/labels/inner' }],
    'move operation does not apply: doc is missing destination path: /metadata/labels/inner: missing value',
  ],
  [
    'copy to below a missing member',
    [{ op: 'copy', from: '/metadata/name', path: '/nothing/name' }],
    'copy operation does not apply: doc is missing destination path: /nothing/name: missing value',
  ],
  [
    'an operation without a path',
    [{ op: 'replace', value: 1 }],
    'replace operation failed to decode path: operation missing path field: missing value',
  ],
  ['an unknown operation', [{ op: 'merge', path: '/spec', value: {} }], 'Unexpected kind: merge'],
  ['an operation without op', [{ path: '/spec' }], 'Unexpected kind: unknown'],
];

function service() {
  return {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { ports: [{ port: 80 }, { port: 443 }] },
  };
}

const serviceKind = { group: '', version: 'v1', kind: 'Service' };

function failure(patch: unknown, document: object = service()): PatchError {
  try {
    applyJsonPatch(document, patch);
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('the patch applied');
}

describe('JSON patch', () => {
  describe('RFC 6902 Appendix A', () => {
    for (const [name, document, patch, result] of rfc6902Examples) {
      it(name, () => {
        expect(applyJsonPatch(document, patch)).to.deep.equal(result);
      });
    }
    for (const [name, document, patch, detail] of rfc6902Failures) {
      it(`${name}: fails`, () => {
        const error = failure(patch, document);
        expect([error.status, error.detail]).to.deep.equal([422, detail]);
      });
    }
  });

  describe('failures, as kube-apiserver answers them', () => {
    for (const [name, patch, detail] of v4Failures) {
      it(`${name}: a 422 whose detail is v4's error`, () => {
        const error = failure(patch);
        expect(error.message).to.equal('the server rejected our request due to an error in our request');
        expect([error.status, error.detail]).to.deep.equal([422, detail]);
      });
    }

    it('refuses a body that is not a list of operations with a 400', () => {
      expect([failure({ op: 'add' }).status, failure({ op: 'add' }).message]).to.deep.equal([
        400,
        'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      ]);
      expect(failure([{ op: 'add', path: '/a', value: 1 }, 'remove']).message).to.equal(
        'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
      );
    });

    it(`refuses more than ${maxJsonPatchOperations} operations with a 413`, () => {
      const operations = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({
        op: 'test',
        path: '/metadata/name',
        value: 'web',
      }));
      const error = failure(operations);
      expect([error.status, error.message]).to.deep.equal([
        413,
        'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      ]);
      expect(applyJsonPatch(service(), operations.slice(1))).to.deep.equal(service());
    });
  });

  describe('evanphx/json-patch v4 behaviour kube-apiserver has', () => {
    it('adds a member that replace finds missing, as kubectl patch users rely on', () => {
      const patched = applyJsonPatch(service(), [{ op: 'replace', path: '/metadata/labels/tier', value: 'front' }]);
      expect(patched).to.deep.equal({ ...service(), metadata: { name: 'web', labels: { app: 'web', tier: 'front' } } });
    });

    it('counts negative array indices from the end', () => {
      const patched = applyJsonPatch(service(), [
        { op: 'replace', path: '/spec/ports/-1', value: { port: 8443 } },
        { op: 'add', path: '/spec/ports/-1', value: { port: 9090 } },
        { op: 'remove', path: '/spec/ports/-3' },
      ]);
      expect(patched).to.deep.equal({ ...service(), spec: { ports: [{ port: 8443 }, { port: 9090 }] } });
    });

    it('passes a test of a missing member against null, and adds null for a missing value', () => {
      const patched = applyJsonPatch(service(), [
        { op: 'test', path: '/metadata/labels/missing', value: null },
        { op: 'add', path: '/metadata/deletionGracePeriodSeconds' },
      ]);
      expect(patched).to.deep.equal({
        ...service(),
        metadata: { ...service().metadata, deletionGracePeriodSeconds: null },
      });
    });

    it('treats a null body as no operations', () => {
      expect(applyJsonPatch(service(), null)).to.deep.equal(service());
    });

    it('copies values rather than sharing them', () => {
      const patched = applyJsonPatch(service(), [
        { op: 'copy', from: '/metadata/labels', path: '/spec/selector' },
        { op: 'add', path: '/spec/selector/extra', value: 'x' },
      ]) as ReturnType<typeof service> & { spec: { selector: object } };
      expect(patched.metadata.labels).to.deep.equal({ app: 'web' });
      expect(patched.spec.selector).to.deep.equal({ app: 'web', extra: 'x' });
    });
  });

  describe('through applyPatch', () => {
    it('leaves the original unmodified and does not apply a patch that fails part way', () => {
      const original = service();
      expect(() =>
        applyPatch(
          'application/json-patch+json',
          original,
          [
            { op: 'add', path: '/metadata/labels/tier', value: 'front' },
            { op: 'test', path: '/spec/ports/0/port', value: 81 },
          ],
          serviceKind,
          true,
        ),
      ).to.throw(PatchError);
      expect(original).to.deep.equal(service());
    });

    it('answers a patch that turns the object into an array with a 422', () => {
      expect(() =>
        applyPatch(
          'application/json-patch+json',
          service(),
          [{ op: 'replace', path: '', value: [1] }],
          serviceKind,
          true,
        ),
      )
        .to.throw(PatchError, /"" is invalid: patch: Invalid value: "\[1\]"/)
        .with.property('status', 422);
    });

    it('serves custom resources', () => {
      const patched = applyPatch(
        'application/json-patch+json',
        { spec: { size: 1 } },
        [{ op: 'replace', path: '/spec/size', value: 3 }],
        { group: 'example.com', version: 'v1', kind: 'Widget' },
        false,
      );
      expect(patched).to.deep.equal({ spec: { size: 3 } });
    });
  });
});
