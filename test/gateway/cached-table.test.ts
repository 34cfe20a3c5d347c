/**
 * A Table from the cache's text (gateway/cached/cached-item.ts `cachedTableRow`, apiserver/table
 * `tableText`) is the Table `buildTable` makes from the parsed objects, whatever includeObject asks
 * and wherever the object's managedFields sit.
 */
import { expect } from 'chai';
import { buildTable, tableText, type IncludeObject } from '../../apiserver/table/build-table.js';
import { printerFor } from '../../apiserver/table/printers-by-resource.js';
import { cachedTableRow } from '../../gateway/cached/cached-item.js';
import { rawPod } from '../support/cached-objects.js';

const MANAGED = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {} } } }];

/** The object's text with only these metadata members, in this order (managedFields first, last, alone). */
function withMetadataOrder(object: Record<string, any>, order: string[]): string {
  const metadata: Record<string, unknown> = {};
  for (const key of order) if (key in object.metadata) metadata[key] = object.metadata[key];
  return JSON.stringify({ ...object, metadata });
}

describe('gateway: Tables answered from the cache’s text', () => {
  const now = new Date('2026-12-02T12:00:00Z');
  const pods = [
    rawPod('a', { resourceVersion: '3', labels: { app: 'x' }, phase: 'Running', nodeName: 'n1' }),
    rawPod('b', { resourceVersion: '4', phase: 'Succeeded' }),
  ];
  const configMap = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'c', namespace: 'default', resourceVersion: '5', managedFields: MANAGED },
    data: { a: '1', b: '2' },
  };
  const bare = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'd', namespace: 'default' }, data: {} };

  for (const includeObject of ['Metadata', 'Object', 'None'] as IncludeObject[]) {
    it(`lists pods as buildTable does, includeObject=${includeObject}`, () => {
      const printer = printerFor('', 'pods');
      const rows = pods.map((pod) => cachedTableRow(printer, JSON.stringify(pod), includeObject, now));
      const listMeta = { resourceVersion: '9', continue: 'next' };
      expect(JSON.parse(tableText(printer, rows, { listMeta }))).to.deep.equal(
        buildTable(printer, pods, { includeObject, listMeta, now }),
      );
    });
  }

  it('finds managedFields first, last, alone or absent in the metadata, and keeps them in the row', () => {
    const printer = printerFor('', 'configmaps');
    const orders = [
      ['managedFields', 'name', 'namespace', 'resourceVersion'],
      ['name', 'namespace', 'resourceVersion', 'managedFields'],
      ['managedFields'],
    ];
    for (const order of orders) {
      const text = withMetadataOrder(configMap, order);
      const expected = buildTable(printer, [JSON.parse(text)], { includeObject: 'Metadata', listMeta: {}, now });
      expect(
        JSON.parse(tableText(printer, [cachedTableRow(printer, text, 'Metadata', now)], { listMeta: {} })),
        order.join(),
      ).to.deep.equal(expected);
    }
    const text = JSON.stringify(bare);
    expect(
      JSON.parse(tableText(printer, [cachedTableRow(printer, text, 'Object', now)], { listMeta: {} })),
    ).to.deep.equal(buildTable(printer, [bare], { includeObject: 'Object', listMeta: {}, now }));
  });
});
