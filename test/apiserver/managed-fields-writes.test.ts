import { expect } from 'chai';
import { LAST_APPLIED_ANNOTATION } from '../../apiserver/apply/last-applied.js';
import { recordUpdate } from '../../apiserver/apply/managed-fields.js';
import { ApplyConflictError, conflictStatusMessage, serverSideApply } from '../../apiserver/apply/server-side-apply.js';
import { validateManagedFields } from '../../apiserver/validation/managed-fields.js';

type Json = Record<string, any>;

const T0 = '2022-08-22T23:08:23Z';
const T1 = '2022-08-23T23:08:23Z';
const NOW = '2025-01-01T00:00:00Z';
const CONFIGMAP = { apiVersion: 'v1', group: '', kind: 'ConfigMap' };
const CSA = 'kubectl-client-side-apply';

const update = (previous: Json | null, next: Json, manager: string, subresource?: string) =>
  recordUpdate(previous, next, { ...CONFIGMAP, manager, now: NOW, ...(subresource ? { subresource } : {}) });
const apply = (live: Json, applied: Json, manager: string) =>
  serverSideApply(live, applied, { ...CONFIGMAP, manager, force: false, now: NOW });

function entry(manager: string, operation: 'Apply' | 'Update', fieldsV1: Json, time = T0): Json {
  return { apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1, manager, operation, time };
}

const ANNOTATION_FIELDS = { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} } };
const DATA_KEY_LEGACY = { 'f:data': { '.': {}, 'f:key': {}, 'f:legacy': {} }, 'f:metadata': ANNOTATION_FIELDS };
const DATA_KEY = { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': ANNOTATION_FIELDS };

/** The object of kube's csaupgrade cases: a ConfigMap client-side applied with data key and legacy. */
function configMap(managedFields: Json[] | undefined, data: Json = { key: 'value', legacy: 'unused' }): Json {
  const lastApplied = {
    apiVersion: 'v1',
    data: { key: 'value', legacy: 'unused' },
    kind: 'ConfigMap',
    metadata: { annotations: {}, name: 'test', namespace: 'default' },
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'test',
      namespace: 'default',
      resourceVersion: '1',
      creationTimestamp: T0,
      annotations: { [LAST_APPLIED_ANNOTATION]: `${JSON.stringify(lastApplied)}\n` },
      ...(managedFields ? { managedFields } : {}),
    },
    data,
  };
}

const withManagedFields = (object: Json, managedFields: unknown) => ({
  ...object,
  metadata: { ...object.metadata, managedFields },
});
const managers = (object: Json) =>
  (object.metadata.managedFields ?? []).map((e: Json) => `${e.manager}/${e.operation}`) as string[];

describe('managedFields written by a client (kube decodeLiveOrNew), as kubectl migrates client-side apply', () => {
  // Before and after of kube's csaupgrade cases: what kubectl's JSON patch replaces
  // metadata.managedFields with, which the server must store as sent.
  const migrations: { name: string; before: Json[]; after: Json[] }[] = [
    {
      name: 'the client-side apply entry becomes the kubectl Apply entry',
      before: [entry(CSA, 'Update', DATA_KEY_LEGACY)],
      after: [entry('kubectl', 'Apply', DATA_KEY_LEGACY)],
    },
    {
      name: 'a first server-side apply left both entries with the same fields: one remains',
      before: [entry('kubectl', 'Apply', DATA_KEY_LEGACY, T1), entry(CSA, 'Update', DATA_KEY_LEGACY)],
      after: [entry('kubectl', 'Apply', DATA_KEY_LEGACY, T1)],
    },
    {
      name: 'the client-side entry owned more: the Apply entry gets the union',
      before: [entry('kubectl', 'Apply', DATA_KEY, T1), entry(CSA, 'Update', DATA_KEY_LEGACY)],
      after: [entry('kubectl', 'Apply', DATA_KEY_LEGACY, T1)],
    },
    {
      name: 'other managers are left as they are',
      before: [entry(CSA, 'Update', DATA_KEY_LEGACY), entry('kube-controller', 'Update', { 'f:data': { 'f:x': {} } })],
      after: [
        entry('kubectl', 'Apply', DATA_KEY_LEGACY),
        entry('kube-controller', 'Update', { 'f:data': { 'f:x': {} } }),
      ],
    },
  ];
  for (const { name, before, after } of migrations) {
    it(`stores the migrated entries as sent: ${name}`, () => {
      const live = configMap(before);
      const stored = update(live, withManagedFields(live, after), 'kubectl');
      // Changing only managedFields changes nothing the writer could own: no entry of its own.
      expect(stored.metadata.managedFields).to.deep.equal(after);
    });
  }

  it('after the migration, kubectl applying without a key removes it (the case csaupgrade exists for)', () => {
    const live = configMap([entry('kubectl', 'Apply', DATA_KEY, T1), entry(CSA, 'Update', DATA_KEY_LEGACY)]);
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test', namespace: 'default' } };
    const applied = { ...config, data: { key: 'value' } };
    // Not migrated: the client-side entry still owns legacy, so it stays.
    expect(apply(live, applied, 'kubectl').data).to.deep.equal({ key: 'value', legacy: 'unused' });
    const migrated = update(live, withManagedFields(live, [entry('kubectl', 'Apply', DATA_KEY_LEGACY, T1)]), 'kubectl');
    const reapplied = apply(migrated, applied, 'kubectl');
    expect(reapplied.data).to.deep.equal({ key: 'value' });
    expect(managers(reapplied)).to.deep.equal(['kubectl/Apply']);
  });

  it('a write that changes fields as well records its manager over the entries it sent', () => {
    const live = configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
    const next = withManagedFields({ ...live, data: { key: 'changed', legacy: 'unused' } }, [
      entry('kubectl', 'Apply', DATA_KEY_LEGACY),
    ]);
    const stored = update(live, next, 'editor');
    expect(managers(stored)).to.deep.equal(['kubectl/Apply', 'editor/Update']);
    expect(stored.metadata.managedFields[0].fieldsV1['f:data']).to.deep.equal({ '.': {}, 'f:legacy': {} });
    expect(stored.metadata.managedFields[1].fieldsV1).to.deep.equal({ 'f:data': { 'f:key': {} } });
  });

  const resets: [string, unknown][] = [
    ['[]', []],
    ['[{}]', [{}]],
  ];
  for (const [label, value] of resets) {
    it(`${label} resets tracking: an update leaves the object untracked, a create tracks from scratch`, () => {
      const live = configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
      const reset = update(live, withManagedFields({ ...live, data: { key: 'changed' } }, value), 'editor');
      expect(reset.metadata).not.to.have.property('managedFields');
      expect(update(live, withManagedFields(live, value), 'editor').metadata).not.to.have.property('managedFields');
      const created = update(null, withManagedFields(configMap(undefined), value), 'creator');
      expect(managers(created)).to.deep.equal(['creator/Update']);
    });
  }

  const undecodable: [string, unknown][] = [
    ['null', null],
    ['an operation that is neither Apply nor Update', [{ ...entry('x', 'Apply', {}), operation: 'Replace' }]],
    ['no apiVersion', [{ ...entry('x', 'Apply', {}), apiVersion: '' }]],
    ['an empty fieldsType', [{ ...entry('x', 'Apply', {}), fieldsType: '' }]],
    ['another fieldsType', [{ ...entry('x', 'Apply', {}), fieldsType: 'FieldsV2' }]],
    ['fieldsV1 with a key that is no path element', [entry('x', 'Apply', { 'x:data': {} })]],
    ['fieldsV1 that is not an object', [{ ...entry('x', 'Apply', {}), fieldsV1: 'f:data' }]],
    ['one bad entry among good ones', [entry('kubectl', 'Apply', DATA_KEY), { manager: 'forged' }]],
  ];
  for (const [label, value] of undecodable) {
    it(`entries that do not decode (${label}) leave the live entries in place, as kube's TestErrorsDontFail`, () => {
      const live = configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
      expect(update(live, withManagedFields(live, value), 'editor').metadata.managedFields).to.deep.equal(
        live.metadata.managedFields,
      );
    });
  }

  it('a manager named twice keeps its last entry', () => {
    const live = configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
    const twice = [entry('kubectl', 'Apply', DATA_KEY), entry('kubectl', 'Apply', DATA_KEY_LEGACY)];
    expect(update(live, withManagedFields(live, twice), 'editor').metadata.managedFields).to.deep.equal([
      entry('kubectl', 'Apply', DATA_KEY_LEGACY),
    ]);
  });

  it('a write to a subresource never sets managedFields', () => {
    const live = configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
    const next = withManagedFields(live, [entry('kubectl', 'Apply', DATA_KEY_LEGACY)]);
    expect(update(live, next, 'editor', 'status').metadata.managedFields).to.deep.equal(live.metadata.managedFields);
  });

  it("refuses entries kube's validation refuses, with its messages", () => {
    expect(validateManagedFields([entry('kubectl', 'Apply', {})])).to.deep.equal([]);
    expect(
      validateManagedFields([
        { ...entry('a\u0007b', 'Apply', {}), subresource: 's'.repeat(257) },
        { ...entry('m'.repeat(129), 'Update', {}), operation: 'Replace', fieldsType: 'FieldsV2' },
      ]),
    ).to.deep.equal([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.managedFields[0].manager',
        message: 'Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
      },
      {
        reason: 'FieldValueTooLong',
        field: 'metadata.managedFields[0].subresource',
        message: 'Too long: may not be more than 256 bytes',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.managedFields[1].operation',
        message: 'Invalid value: "Replace": must be `Apply` or `Update`',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.managedFields[1].fieldsType',
        message: 'Invalid value: "FieldsV2": must be `FieldsV1`',
      },
      {
        reason: 'FieldValueTooLong',
        field: 'metadata.managedFields[1].manager',
        message: 'Too long: may not be more than 128 bytes',
      },
    ]);
  });
});

describe("server-side apply by kubectl over client-side apply (kube's last-applied managers)", () => {
  const clientSideApplied = () => configMap([entry(CSA, 'Update', DATA_KEY_LEGACY)]);
  const config = (data: Json) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'test', namespace: 'default' },
    data,
  });

  function conflictOf(fn: () => unknown): ApplyConflictError {
    try {
      fn();
    } catch (err) {
      if (err instanceof ApplyConflictError) return err;
      throw err;
    }
    throw new Error('expected an apply conflict');
  }

  it('kubectl takes the fields its last client-side apply set without a conflict, and the annotation follows', () => {
    const applied = config({ key: 'new <&> value', legacy: 'unused' });
    const result = apply(clientSideApplied(), applied, 'kubectl');
    expect(result.data).to.deep.equal({ key: 'new <&> value', legacy: 'unused' });
    expect(managers(result)).to.deep.equal(['kubectl/Apply', `${CSA}/Update`]);
    // Written as Go's json.Encoder writes it: sorted keys, HTML characters escaped, a newline.
    expect(result.metadata.annotations[LAST_APPLIED_ANNOTATION]).to.equal(
      '{"apiVersion":"v1","data":{"key":"new \\u003c\\u0026\\u003e value","legacy":"unused"},' +
        '"kind":"ConfigMap","metadata":{"name":"test","namespace":"default"}}\n',
    );
  });

  it('another manager gets the conflict', () => {
    const conflict = conflictOf(() => apply(clientSideApplied(), config({ key: 'new' }), 'helm'));
    expect(conflictStatusMessage(conflict.conflicts)).to.equal(
      `Apply failed with 1 conflict: conflict with "${CSA}" using v1: .data.key`,
    );
  });

  it('a field changed since the client-side apply is still a conflict, and only that one is reported', () => {
    const live = clientSideApplied();
    const edited = update(live, { ...live, data: { key: 'value', legacy: 'edited' } }, 'kubectl-edit');
    const conflict = conflictOf(() => apply(edited, config({ key: 'new', legacy: 'mine' }), 'kubectl'));
    expect(conflictStatusMessage(conflict.conflicts)).to.equal(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.legacy',
    );
  });

  it('an annotation written at another version allows nothing', () => {
    const live = clientSideApplied();
    live.metadata.annotations[LAST_APPLIED_ANNOTATION] = JSON.stringify({ apiVersion: 'v2', data: { key: 'value' } });
    expect(() => apply(live, config({ key: 'new' }), 'kubectl')).to.throw(ApplyConflictError);
  });

  it('an object without the annotation does not get one', () => {
    const live = clientSideApplied();
    delete live.metadata.annotations;
    const result = apply(live, config({ key: 'value' }), 'kubectl');
    expect(result.metadata).not.to.have.property('annotations');
  });
});
