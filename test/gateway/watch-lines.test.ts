import { expect } from 'chai';
import fc from 'fast-check';
import { PassThrough } from 'node:stream';
import { tenantContext } from '../../translate/context.js';
import { WatchEventsDown, WatchLineMemo, watchLineBatches } from '../../gateway/proxy/watch-lines.js';
import { kindScope } from '../support/kind-scope.js';
import { testSeed } from '../support/seed.js';

const kinds = kindScope();
const ROW_KIND = { group: '', kind: 'ConfigMap', namespaced: true };

function configMapLine(type: string, namespace: string, name: string, resourceVersion: number): string {
  return JSON.stringify({
    type,
    object: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name, namespace, resourceVersion: String(resourceVersion) },
      data: { owner: namespace },
    },
  });
}

describe('watch lines', () => {
  it('splits a stream into its lines whatever the chunking, and never yields a partial line', async () => {
    const body = new PassThrough();
    const batches: string[][] = [];
    const reading = (async () => {
      for await (const batch of watchLineBatches(body)) batches.push(batch);
    })();
    body.write('{"a":1}\n{"b"');
    body.write(':2}\n\n{"c":3}');
    body.end('\n');
    await reading;
    expect(batches.flat()).to.deep.equal(['{"a":1}', '{"b":2}', '{"c":3}']);
    for (const batch of batches) expect(batch).to.not.be.empty;
  });

  describe('WatchLineMemo', () => {
    it('converts a line once for all the watches of one tenant, and again for another tenant', () => {
      const memo = new WatchLineMemo();
      let conversions = 0;
      const convert = (tenantId: string) => (line: string) => {
        conversions++;
        return `${tenantId}:${line}\n`;
      };
      for (let i = 0; i < 5; i++) expect(memo.convert('aaaaaa', 'L', convert('aaaaaa'))).to.equal('aaaaaa:L\n');
      expect(conversions).to.equal(1);
      expect(memo.convert('bbbbbb', 'L', convert('bbbbbb'))).to.equal('bbbbbb:L\n');
      expect(conversions).to.equal(2);
    });

    it("remembers that a line is not the tenant's to see", () => {
      const memo = new WatchLineMemo();
      let conversions = 0;
      const drop = () => {
        conversions++;
        return null;
      };
      expect(memo.convert('aaaaaa', 'L', drop)).to.equal(null);
      expect(memo.convert('aaaaaa', 'L', drop)).to.equal(null);
      expect(conversions).to.equal(1);
    });

    it('holds at most its capacity, dropping the oldest line first', () => {
      const memo = new WatchLineMemo(2);
      const seen: string[] = [];
      const convert = (line: string) => {
        seen.push(line);
        return line;
      };
      for (const line of ['1', '2', '3', '3', '2', '1']) memo.convert('aaaaaa', line, convert);
      expect(seen).to.deep.equal(['1', '2', '3', '1']);
    });

    it('does not keep lines of more than 64 KiB', () => {
      const memo = new WatchLineMemo();
      const long = 'x'.repeat(64 * 1024 + 1);
      let conversions = 0;
      for (let i = 0; i < 2; i++) memo.convert('aaaaaa', long, () => String(++conversions));
      expect(conversions).to.equal(2);
    });
  });

  it('gives every tenant, through one shared memo, exactly what converting alone gives it (randomized)', () => {
    const tenants = ['aaaaaa', 'bbbbbb', 'cccccc'];
    const line = fc.record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'),
      tenant: fc.constantFrom(...tenants, 'other'),
      name: fc.constantFrom('app', 'web', 'db'),
      resourceVersion: fc.integer({ min: 1, max: 6 }),
    });
    const step = fc.record({ watcher: fc.constantFrom(...tenants), line });
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (steps, capacity) => {
          const memo = new WatchLineMemo(capacity);
          for (const { watcher, line: l } of steps) {
            const upstream = configMapLine(l.type, `${l.tenant}-default`, `${l.name}`, l.resourceVersion);
            const shared = new WatchEventsDown(tenantContext(watcher, kinds), ROW_KIND).downLine(upstream, memo);
            const alone = new WatchEventsDown(tenantContext(watcher, kinds), ROW_KIND).downLine(upstream, undefined);
            expect(shared).to.equal(alone);
            if (l.tenant !== watcher) expect(shared).to.equal(null);
            else expect(JSON.parse(shared!).object.metadata.namespace).to.equal('default');
          }
        },
      ),
      { seed: testSeed(import.meta.url).seed },
    );
  });
});
