import { expect } from 'chai';
import { compareObjects, FieldSet, fieldSetOf, pathString } from '../../apiserver/apply/field-set.js';
import { kindMeta, recordUpdate } from '../../apiserver/apply/managed-fields.js';
import {
  ApplyConflictError,
  conflictCauses,
  conflictStatusMessage,
  serverSideApply,
} from '../../apiserver/apply/server-side-apply.js';
import { ApiError } from '../../apiserver/status.js';

type Json = Record<string, any>;

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';
const DEPLOYMENT = { apiVersion: 'apps/v1', group: 'apps', kind: 'Deployment' };
const apply = (live: Json | null, applied: Json, manager: string, extra: { force?: boolean; now?: string } = {}) =>
  serverSideApply(live, applied, { ...DEPLOYMENT, manager, force: extra.force ?? false, now: extra.now ?? T0 });
const update = (previous: Json | null, next: Json, manager: string, now = T1) =>
  recordUpdate(previous, next, { ...DEPLOYMENT, manager, now });

interface Container {
  name: string;
  image: string;
  [field: string]: unknown;
}

function deployment(spec: { replicas?: number; containers?: Container[]; labels?: Record<string, string> } = {}): Json {
  const specFields: Json = {};
  if (spec.replicas !== undefined) specFields.replicas = spec.replicas;
  specFields.template = { spec: { containers: spec.containers ?? [{ name: 'app', image: 'nginx:1' }] } };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: spec.labels ?? { app: 'web' } },
    spec: specFields,
  };
}

const entry = (object: Json, manager: string) => object.metadata.managedFields.find((e: Json) => e.manager === manager);
const managers = (object: Json) => object.metadata.managedFields.map((e: Json) => `${e.manager}/${e.operation}`);

function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApplyConflictError) return err;
    throw err;
  }
  throw new Error('expected an apply conflict');
}

describe('server-side apply: field sets and fieldsV1', () => {
  it('reads and writes fieldsV1, with "." for a path that is both owned and has owned children', () => {
    const json = {
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:replicas': {} },
    };
    const set = FieldSet.fromFieldsV1(json);
    expect(set.paths()).to.deep.equal([
      ['f:spec', 'f:replicas'],
      ['f:spec', 'f:containers', 'k:{"name":"app"}'],
      ['f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image'],
      ['f:spec', 'f:containers', 'k:{"name":"app"}', 'f:name'],
    ]);
    expect(set.toFieldsV1()).to.deep.equal(json);
  });

  it('orders fields before keyed items, set items and indexes, as kube does', () => {
    const set = FieldSet.fromPaths([['i:10'], ['i:9'], ['v:"b"'], ['k:{"name":"a"}'], ['f:z'], ['f:a']]);
    expect(Object.keys(set.toFieldsV1())).to.deep.equal(['f:a', 'f:z', 'k:{"name":"a"}', 'v:"b"', 'i:9', 'i:10']);
  });

  it('prints paths as kube prints them in conflicts', () => {
    expect(pathString(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"app"}', 'f:image'])).to.equal(
      '.spec.template.spec.containers[name="app"].image',
    );
    expect(pathString(['f:spec', 'f:ports', 'k:{"containerPort":80}'])).to.equal('.spec.ports[containerPort=80]');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"x"'])).to.equal('.metadata.finalizers[="x"]');
    expect(pathString(['f:args', 'i:2'])).to.equal('.args[2]');
  });

  it('set algebra: union, difference and intersection work member by member', () => {
    const a = FieldSet.fromPaths([['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
    const b = FieldSet.fromPaths([['f:b', 'f:c'], ['f:e']]);
    expect(a.union(b).paths()).to.deep.equal([['f:a'], ['f:e'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
    expect(a.difference(b).paths()).to.deep.equal([['f:a'], ['f:b', 'f:d']]);
    expect(a.intersection(b).paths()).to.deep.equal([['f:b', 'f:c']]);
    // A parent owned as a whole does not take its children's paths away.
    expect(
      FieldSet.fromPaths([['f:b', 'f:c']])
        .difference(FieldSet.fromPaths([['f:b']]))
        .paths(),
    ).to.deep.equal([['f:b', 'f:c']]);
  });

  it('an apply configuration owns its leaves, keyed items, empty maps and atomic lists, not the maps above them', () => {
    const meta = kindMeta('apps', 'Deployment');
    const config = {
      metadata: { annotations: {} },
      spec: {
        template: {
          spec: { containers: [{ name: 'app', image: 'x', args: ['a', 'b'], ports: [{ containerPort: 80 }] }] },
        },
      },
    };
    expect(fieldSetOf(config, meta).toFieldsV1()).to.deep.equal({
      'f:metadata': { 'f:annotations': {} },
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"app"}': {
                '.': {},
                'f:args': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80}': { '.': {}, 'f:containerPort': {} } },
              },
            },
          },
        },
      },
    });
  });

  it('compares objects: changed leaves are modified, maps present on one side only are added or removed with their contents', () => {
    const meta = kindMeta('apps', 'Deployment');
    const { added, modified, removed } = compareObjects(
      { spec: { replicas: 1, paused: true, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } } },
      {
        metadata: { labels: { app: 'web' } },
        spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'x' }] } } },
      },
      meta,
    );
    expect(modified.paths()).to.deep.equal([['f:spec', 'f:replicas']]);
    expect(added.paths()).to.deep.equal([
      ['f:metadata'],
      ['f:metadata', 'f:labels'],
      ['f:metadata', 'f:labels', 'f:app'],
    ]);
    expect(removed.paths()).to.deep.equal([['f:spec', 'f:paused']]);
  });

  it('compares objects built in code: a field held as undefined on both sides is no change, on one side alone it is there', () => {
    const meta = kindMeta('', 'Event');
    const { added, modified, removed } = compareObjects(
      { series: undefined, note: undefined, reason: 'Scheduled' },
      { series: undefined, reason: 'Pulled', action: undefined },
      meta,
    );
    expect(modified.paths()).to.deep.equal([['f:reason']]);
    expect(added.paths()).to.deep.equal([['f:action']]);
    expect(removed.paths()).to.deep.equal([['f:note']]);
  });
});

describe('server-side apply: ownership, conflicts and merging', () => {
  it('creates the object when there is none, the manager owning exactly what it applied', () => {
    const created = apply(null, { ...deployment({ replicas: 2 }), status: { replicas: 9 } }, 'kubectl');
    expect(created.spec.replicas).to.equal(2);
    expect(created.status, 'status is never applied').to.equal(undefined);
    expect(created.metadata.managedFields).to.deep.equal([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:template': {
              'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('ignores server-set metadata in the body and refuses a body carrying managedFields', () => {
    const body = deployment({ replicas: 1 });
    body.metadata = { ...body.metadata, uid: 'u', resourceVersion: '7', creationTimestamp: T0, generation: 3 };
    const created = apply(null, body, 'kubectl');
    for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'generation'])
      expect(created.metadata, field).not.to.have.property(field);
    const withManaged = { ...deployment(), metadata: { name: 'web', managedFields: [] } };
    expect(() => apply(null, withManaged, 'kubectl'))
      .to.throw(ApiError)
      .that.satisfies((err: ApiError) => err.code === 400 && err.message === 'metadata.managedFields must be nil');
  });

  it('a re-apply by the same manager changes what it applies and removes what it no longer applies', () => {
    const first = apply(
      null,
      deployment({
        replicas: 2,
        labels: { app: 'web', tier: 'front' },
        containers: [{ name: 'app', image: 'nginx:1', command: ['run'] }],
      }),
      'kubectl',
    );
    const second = apply(
      first,
      deployment({ replicas: 3, labels: { app: 'web' }, containers: [{ name: 'app', image: 'nginx:2' }] }),
      'kubectl',
      { now: T1 },
    );
    expect(second.spec.replicas).to.equal(3);
    expect(second.metadata.labels).to.deep.equal({ app: 'web' });
    expect(second.spec.template.spec.containers).to.deep.equal([{ name: 'app', image: 'nginx:2' }]);
    expect(entry(second, 'kubectl').time, 'the object changed').to.equal(T1);
    expect(entry(second, 'kubectl').fieldsV1['f:metadata']).to.deep.equal({ 'f:labels': { 'f:app': {} } });
  });

  it('a field no longer applied stays when another manager owns it, and fields nobody owns are never removed', () => {
    const first = apply(null, deployment({ labels: { app: 'web', tier: 'front' } }), 'kubectl');
    const shared = apply(
      first,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { tier: 'front' } } },
      'other',
    );
    const unowned = { ...shared, spec: { ...shared.spec, paused: true } };
    const after = apply(unowned, deployment({ labels: { app: 'web' } }), 'kubectl');
    expect(after.metadata.labels).to.deep.equal({ app: 'web', tier: 'front' });
    expect(after.spec.paused).to.equal(true);
    const gone = apply(after, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } }, 'other');
    expect(gone.metadata.labels).to.deep.equal({ app: 'web' });
    expect(managers(gone), 'a manager that applies nothing owns nothing').to.deep.equal(['kubectl/Apply']);
  });

  it('a re-apply that changes nothing keeps the entry and its time', () => {
    const first = apply(null, deployment({ replicas: 2 }), 'kubectl');
    const again = apply(first, deployment({ replicas: 2 }), 'kubectl', { now: T1 });
    expect(again).to.deep.equal(first);
  });

  it('changing a field another manager owns is a conflict, described as kube-apiserver describes it', () => {
    const first = apply(null, deployment({ replicas: 2 }), 'kubectl');
    const err = conflictOf(() => apply(first, deployment({ replicas: 5 }), 'other'));
    expect(err.conflicts).to.deep.equal([
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', field: '.spec.replicas' },
    ]);
    expect(err.message).to.equal('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    expect(conflictCauses(err.conflicts)).to.deep.equal([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' },
    ]);
  });

  it('names Update managers with their version and subresource, and groups several conflicts by manager', () => {
    const conflicts = [
      { manager: 'zeta', operation: 'Apply' as const, apiVersion: 'apps/v1', field: '.spec.replicas' },
      { manager: 'kubectl-edit', operation: 'Update' as const, apiVersion: 'apps/v1', field: '.spec.paused' },
      { manager: 'kubectl-edit', operation: 'Update' as const, apiVersion: 'apps/v1', field: '.metadata.labels.app' },
      {
        manager: 'hpa',
        operation: 'Update' as const,
        apiVersion: 'autoscaling/v1',
        subresource: 'scale',
        field: '.spec.replicas',
      },
    ];
    expect(conflictStatusMessage(conflicts)).to.equal(
      [
        'Apply failed with 4 conflicts: conflicts with "hpa" with subresource "scale" using autoscaling/v1:',
        '- .spec.replicas',
        'conflicts with "kubectl-edit" using apps/v1:',
        '- .spec.paused',
        '- .metadata.labels.app',
        'conflicts with "zeta":',
        '- .spec.replicas',
      ].join('\n'),
    );
    expect(conflictStatusMessage([conflicts[1]])).to.equal(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.paused',
    );
  });

  it('applying the value another manager owns is no conflict: both own it', () => {
    const first = apply(null, deployment({ replicas: 2 }), 'kubectl');
    const both = apply(
      first,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2 } },
      'other',
    );
    expect(entry(both, 'kubectl').fieldsV1['f:spec']['f:replicas']).to.deep.equal({});
    expect(entry(both, 'other').fieldsV1).to.deep.equal({ 'f:spec': { 'f:replicas': {} } });
    // Either one alone letting go leaves the value with the other.
    const kept = apply(both, deployment(), 'kubectl');
    expect(kept.spec.replicas).to.equal(2);
  });

  it('force takes the field over: the others no longer own it', () => {
    const first = apply(null, deployment({ replicas: 2 }), 'kubectl');
    const forced = apply(
      first,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 5 } },
      'other',
      { force: true, now: T1 },
    );
    expect(forced.spec.replicas).to.equal(5);
    expect(entry(forced, 'other')).to.deep.include({
      operation: 'Apply',
      time: T1,
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(entry(forced, 'kubectl').fieldsV1['f:spec']).not.to.have.property('f:replicas');
    // Now it is the first manager that conflicts, and dropping replicas from its config does not remove them.
    expect(() => apply(forced, deployment({ replicas: 2 }), 'kubectl')).to.throw(
      ApplyConflictError,
      'conflict with "other": .spec.replicas',
    );
    expect(apply(forced, deployment(), 'kubectl').spec.replicas).to.equal(5);
  });

  it('merges lists with a merge key item by item, and replaces atomic lists', () => {
    const first = apply(
      null,
      deployment({
        containers: [
          { name: 'app', image: 'a:1', args: ['x', 'y'] },
          { name: 'sidecar', image: 's:1' },
        ],
      }),
      'kubectl',
    );
    const sidecarOnly = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'extra', image: 'e:1' },
              { name: 'app', image: 'a:1', args: ['z'] },
            ],
          },
        },
      },
    };
    const err = conflictOf(() => apply(first, sidecarOnly, 'other'));
    expect(err.conflicts.map((c) => c.field)).to.deep.equal(['.spec.template.spec.containers[name="app"].args']);
    const merged = apply(first, sidecarOnly, 'other', { force: true });
    expect(merged.spec.template.spec.containers).to.deep.equal([
      { name: 'extra', image: 'e:1' },
      { name: 'app', image: 'a:1', args: ['z'] },
      { name: 'sidecar', image: 's:1' },
    ]);
  });

  it('removes a keyed item its manager stops applying, with everything in it', () => {
    const first = apply(
      null,
      deployment({
        containers: [
          { name: 'app', image: 'a:1' },
          { name: 'sidecar', image: 's:1', env: [{ name: 'A', value: '1' }] },
        ],
      }),
      'kubectl',
    );
    const after = apply(first, deployment({ containers: [{ name: 'app', image: 'a:1' }] }), 'kubectl');
    expect(after.spec.template.spec.containers).to.deep.equal([{ name: 'app', image: 'a:1' }]);
  });

  it("refuses keyed lists whose items lack their key or repeat one, with kube's error text", () => {
    const missing = deployment({ containers: [{ image: 'x' } as unknown as Container] });
    expect(() => apply(null, missing, 'kubectl'))
      .to.throw(ApiError)
      .that.satisfies(
        (err: ApiError) =>
          err.code === 500 &&
          err.message ===
            'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
      );
    const duplicate = deployment({ containers: [{ name: 'app', image: 'x', env: [{ name: 'A' }, { name: 'A' }] }] });
    expect(() => apply(null, duplicate, 'kubectl')).to.throw(
      ApiError,
      '.spec.template.spec.containers[name="app"].env: duplicate entries for key [name="A"]',
    );
  });

  it('fields that predate field tracking belong to "before-first-apply", which applying over conflicts with', () => {
    const untracked = { ...deployment({ replicas: 1 }), metadata: { name: 'web', namespace: 'default', uid: 'u1' } };
    const err = conflictOf(() => apply(untracked, deployment({ replicas: 3 }), 'kubectl'));
    expect(err.message).to.equal(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas',
    );
    const applied = apply(untracked, deployment({ replicas: 1 }), 'kubectl');
    expect(managers(applied)).to.deep.equal(['kubectl/Apply', 'before-first-apply/Update']);
  });
});

describe('server-side apply: managedFields of ordinary writes', () => {
  it('a create records an Update entry owning what it set, with "." for the maps it created', () => {
    const created = update(null, deployment({ replicas: 1 }), 'kubectl-create');
    expect(created.metadata.managedFields).to.deep.equal([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:template': {
              '.': {},
              'f:spec': {
                '.': {},
                'f:containers': { '.': {}, 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
              },
            },
          },
        },
      },
    ]);
  });

  it('an update takes the fields it changed from every other manager and leaves the rest', () => {
    const applied = apply(null, deployment({ replicas: 2 }), 'kubectl');
    const edited = update(applied, { ...applied, spec: { ...applied.spec, replicas: 4 } }, 'kubectl-edit');
    expect(managers(edited)).to.deep.equal(['kubectl/Apply', 'kubectl-edit/Update']);
    expect(entry(edited, 'kubectl-edit').fieldsV1).to.deep.equal({ 'f:spec': { 'f:replicas': {} } });
    expect(entry(edited, 'kubectl').fieldsV1['f:spec']).not.to.have.property('f:replicas');
    expect(() => apply(edited, deployment({ replicas: 2 }), 'kubectl')).to.throw(
      ApplyConflictError,
      'conflict with "kubectl-edit" using apps/v1: .spec.replicas',
    );
  });

  it('an update that changes nothing ownable keeps managedFields as they were, and ignores sent managedFields that do not decode', () => {
    const created = update(null, deployment({ replicas: 1 }), 'kubectl-create', T0);
    const rewritten = {
      ...created,
      metadata: {
        ...created.metadata,
        resourceVersion: '9',
        managedFields: [{ manager: 'forged', operation: 'Apply' }],
      },
    };
    expect(update(created, rewritten, 'kubectl-replace').metadata.managedFields).to.deep.equal(
      created.metadata.managedFields,
    );
  });

  it('an existing object without managedFields stays untracked by updates', () => {
    const untracked = deployment({ replicas: 1 });
    const next = update(untracked, { ...untracked, spec: { ...untracked.spec, replicas: 2 } }, 'kubectl-edit');
    expect(next.metadata).not.to.have.property('managedFields');
    expect(next.spec.replicas).to.equal(2);
  });

  it('a manager left owning nothing disappears', () => {
    const created = update(
      null,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } },
      'creator',
      T0,
    );
    const edited = update(created, { ...created, spec: { replicas: 2 } }, 'editor');
    expect(managers(edited)).to.deep.equal(['editor/Update']);
  });
});
