import { expect } from 'chai';
import { listRevision } from '../../search/list-revision.js';

const pod = '{"metadata":{"name":"p","namespace":"a","resourceVersion":"7"},"spec":{"containers":[]}}';

describe('cache: the revision of a list answer (list-revision.ts)', () => {
  const cases: [string, string, string][] = [
    [
      "kube-apiserver's limit=1 list: the list's own revision, not its item's",
      `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1234","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ","remainingItemCount":41},"items":[${pod}]}`,
      '1234',
    ],
    [
      'a grouped kind, no items',
      '{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"98"},"items":[]}',
      '98',
    ],
    [
      'an older server writing selfLink first',
      '{"kind":"PodList","apiVersion":"v1","metadata":{"selfLink":"/api/v1/pods","resourceVersion":"5"},"items":[]}',
      '5',
    ],
    [
      'another key order: parsed whole',
      `{"apiVersion":"v1","kind":"PodList","items":[${pod}],"metadata":{"resourceVersion":"61"}}`,
      '61',
    ],
    [
      'indented: parsed whole',
      '{\n  "kind": "PodList",\n  "apiVersion": "v1",\n  "metadata": {\n    "resourceVersion": "3"\n  },\n  "items": []\n}',
      '3',
    ],
    [
      'a list without a revision of its own: none, though its item has one',
      `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${pod}]}`,
      '',
    ],
    [
      'a revision that is not a string: none',
      '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":12},"items":[]}',
      '',
    ],
    ['a Status: none', '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":500}', ''],
    ['not JSON: none', '<html>bad gateway</html>', ''],
    ['empty: none', '', ''],
  ];
  for (const [name, text, revision] of cases)
    it(name, () => {
      expect(listRevision(text)).to.equal(revision);
    });
});
