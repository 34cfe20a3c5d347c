/**
 * What cached objects hold, counted in a heap snapshot (support/worker-heap.ts): strings the
 * cluster's JSON repeats are held once.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { workerHeap } from '../support/worker-heap.js';

/**
 * How many strings `pattern` matches in the heap of a worker that made `count` cached objects,
 * each of `raw(i)` (a JavaScript expression of `i`) and the resource's selectable fields, kept
 * them, and ran `then` (which may use Indexer, ClusterResourceStore and cachedObjectKey).
 */
async function stringsHeld(resource: string, raw: string, count: number, pattern: RegExp, then = ''): Promise<number> {
  const module = (path: string) => new URL(`../../${path}`, import.meta.url).href;
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
    Promise.all(workerData.modules.map((m) => import(m))).then(
      ([{ toCachedObject, selectableFieldsOf }, { Indexer }, { ClusterResourceStore }, { cachedObjectKey }]) => {
        const fields = selectableFieldsOf('', workerData.resource, workerData.resource !== 'namespaces');
        globalThis.kept = Array.from({ length: workerData.count }, (_, i) => toCachedObject(${raw}, fields));
        ${then}
        parentPort.on('message', () => {}); // up until terminated (support/worker-heap.ts)
        parentPort.postMessage(globalThis.kept.length);
      },
    );`,
    {
      eval: true,
      workerData: {
        modules: [
          'search/to-cached-object.js',
          'informer/indexer.js',
          'search/cluster-resource-store.js',
          'search/cached-object.js',
        ].map(module),
        resource,
        count,
      },
    },
  );
  try {
    const [made] = (await once(worker, 'message')) as [number];
    expect(made).to.equal(count);
    return (await workerHeap(worker)).count('string', pattern);
  } finally {
    await worker.terminate();
  }
}

describe('cache: the strings cached objects hold', () => {
  it('an informer and a cache store holding the same objects key them by one string each', async () => {
    // As the connection's informer and the tenant cache's store of ConfigMaps both hold every one.
    const held = await stringsHeld(
      'configmaps',
      `JSON.parse('{"metadata":{"name":"kube-root-ca.crt","namespace":"keyed-' + String(i).padStart(5, '0') + '"}}')`,
      2000,
      /^keyed-\d{5}\/kube-root-ca\.crt$/,
      `const informer = new Indexer({}, cachedObjectKey);
      const store = new ClusterResourceStore('member1', { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true });
      for (const object of globalThis.kept) informer.add(object);
      store.replace(globalThis.kept, '1');
      globalThis.stores = [informer, store];`,
    );
    // Each keying its own would hold 4,000.
    expect(held).to.equal(2000);
  });

  it('objects of the same name in other namespaces share one copy of it', async () => {
    const name = 'shared-name-'.padEnd(60, 's');
    const held = await stringsHeld(
      'configmaps',
      // Parsed, as from a cluster's answer: each object's name a string of its own until the pool shares it.
      `JSON.parse('{"metadata":{"name":"${name}","namespace":"names-' + (i % 10) + '"}}')`,
      2000,
      new RegExp(`^${name}$`),
    );
    expect(held, 'one copy of the name (the pool may hold one more), not 2,000').to.be.at.most(2);
  });

  it("a label whose value is the object's name holds the name's string, not a second copy", async () => {
    // As kube labels every Namespace with its name.
    const held = await stringsHeld(
      'namespaces',
      `(({ name }) => ({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }))({ name: 'labelled-' + String(i).padStart(5, '0') })`,
      2000,
      /^labelled-\d{5}$/,
    );
    // A label value parsed on its own would be a second string of each name: 4,000.
    expect(held).to.equal(2000);
  });
});
