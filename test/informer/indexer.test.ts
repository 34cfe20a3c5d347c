/**
 * The Indexer against client-go's own test tables (tools/cache index_test.go,
 * thread_safe_store_test.go, store_test.go): each case's inputs and expected results, replayed.
 * Then what client-go reports as errors, the built-in indexes, and a property: after any
 * sequence of writes the indexes equal a recomputation from the items.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { IndexedStore } from '../../informer/indexed-store.js';
import { Indexer } from '../../informer/indexer.js';
import { KeyError, metaNamespaceKeyFunc } from '../../informer/key-func.js';
import { metaNamespaceIndexFunc, NAMESPACE_INDEX } from '../../informer/namespace-index.js';
import { type IndexFunc, type Indexers } from '../../informer/store-index.js';
import { TENANT_INDEX, tenantIndexFunc } from '../../informer/tenant-index.js';
import { TENANT_LABEL } from '../../translate/kinds/tenant-label.js';
import { testSeed } from '../support/seed.js';
import { workerHeap } from '../support/worker-heap.js';

interface Pod {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** Every value of an index with its keys, sorted, as the index answers through its interface. */
function indexContents<T extends NonNullable<unknown>>(
  store: Pick<IndexedStore<T>, 'listIndexFuncValues' | 'indexKeys'>,
  indexName: string,
): Record<string, string[]> {
  const contents: Record<string, string[]> = {};
  for (const value of store.listIndexFuncValues(indexName).sort()) contents[value] = store.indexKeys(indexName, value);
  return contents;
}

describe('cache: Indexer', () => {
  describe("client-go's ThreadSafeStore cases (thread_safe_store_test.go)", () => {
    type Write = ['add' | 'update', string, string] | ['delete', string];
    const identity: IndexFunc<string> = (obj) => [obj];
    const constant: IndexFunc<string> = () => ['testIndex'];
    const commaSeparated: IndexFunc<string> = (obj) => obj.split(',');
    const cases: { title: string; indexFunc: IndexFunc<string>; steps: [Write, Record<string, string[]>][] }[] = [
      {
        title: 'DeleteRemovesEmptySetsFromIndex',
        indexFunc: identity,
        steps: [
          [['add', 'testKey', 'testKey'], { testKey: ['testKey'] }],
          [['delete', 'testKey'], {}],
        ],
      },
      {
        title: 'AddKeepsNonEmptySetPostDeleteFromIndex',
        indexFunc: constant,
        steps: [
          [['add', 'retain', 'retain'], { testIndex: ['retain'] }],
          [['add', 'delete', 'delete'], { testIndex: ['delete', 'retain'] }],
          [['delete', 'delete'], { testIndex: ['retain'] }],
        ],
      },
      {
        title: 'IndexingFunctionsWithMultipleValues',
        indexFunc: commaSeparated,
        steps: [
          [['add', 'key1', 'foo'], { foo: ['key1'] }],
          [['add', 'key2', 'bar'], { foo: ['key1'], bar: ['key2'] }],
          [['update', 'key2', 'foo,bar'], { foo: ['key1', 'key2'], bar: ['key2'] }],
          [['update', 'key1', 'foo,bar'], { foo: ['key1', 'key2'], bar: ['key1', 'key2'] }],
          [
            ['add', 'key3', 'foo,bar,baz'],
            { foo: ['key1', 'key2', 'key3'], bar: ['key1', 'key2', 'key3'], baz: ['key3'] },
          ],
          [['update', 'key1', 'foo'], { foo: ['key1', 'key2', 'key3'], bar: ['key2', 'key3'], baz: ['key3'] }],
          [['update', 'key2', 'bar'], { foo: ['key1', 'key3'], bar: ['key2', 'key3'], baz: ['key3'] }],
          [['delete', 'key1'], { foo: ['key3'], bar: ['key2', 'key3'], baz: ['key3'] }],
          [['delete', 'key3'], { bar: ['key2'] }],
        ],
      },
    ];
    for (const { title, indexFunc, steps } of cases) {
      it(title, () => {
        const store = new IndexedStore<string>({ testIndexer: indexFunc });
        for (const [write, expected] of steps) {
          if (write[0] === 'delete') store.delete(write[1]);
          else store.update(write[1], write[2]);
          expect(indexContents(store, 'testIndexer'), write.join(' ')).to.deep.equal(expected);
        }
      });
    }

    it('RV: the last resourceVersion seen, from objects with metadata, deletes that carry one, and Replace', () => {
      const meta = (resourceVersion: string) => ({ metadata: { resourceVersion } });
      const store = new IndexedStore<object | string>({});
      const steps: [(s: typeof store) => void, string][] = [
        [() => undefined, ''],
        [(s) => s.update('key1', meta('10')), '10'],
        [(s) => s.update('key3', meta('10')), '10'],
        [(s) => s.update('key4', meta('20')), '20'],
        [(s) => s.delete('key4', meta('30')), '30'],
        [(s) => s.update('key5', 'just a string'), '30'],
        [(s) => s.update('key6', meta('40')), '40'],
        [(s) => s.delete('key6'), '40'],
        [
          (s) =>
            s.replace(
              new Map([
                ['key3', meta('40')],
                ['key2', meta('30')],
              ]),
              '50',
            ),
          '50',
        ],
        [(s) => s.delete('key3', meta('60')), '60'],
      ];
      for (const [write, resourceVersion] of steps) {
        write(store);
        expect(store.lastSyncResourceVersion()).to.equal(resourceVersion);
      }
      expect(store.listKeys()).to.deep.equal(['key2']);
    });
  });

  describe("client-go's Indexer cases (index_test.go)", () => {
    const pod = (name: string, labels?: Record<string, string>, annotations?: Record<string, string>): Pod => ({
      metadata: { name, labels, annotations },
    });
    const byLabelFoo: IndexFunc<Pod> = (obj) => [obj.metadata.labels?.foo ?? ''];
    const byUsers: IndexFunc<Pod> = (obj) => (obj.metadata.annotations?.users ?? '').split(',');

    it('GetIndexFuncValues: the values with items', () => {
      const indexer = new Indexer<Pod>({ testmodes: byLabelFoo });
      indexer.add(pod('one', { foo: 'bar' }));
      indexer.add(pod('two', { foo: 'bar' }));
      indexer.add(pod('tre', { foo: 'biz' }));
      expect(indexer.listIndexFuncValues('testmodes').sort()).to.deep.equal(['bar', 'biz']);
    });

    it('MultiIndexKeys: an object under several values, deleted and updated', () => {
      const indexer = new Indexer<Pod>({ byUser: byUsers });
      const pod2 = pod('two', undefined, { users: 'bert,oscar' });
      const pod3 = pod('tre', undefined, { users: 'ernie,elmo' });
      indexer.add(pod('one', undefined, { users: 'ernie,bert' }));
      indexer.add(pod2);
      indexer.add(pod3);
      const names = (value: string) =>
        indexer
          .byIndex('byUser', value)
          .map((p) => p.metadata.name)
          .sort();
      const steps: [() => void, Record<string, string[]>][] = [
        [() => undefined, { ernie: ['one', 'tre'], bert: ['one', 'two'], elmo: ['tre'], oscar: ['two'], elmo1: [] }],
        [() => indexer.delete(pod3), { ernie: ['one'], elmo: [] }],
        [() => indexer.update(pod('two', undefined, { users: 'oscar' })), { bert: ['one'] }],
      ];
      for (const [write, expected] of steps) {
        write();
        for (const [value, podNames] of Object.entries(expected)) expect(names(value), value).to.deep.equal(podNames);
      }
      expect(pod2.metadata.annotations?.users, 'the stored object is not changed by the update').to.equal('bert,oscar');
    });
  });

  describe("client-go's Store cases (store_test.go), on an Indexer keyed by id", () => {
    interface TestObject {
      id: string;
      val: string;
    }
    const mkObj = (id: string, val: string): TestObject => ({ id, val });
    const byVal: Indexers<TestObject> = { by_val: (obj) => [obj.val] };
    const newIndexer = () => new Indexer<TestObject>(byVal, (obj) => obj.id);
    const vals = (objects: TestObject[]) => objects.map((o) => o.val).sort();

    it('TestCache: add, get, update, delete, list and replace', () => {
      const store = newIndexer();
      store.add(mkObj('foo', 'bar'));
      expect(store.get(mkObj('foo', ''))?.val).to.equal('bar');
      store.update(mkObj('foo', 'baz'));
      expect(store.get(mkObj('foo', ''))?.val).to.equal('baz');
      store.delete(mkObj('foo', ''));
      expect(store.get(mkObj('foo', ''))).to.equal(undefined);

      store.add(mkObj('a', 'b'));
      store.add(mkObj('c', 'd'));
      store.add(mkObj('e', 'e'));
      expect(vals(store.list())).to.deep.equal(['b', 'd', 'e']);

      store.replace([mkObj('foo', 'foo'), mkObj('bar', 'bar')], '0');
      expect(vals(store.list())).to.deep.equal(['bar', 'foo']);
      expect(store.listKeys().sort()).to.deep.equal(['bar', 'foo']);
      expect(store.getByKey('bar')?.val).to.equal('bar');
      expect(store.byIndex('by_val', 'b'), 'replaced items leave the index').to.deep.equal([]);
    });

    it('TestIndex: Index finds the objects sharing a value with a given one', () => {
      const indexer = newIndexer();
      indexer.add(mkObj('a', 'b'));
      indexer.add(mkObj('c', 'b'));
      indexer.add(mkObj('e', 'f'));
      indexer.add(mkObj('g', 'h'));
      const expected: Record<string, string[]> = { b: ['a', 'c'], f: ['e'], h: ['g'] };
      for (const [val, ids] of Object.entries(expected)) {
        const found = indexer.index('by_val', mkObj('', val)).map((o) => o.id);
        expect(found.sort(), val).to.deep.equal(ids);
      }
    });
  });

  describe('keys and errors as client-go gives them', () => {
    it('keys by MetaNamespaceKeyFunc: <namespace>/<name>, or <name> when cluster-scoped', () => {
      const cases: [unknown, string][] = [
        [{ metadata: { namespace: 'default', name: 'web' } }, 'default/web'],
        [{ metadata: { name: 'node-1' } }, 'node-1'],
        [{ metadata: { namespace: '', name: 'pv' } }, 'pv'],
      ];
      for (const [obj, key] of cases) expect(metaNamespaceKeyFunc(obj)).to.equal(key);
    });

    it('stores each key as one flat string: no cons string is left wrapped around a stored key', async () => {
      const stored = 2000;
      const objects = Array.from({ length: stored }, (_, i) => ({
        metadata: { namespace: `tenant${String(i).padStart(4, '0')}-kube-node-lease`, name: 'kube-root-ca.crt' },
      }));
      // A worker's heap is small enough to read whole: its snapshot names every cons string in it.
      // It stores the objects when told, between two snapshots, and stays up until the second.
      const worker = new Worker(
        `const { workerData, parentPort } = require('node:worker_threads');
        import(workerData.indexer).then(({ Indexer }) => {
          const indexer = new Indexer({});
          globalThis.kept = indexer;
          parentPort.on('message', () => {
            for (const object of JSON.parse(workerData.objects)) indexer.add(object);
            parentPort.postMessage(indexer.listKeys().length);
          });
          parentPort.postMessage('ready');
        });`,
        {
          eval: true,
          workerData: {
            indexer: new URL('../../informer/indexer.js', import.meta.url).href,
            objects: JSON.stringify(objects),
          },
        },
      );
      const consStrings = async () => (await workerHeap(worker)).count('concatenated string');
      try {
        await once(worker, 'message');
        const before = await consStrings();
        worker.postMessage('store');
        const [kept] = (await once(worker, 'message')) as [number];
        expect(kept).to.equal(stored);
        // A template's key left two a stored object (`${namespace}/` and the name after it).
        expect((await consStrings()) - before).to.be.below(stored / 10);
      } finally {
        await worker.terminate();
      }
    });

    it('refuses an object without metadata with a KeyError, and stores nothing', () => {
      const indexer = new Indexer<object>();
      const error = captured(() => indexer.add({ kind: 'Pod' }));
      expect(error).to.be.instanceOf(KeyError);
      // TestKeyError: the key function's own error stays reachable (Go's Unwrap).
      expect(error.cause)
        .to.be.instanceOf(Error)
        .and.have.property('message')
        .that.matches(/^object has no meta/);
      expect(error.message).to.equal(
        `couldn't create key for object {"kind":"Pod"}: object has no meta: object does not implement the Object interfaces`,
      );
      expect(() => indexer.replace([{ metadata: { name: 'a' } }, { kind: 'Pod' }], '5')).to.throw(KeyError);
      expect(indexer.list()).to.deep.equal([]);
      expect(indexer.lastSyncResourceVersion()).to.equal('');
    });

    it('answers an unknown index name with an error, and no values', () => {
      const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
      indexer.add({ metadata: { namespace: 'a', name: 'x' } });
      const message = 'Index with name nope does not exist';
      expect(() => indexer.byIndex('nope', 'a')).to.throw(message);
      expect(() => indexer.indexKeys('nope', 'a')).to.throw(message);
      expect(() => indexer.index('nope', { metadata: { name: 'y' } })).to.throw(message);
      expect(indexer.listIndexFuncValues('nope')).to.deep.equal([]);
    });

    it("reports an index function's failure on a write with the key and index, and changes nothing", () => {
      const strict: IndexFunc<Pod> = (obj) => {
        if (obj.metadata.labels?.poison !== undefined) throw new Error('poisoned');
        return [obj.metadata.name];
      };
      const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc, strict });
      const good: Pod = { metadata: { namespace: 'ns', name: 'a' } };
      const poisoned: Pod = { metadata: { namespace: 'ns', name: 'a', labels: { poison: 'yes' } } };
      indexer.add(good);
      const message = 'unable to calculate an index entry for key "ns/a" on index "strict": poisoned';
      expect(() => indexer.update(poisoned), 'update').to.throw(message);
      expect(() => indexer.replace([{ metadata: { name: 'b' } }, poisoned], '9'), 'replace').to.throw(message);
      expect(() => indexer.index('strict', poisoned), 'Index returns the function error as is').to.throw(/^poisoned$/);
      expect(indexer.list()).to.deep.equal([good]);
      expect(indexContents(indexer, NAMESPACE_INDEX)).to.deep.equal({ ns: ['ns/a'] });
      expect(indexContents(indexer, 'strict')).to.deep.equal({ a: ['ns/a'] });
    });

    it('AddIndexers indexes the items already stored, and refuses a name that exists', () => {
      const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
      indexer.add({ metadata: { namespace: 'ns1', name: 'a', labels: { app: 'web' } } });
      indexer.add({ metadata: { namespace: 'ns2', name: 'a', labels: { app: 'db' } } });
      indexer.addIndexers({ app: (obj) => [obj.metadata.labels?.app ?? ''] });
      expect(Object.keys(indexer.getIndexers()).sort()).to.deep.equal(['app', NAMESPACE_INDEX]);
      expect(indexContents(indexer, 'app')).to.deep.equal({ db: ['ns2/a'], web: ['ns1/a'] });

      const taken = () => [];
      expect(() => indexer.addIndexers({ zzz: taken, [NAMESPACE_INDEX]: taken, app: taken })).to.throw(
        /^indexer conflict: map\[app:\{\} namespace:\{\}\]$/,
      );
      expect(() => indexer.addIndexers({ broken: () => JSON.parse('{') as string[] })).to.throw(
        /^unable to calculate an index entry for key "ns1\/a" on index "broken": /,
      );
      expect(Object.keys(indexer.getIndexers()).sort(), 'nothing added').to.deep.equal(['app', NAMESPACE_INDEX]);
      expect(indexContents(indexer, NAMESPACE_INDEX)).to.deep.equal({ ns1: ['ns1/a'], ns2: ['ns2/a'] });
    });

    it('List and ByIndex return new arrays: changing one changes nothing stored', () => {
      const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
      indexer.add({ metadata: { namespace: 'ns', name: 'a' } });
      indexer.list().pop();
      indexer.byIndex(NAMESPACE_INDEX, 'ns').pop();
      indexer.listKeys().pop();
      indexer.indexKeys(NAMESPACE_INDEX, 'ns').pop();
      expect(indexer.listKeys()).to.deep.equal(['ns/a']);
      expect(indexer.byIndex(NAMESPACE_INDEX, 'ns')).to.have.length(1);
    });
  });

  describe('built-in indexes', () => {
    const objects: Pod[] = [
      { metadata: { namespace: 'aaaaaa-default', name: 'web' } },
      { metadata: { namespace: 'aaaaaa-default', name: 'db' } },
      { metadata: { namespace: 'bbbbbb-default', name: 'web' } },
      { metadata: { name: 'aaaaaa-default', labels: { [TENANT_LABEL]: 'aaaaaa' } } },
      { metadata: { name: 'bbbbbb-default', labels: { [TENANT_LABEL]: 'bbbbbb', app: 'x' } } },
      { metadata: { name: 'node-1', labels: { app: 'x' } } },
    ];

    it('namespace: each object under its namespace, cluster-scoped ones under ""', () => {
      const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
      for (const obj of objects) indexer.add(obj);
      expect(indexContents(indexer, NAMESPACE_INDEX)).to.deep.equal({
        '': ['aaaaaa-default', 'bbbbbb-default', 'node-1'],
        'aaaaaa-default': ['aaaaaa-default/db', 'aaaaaa-default/web'],
        'bbbbbb-default': ['bbbbbb-default/web'],
      });
    });

    it(`tenant: objects labelled ${TENANT_LABEL} under the label's value; unlabelled ones in no set`, () => {
      const indexer = new Indexer<Pod>({ [TENANT_INDEX]: tenantIndexFunc });
      for (const obj of objects) indexer.add(obj);
      expect(indexContents(indexer, TENANT_INDEX)).to.deep.equal({
        aaaaaa: ['aaaaaa-default'],
        bbbbbb: ['bbbbbb-default'],
      });
      indexer.update({ metadata: { name: 'aaaaaa-default' } });
      expect(indexContents(indexer, TENANT_INDEX)).to.deep.equal({ bbbbbb: ['bbbbbb-default'] });
    });

    it('both fail on an object without metadata as client-go does', () => {
      for (const indexFunc of [metaNamespaceIndexFunc, tenantIndexFunc])
        expect(() => indexFunc('just a string')).to.throw(
          'object has no meta: object does not implement the Object interfaces',
        );
    });
  });

  describe('property: the indexes always equal a recomputation from the items', () => {
    const USERS = 'users';
    /** Throws on a poisoned object, so that failed writes are part of the sequences too. */
    const strict: IndexFunc<Pod> = (obj) => {
      if (obj.metadata.labels?.poison !== undefined) throw new Error('poisoned');
      return [obj.metadata.name];
    };
    const allIndexers: Indexers<Pod> = {
      [NAMESPACE_INDEX]: metaNamespaceIndexFunc,
      [TENANT_INDEX]: tenantIndexFunc,
      // Several values, duplicates and none: "a.b", "a.a", "".
      byUser: (obj) => (obj.metadata.labels?.[USERS] ?? '').split('.').filter((user) => user !== ''),
      strict,
    };
    const names = Object.keys(allIndexers);

    const podArb: fc.Arbitrary<Pod> = fc
      .record({
        namespace: fc.constantFrom(undefined, 'ns1', 'ns2'),
        name: fc.constantFrom('a', 'b', 'c'),
        tenant: fc.option(fc.constantFrom('aaaaaa', 'bbbbbb'), { nil: undefined }),
        users: fc.option(fc.array(fc.constantFrom('ernie', 'bert', 'elmo'), { maxLength: 3 }), { nil: undefined }),
        poison: fc.boolean(),
      })
      .map(({ namespace, name, tenant, users, poison }) => {
        const labels: Record<string, string> = {};
        if (tenant !== undefined) labels[TENANT_LABEL] = tenant;
        if (users !== undefined) labels[USERS] = users.join('.');
        if (poison) labels.poison = 'yes';
        return { metadata: { name, ...(namespace === undefined ? {} : { namespace }), labels } };
      });
    type Op =
      | { op: 'add' | 'update' | 'delete'; pod: Pod }
      | { op: 'replace'; pods: Pod[] }
      | { op: 'addIndexers'; names: string[] };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constantFrom('add' as const, 'update' as const, 'delete' as const), pod: podArb }),
      fc.record({ op: fc.constant('replace' as const), pods: fc.array(podArb, { maxLength: 6 }) }),
      fc.record({
        op: fc.constant('addIndexers' as const),
        names: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 2 }),
      }),
    );

    /** What the indexes must hold: each value's keys, computed afresh from the items. */
    function recomputed(indexer: Indexer<Pod>, indexName: string): Record<string, string[]> {
      const indexFunc = indexer.getIndexers()[indexName];
      const contents: Record<string, Set<string>> = {};
      for (const key of indexer.listKeys())
        for (const value of indexFunc(indexer.getByKey(key)!)) (contents[value] ??= new Set()).add(key);
      return Object.fromEntries(
        Object.keys(contents)
          .sort()
          .map((value) => [value, [...contents[value]].sort()]),
      );
    }

    function snapshot(indexer: Indexer<Pod>) {
      return {
        items: indexer.listKeys().map((key) => [key, indexer.getByKey(key)]),
        indexers: Object.keys(indexer.getIndexers()).sort(),
        indexes: Object.keys(indexer.getIndexers()).map((name) => indexContents(indexer, name)),
        resourceVersion: indexer.lastSyncResourceVersion(),
      };
    }

    it('after any sequence of add, update, delete, replace and addIndexers; a failed write changes nothing', () => {
      const { seed, note } = testSeed(import.meta.url);
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.constantFrom(...names), { maxLength: names.length }),
          fc.array(opArb, { maxLength: 30 }),
          (initial, ops) => {
            const indexer = new Indexer<Pod>(Object.fromEntries(initial.map((name) => [name, allIndexers[name]])));
            let model = new Map<string, Pod>();
            const poisoned = (pod: Pod) => pod.metadata.labels?.poison !== undefined;
            const hasIndex = (name: string) => Object.hasOwn(indexer.getIndexers(), name);
            let resourceVersion = 0;
            for (const op of ops) {
              const before = snapshot(indexer);
              const replaced =
                op.op === 'replace' ? new Map(op.pods.map((pod) => [metaNamespaceKeyFunc(pod), pod])) : model;
              const shouldFail =
                op.op === 'addIndexers'
                  ? op.names.some(hasIndex) || (op.names.includes('strict') && [...model.values()].some(poisoned))
                  : op.op === 'replace'
                    ? hasIndex('strict') && [...replaced.values()].some(poisoned)
                    : op.op !== 'delete' && hasIndex('strict') && poisoned(op.pod);
              let failed = false;
              try {
                if (op.op === 'replace') indexer.replace(op.pods, String(++resourceVersion));
                else if (op.op === 'addIndexers')
                  indexer.addIndexers(Object.fromEntries(op.names.map((name) => [name, allIndexers[name]])));
                else indexer[op.op](op.pod);
              } catch {
                failed = true;
                expect(snapshot(indexer), `${note}: a failed ${op.op} changed the store`).to.deep.equal(before);
              }
              expect(failed, `${note}: ${op.op} failed`).to.equal(shouldFail);
              if (!failed) {
                switch (op.op) {
                  case 'replace':
                    model = replaced;
                    break;
                  case 'delete':
                    model.delete(metaNamespaceKeyFunc(op.pod));
                    break;
                  case 'add':
                  case 'update':
                    model.set(metaNamespaceKeyFunc(op.pod), op.pod);
                    break;
                  case 'addIndexers':
                    break;
                }
              }
              expect(new Map(indexer.listKeys().map((key) => [key, indexer.getByKey(key)])), note).to.deep.equal(model);
              for (const name of Object.keys(indexer.getIndexers()))
                expect(indexContents(indexer, name), `${note}: index ${name}`).to.deep.equal(recomputed(indexer, name));
            }
          },
        ),
        { seed, numRuns: 300 },
      );
    });

    it("with many keys under one value: a value's keys move between one key, an array and a Set as they come and go", () => {
      const { seed, note } = testSeed(import.meta.url);
      const names = Array.from({ length: 20 }, (_, i) => `pod-${i}`);
      const nameArb = fc.constantFrom(...names);
      // Adds that grow the value past an array's keys, then any mix, then deletions that empty it.
      const opsArb = fc
        .tuple(
          fc.array(nameArb, { maxLength: 40 }),
          fc.array(fc.record({ add: fc.boolean(), name: nameArb }), { maxLength: 60 }),
          fc.shuffledSubarray(names, { minLength: names.length }),
        )
        .map(([adds, mixed, deletes]) => [
          ...adds.map((name) => ({ add: true, name })),
          ...mixed,
          ...deletes.map((name) => ({ add: false, name })),
        ]);
      fc.assert(
        fc.property(opsArb, (ops) => {
          const indexer = new Indexer<Pod>({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
          const model = new Set<string>();
          for (const { add, name } of ops) {
            const pod = { metadata: { name, namespace: 'crowded' } };
            if (add) {
              indexer.add(pod);
              model.add(`crowded/${name}`);
            } else {
              indexer.delete(pod);
              model.delete(`crowded/${name}`);
            }
            const expected = [...model].sort();
            expect(indexer.indexKeys(NAMESPACE_INDEX, 'crowded'), note).to.deep.equal(expected);
            const found = indexer.byIndex(NAMESPACE_INDEX, 'crowded').map((obj) => metaNamespaceKeyFunc(obj));
            expect(found.sort(), note).to.deep.equal(expected);
            expect(indexer.listIndexFuncValues(NAMESPACE_INDEX), note).to.deep.equal(model.size ? ['crowded'] : []);
          }
        }),
        { seed, numRuns: 200 },
      );
    });
  });
});

function captured(act: () => void): Error {
  try {
    act();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected a throw');
}
