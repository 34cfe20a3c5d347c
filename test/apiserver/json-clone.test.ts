import { expect } from 'chai';
import { cloneJson } from '../../apiserver/json.js';

describe('apiserver: cloneJson, the copy every write takes of its body', () => {
  const cases: { name: string; value: unknown }[] = [
    { name: 'a string', value: 'text' },
    { name: 'a number', value: 1.5 },
    { name: 'true', value: true },
    { name: 'null', value: null },
    { name: 'an empty object', value: {} },
    { name: 'an empty array', value: [] },
    {
      name: 'a Kubernetes object with nested maps, lists and nulls',
      value: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', labels: { x: 'y' }, finalizers: ['f'], deletionTimestamp: null },
        data: { key: 'value' },
        list: [{ a: [1, 2, { b: null }] }, 'two', 3],
      },
    },
    { name: 'an undefined member, kept as structuredClone keeps it', value: { a: undefined, b: 1 } },
  ];
  for (const { name, value } of cases)
    it(`copies ${name}: equal to structuredClone's copy`, () => {
      expect(cloneJson(value)).to.deep.equal(structuredClone(value));
    });

  it('shares nothing with the original: changing the copy at any depth leaves it as it was', () => {
    const original = { metadata: { labels: { a: '1' } }, items: [{ x: [1] }] };
    const copy = cloneJson(original);
    copy.metadata.labels.a = '2';
    copy.items[0].x.push(2);
    copy.items.push({ x: [] });
    expect(original).to.deep.equal({ metadata: { labels: { a: '1' } }, items: [{ x: [1] }] });
  });

  it('copies own members only, and a member named __proto__ as a member', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copy = cloneJson(parsed);
    expect(Object.keys(copy)).to.deep.equal(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});
