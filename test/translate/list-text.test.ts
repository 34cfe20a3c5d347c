import { expect } from 'chai';
import fc from 'fast-check';
import { tenantContext, type KindScope } from '../../translate/context.js';
import { CollectionStreamDown } from '../../translate/list-stream.js';
import { collectionDown, objectTextDown, renderCollection } from '../../translate/list-text.js';
import { objectDownInPlace } from '../../translate/objects.js';
import { tableDown, type RowKind } from '../../translate/table.js';
import { testSeed } from '../support/seed.js';

type Json = Record<string, any>;

const NAMESPACED = new Set(['Pod', 'ConfigMap', 'Event', 'RoleBinding', 'Deployment', 'CronTab']);
const CLUSTER_SCOPED = ['Namespace', 'ClusterRole', 'PersistentVolume', 'Widget', 'CustomResourceDefinition'];
const kinds: KindScope = {
  kindIsNamespaced: (_group, kind) => (CLUSTER_SCOPED.includes(kind) ? false : NAMESPACED.has(kind) ? true : undefined),
  resourceIsNamespaced: () => undefined,
  kindOf: (group, resource) =>
    group === ''
      ? ({ namespaces: 'Namespace', pods: 'Pod', configmaps: 'ConfigMap' } as Record<string, string>)[resource]
      : undefined,
};
const ctx = tenantContext('aaaaaa', kinds);

/** Upstream names: the tenant's own, another tenant's, and unprefixed. */
const base = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);
const upstreamName = fc.oneof(
  base.map((b) => `aaaaaa-${b}`),
  base.map((b) => `bbbbbb-${b}`),
  base,
);
const apiVersion = fc.constantFrom(
  'v1',
  'apps/v1',
  'aaaaaa-stable.example.com/v1',
  'bbbbbb-stable.example.com/v1',
  'rbac.authorization.k8s.io/v1',
);
/** Strings with the characters that JSON escapes, so texts carry escapes where Go would write them. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('<b>&amp;</b>', 'quote " and \\ backslash', 'line\nbreak', 'aaaaaa-default', '\u00e9t\u00e9'),
);

const metadata = (namespaced: boolean) =>
  fc.record(
    {
      name: upstreamName,
      generateName: upstreamName,
      ...(namespaced ? { namespace: upstreamName } : {}),
      labels: fc.dictionary(base, fc.oneof(base, upstreamName)),
      annotations: fc.dictionary(base, text),
      ownerReferences: fc.array(
        fc.record({
          apiVersion,
          kind: fc.constantFrom('ReplicaSet', 'Namespace', 'CronTab', 'Widget'),
          name: upstreamName,
          uid: base,
          controller: fc.boolean(),
        }),
        { maxLength: 2 },
      ),
      managedFields: fc.array(
        fc.record({
          manager: text,
          operation: fc.constantFrom('Update', 'Apply'),
          apiVersion,
          fieldsType: fc.constant('FieldsV1'),
          fieldsV1: fc.constant({ 'f:metadata': { 'f:labels': { '.': {} } } }),
        }),
        { maxLength: 2 },
      ),
      resourceVersion: fc.nat().map(String),
    },
    { requiredKeys: ['name'] },
  );

const items: Record<string, fc.Arbitrary<Json>> = {
  Pod: fc.record({
    metadata: metadata(true),
    spec: fc.record(
      {
        priorityClassName: upstreamName,
        runtimeClassName: upstreamName,
        containers: fc.constant([{ name: 'c', image: 'i', env: [{ name: 'X', value: 'aaaaaa-x' }] }]),
        volumes: fc.array(
          fc.record({
            name: base,
            ephemeral: fc.record({
              volumeClaimTemplate: fc.record({ spec: fc.record({ storageClassName: upstreamName }) }),
            }),
          }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: ['containers'] },
    ),
    status: fc.constant({ phase: 'Running' }),
  }),
  ConfigMap: fc.record({ metadata: metadata(true), data: fc.dictionary(base, text) }),
  Namespace: fc.record({ metadata: metadata(false), spec: fc.constant({ finalizers: ['kubernetes'] }) }),
  ClusterRole: fc.record(
    {
      metadata: metadata(false),
      rules: fc.array(
        fc.record(
          {
            apiGroups: fc.array(
              fc.constantFrom('', 'apps', '*', 'aaaaaa-stable.example.com', 'bbbbbb-stable.example.com'),
              { maxLength: 3 },
            ),
            resources: fc.array(fc.constantFrom('pods', 'namespaces', 'configmaps', 'namespaces/status'), {
              minLength: 1,
              maxLength: 2,
            }),
            resourceNames: fc.array(upstreamName, { maxLength: 3 }),
            verbs: fc.constant(['get']),
          },
          { requiredKeys: ['apiGroups', 'verbs'] },
        ),
        { maxLength: 2 },
      ),
      aggregationRule: fc.record({
        clusterRoleSelectors: fc.array(
          fc.record(
            {
              matchLabels: fc.dictionary(base, base),
              matchExpressions: fc.array(
                fc.constantFrom(
                  { key: 'kubezoo.io/tenant', operator: 'In', values: ['aaaaaa'] },
                  { key: 'tier', operator: 'Exists' },
                ),
                { maxLength: 2 },
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
      }),
    },
    { requiredKeys: ['metadata'] },
  ),
  RoleBinding: fc.record({
    metadata: metadata(true),
    subjects: fc.array(
      fc.record({
        kind: fc.constantFrom('User', 'Group', 'ServiceAccount'),
        name: upstreamName,
        namespace: upstreamName,
      }),
      { maxLength: 3 },
    ),
    roleRef: fc.record({
      apiGroup: fc.constant('rbac.authorization.k8s.io'),
      kind: fc.constantFrom('Role', 'ClusterRole'),
      name: upstreamName,
    }),
  }),
  Event: fc.record({
    metadata: metadata(true),
    involvedObject: fc.record({
      kind: fc.constantFrom('Pod', 'Namespace', 'ClusterRole'),
      namespace: upstreamName,
      name: upstreamName,
      apiVersion,
    }),
    message: text,
  }),
  CronTab: fc.record({ metadata: metadata(true), spec: fc.dictionary(base, text) }),
  PersistentVolume: fc.record({
    metadata: metadata(false),
    spec: fc.record(
      {
        storageClassName: upstreamName,
        claimRef: fc.record({
          kind: fc.constant('PersistentVolumeClaim'),
          namespace: upstreamName,
          name: upstreamName,
        }),
      },
      { requiredKeys: [] },
    ),
  }),
  CustomResourceDefinition: fc.record({
    metadata: metadata(false),
    spec: fc.record({
      group: fc.constantFrom('aaaaaa-stable.example.com', 'bbbbbb-stable.example.com', 'example.com'),
      names: fc.constant({ plural: 'crontabs', kind: 'CronTab' }),
    }),
    status: fc.constant({ acceptedNames: { plural: 'crontabs', kind: 'CronTab' } }),
  }),
};

const LIST_TYPES: Record<string, string> = {
  Pod: 'v1',
  ConfigMap: 'v1',
  Namespace: 'v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
  RoleBinding: 'rbac.authorization.k8s.io/v1',
  Event: 'v1',
  CronTab: 'aaaaaa-stable.example.com/v1',
  PersistentVolume: 'v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1',
};

const list = fc.constantFrom(...Object.keys(items)).chain((kind) =>
  fc.record({
    kind: fc.constant(`${kind}List`),
    apiVersion: fc.constant(LIST_TYPES[kind]),
    metadata: fc.record(
      { resourceVersion: fc.nat().map(String), continue: base },
      { requiredKeys: ['resourceVersion'] },
    ),
    items: fc.array(items[kind], { maxLength: 6 }),
  }),
);

const row = (namespace: string, name: string, extra: Json = {}) => ({
  cells: [name, `${namespace}/${name}`, 3, null],
  object: {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { name, namespace, labels: { 'kubezoo.io/tenant': 'aaaaaa', app: 'x' }, ...extra },
  },
});
const table = fc.record({
  kind: fc.constant('Table'),
  apiVersion: fc.constant('meta.k8s.io/v1'),
  metadata: fc.constant({ resourceVersion: '7' }),
  columnDefinitions: fc.constant([{ name: 'Name', type: 'string' }]),
  rows: fc.array(
    fc
      .tuple(upstreamName, upstreamName, fc.boolean())
      .map(([namespace, name, owned]) =>
        row(
          namespace,
          name,
          owned ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u' }] } : {},
        ),
      ),
    { maxLength: 6 },
  ),
});

/** The same document as Go (escaping <, > and &), as JSON.stringify, or indented. */
const writing = fc.constantFrom(
  (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026'),
  (value: unknown) => JSON.stringify(value),
  (value: unknown) => JSON.stringify(value, null, 2),
);

describe('translate: lists and Tables converted from their text', () => {
  it('a list converted from its text equals the list parsed and converted whole (objectDownInPlace)', () => {
    fc.assert(
      fc.property(list, writing, (upstream, write) => {
        const expected = structuredClone(upstream);
        objectDownInPlace(ctx, expected);
        const page = collectionDown(
          ctx,
          write(upstream),
          { group: '', kind: upstream.kind.slice(0, -4), namespaced: true },
          false,
        )!;
        expect(page.read).to.equal(upstream.items.length);
        expect(JSON.parse(renderCollection(page).join(''))).to.deep.equal(expected);
      }),
      { seed: testSeed(import.meta.url).seed, numRuns: 1000 },
    );
  });

  it('an item whose conversion changes its shape (a foreign owner reference dropped) is parsed in full, with the same result', () => {
    const upstream = {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9' },
      items: [
        {
          metadata: {
            name: 'p',
            namespace: 'aaaaaa-default',
            managedFields: [
              { manager: 'm', apiVersion: 'bbbbbb-stable.example.com/v1' },
              { manager: 'n', apiVersion: 'v1' },
            ],
          },
        },
      ],
    };
    const expected = structuredClone(upstream);
    objectDownInPlace(ctx, expected);
    const page = collectionDown(ctx, JSON.stringify(upstream), { group: '', kind: 'Pod', namespaced: true }, false)!;
    expect(JSON.parse(renderCollection(page).join(''))).to.deep.equal(expected);
  });

  it('a list larger than a piece is written in several pieces that join into the converted list, its items in order', () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({
      metadata: { name: `c${i}`, namespace: 'aaaaaa-x' },
      data: { blob: 'x'.repeat(1000) },
    }));
    const upstream = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items };
    const expected = structuredClone(upstream);
    objectDownInPlace(ctx, expected);
    const pieces = renderCollection(
      collectionDown(ctx, JSON.stringify(upstream), { group: '', kind: 'ConfigMap', namespaced: true }, false)!,
    );
    expect(pieces.length).to.be.greaterThan(3);
    expect(JSON.parse(pieces.join(''))).to.deep.equal(expected);
    expect(
      JSON.parse(renderCollection({ head: { kind: 'ConfigMapList' }, key: 'items', elements: [] }).join('')),
    ).to.deep.equal({ kind: 'ConfigMapList', items: [] });
  });

  it("converts the items after the head when the head's kind comes after them", () => {
    const upstream =
      '{"items":[{"metadata":{"name":"c","namespace":"aaaaaa-x"}},{"metadata":{"name":"d","namespace":"bbbbbb-x"}}],"metadata":{"resourceVersion":"5"},"apiVersion":"v1","kind":"ConfigMapList"}';
    const page = collectionDown(ctx, upstream, { group: '', kind: 'ConfigMap', namespaced: true }, false)!;
    expect(page.read).to.equal(2);
    expect(JSON.parse(renderCollection(page).join(''))).to.deep.equal({
      metadata: { resourceVersion: '5' },
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      items: [{ metadata: { name: 'c', namespace: 'x' } }],
    });
  });

  it('a single object converted from its text equals the object parsed and converted (randomized)', () => {
    const object = fc
      .constantFrom(...Object.keys(items))
      .chain((kind) => items[kind].map((item) => ({ kind, apiVersion: LIST_TYPES[kind], ...item })));
    let converted = 0;
    fc.assert(
      fc.property(object, writing, (upstream, write) => {
        const expected = structuredClone(upstream);
        const own = objectDownInPlace(ctx, expected);
        const down = objectTextDown(ctx, write(upstream));
        if (down === undefined) return;
        converted++;
        expect(down === null ? null : JSON.parse(down)).to.deep.equal(own ? expected : null);
      }),
      { seed: testSeed(import.meta.url).seed, numRuns: 1000 },
    );
    expect(converted).to.be.greaterThan(500);
  });

  it('leaves to the caller what is not a plain object with kind and apiVersion first', () => {
    for (const text of [
      '{"kind":"Status","apiVersion":"v1","code":404}',
      '{"kind":"PodList","apiVersion":"v1","items":[]}',
      '{"kind":"Table","apiVersion":"meta.k8s.io/v1","rows":[]}',
      '{"metadata":{"name":"p"},"kind":"Pod","apiVersion":"v1"}',
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}} x',
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"',
      '[]',
    ]) {
      expect(objectTextDown(ctx, text), text).to.equal(undefined);
    }
    expect(
      objectTextDown(ctx, '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"bbbbbb-x"}}'),
    ).to.equal(null);
  });

  it("a single object's reading stops after the last member its conversion reads; a key written twice counts once", () => {
    // The status is never read (its bytes, spacing included, come through as they were), but a
    // repeated kind must not end the reading before the spec, whose priority class is converted.
    const text =
      '{"kind":"Pod","apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"aaaaaa-x"},' +
      '"spec":{"priorityClassName":"aaaaaa-high"},"status":{"phase":  "Running"}}';
    expect(objectTextDown(ctx, text)).to.equal(
      '{"kind":"Pod","apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},' +
        '"spec":{"priorityClassName":"high"},"status":{"phase":  "Running"}}',
    );
  });

  it('bytes the conversion does not touch are kept exactly as they came', () => {
    const upstream =
      '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"c","namespace":"aaaaaa-x"},"data":{"html":"\\u003cb\\u003e","n":  1.50}}]}';
    const page = collectionDown(ctx, upstream, { group: '', kind: 'ConfigMap', namespaced: true }, false)!;
    expect(page.elements).to.deep.equal([
      '{"metadata":{"name":"c","namespace":"x"},"data":{"html":"\\u003cb\\u003e","n":  1.50}}',
    ]);
  });

  for (const wantsNoObject of [false, true]) {
    it(`a Table converted from its text equals tableDown of the parsed Table${wantsNoObject ? ', row objects dropped' : ''}`, () => {
      fc.assert(
        fc.property(table, writing, (upstream, write) => {
          const rowKind = { group: '', kind: 'Pod', namespaced: true };
          const expected = tableDown(ctx, structuredClone(upstream), rowKind);
          if (wantsNoObject) expected.rows = expected.rows.map((r: Json) => ({ ...r, object: null }));
          const page = collectionDown(ctx, write(upstream), rowKind, wantsNoObject)!;
          expect(page.key).to.equal('rows');
          expect(JSON.parse(renderCollection(page).join(''))).to.deep.equal(expected);
        }),
        { seed: testSeed(import.meta.url).seed, numRuns: 200 },
      );
    });
  }

  it('a Status or a single object is not a collection', () => {
    expect(
      collectionDown(
        ctx,
        '{"kind":"Status","apiVersion":"v1","code":404}',
        { group: '', kind: 'Pod', namespaced: true },
        false,
      ),
    ).to.equal(null);
    expect(
      collectionDown(
        ctx,
        '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}',
        { group: '', kind: 'Pod', namespaced: true },
        false,
      ),
    ).to.equal(null);
  });

  it('text that is not JSON throws, so the caller can fall back', () => {
    for (const broken of [
      '{"kind":"PodList","items":[{"metadata":{"name":"p"',
      '{"kind":"PodList","items":[{"a" 1}]}',
      '',
    ]) {
      expect(() => collectionDown(ctx, broken, { group: '', kind: 'Pod', namespaced: true }, false), broken).to.throw();
    }
  });
});

/** The text cut at these points (sorted, within it), fed one piece after another. */
function streamDown(
  text: string,
  cuts: number[],
  rowKind: RowKind,
  wantsNoObject: boolean,
  headDown = (head: Json) => head,
): { out: string; stream: CollectionStreamDown; streamed: boolean } {
  const stream = new CollectionStreamDown(ctx, rowKind, wantsNoObject, headDown);
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const point of [...points, text.length]) {
    out += stream.push(text.slice(from, point));
    from = point;
  }
  return { out, stream, streamed: stream.end() };
}

describe('translate: lists and Tables converted while they arrive', () => {
  const cuts = fc.array(fc.nat(), { maxLength: 12 });

  it('a list cut anywhere converts to what collectionDown makes of it whole (randomized)', () => {
    fc.assert(
      fc.property(list, writing, cuts, (upstream, write, at) => {
        const text = write(upstream);
        const rowKind = { group: '', kind: upstream.kind.slice(0, -4), namespaced: true };
        const { out, stream, streamed } = streamDown(text, at, rowKind, false);
        expect(streamed).to.equal(true);
        expect(stream.read).to.equal(upstream.items.length);
        expect(JSON.parse(out)).to.deep.equal(
          JSON.parse(renderCollection(collectionDown(ctx, text, rowKind, false)!).join('')),
        );
      }),
      { seed: testSeed(import.meta.url).seed, numRuns: 500 },
    );
  });

  it('a Table cut anywhere converts to what collectionDown makes of it whole (randomized)', () => {
    fc.assert(
      fc.property(table, writing, cuts, fc.boolean(), (upstream, write, at, wantsNoObject) => {
        const text = write(upstream);
        const rowKind = { group: '', kind: 'Pod', namespaced: true };
        const { out } = streamDown(text, at, rowKind, wantsNoObject);
        expect(JSON.parse(out)).to.deep.equal(
          JSON.parse(renderCollection(collectionDown(ctx, text, rowKind, wantsNoObject)!).join('')),
        );
      }),
      { seed: testSeed(import.meta.url).seed, numRuns: 200 },
    );
  });

  it('gives the head to headDown once, and the members after the items on their own', () => {
    const text =
      '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"continue":"x"},"items":[{"metadata":{"name":"c","namespace":"aaaaaa-a"}}],"metadata2":{"n":1}}';
    const heads: Json[] = [];
    const { out } = streamDown(text, [30, 90], { group: '', kind: 'ConfigMap', namespaced: true }, false, (head) => {
      heads.push(head);
      return { ...head, seen: true };
    });
    expect(heads).to.deep.equal([
      { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { continue: 'x' } },
      { metadata2: { n: 1 } },
    ]);
    expect(JSON.parse(out)).to.deep.equal({
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { continue: 'x' },
      seen: true,
      items: [{ metadata: { name: 'c', namespace: 'a' } }],
      metadata2: { n: 1 },
    });
  });

  it('does not stream a Status, an object, or a list whose kind comes after its items: it keeps the whole text', () => {
    for (const text of [
      '{"kind":"Status","apiVersion":"v1","code":404}',
      '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"}}',
      '{"items":[{"metadata":{"name":"c"}}],"kind":"ConfigMapList","apiVersion":"v1"}',
      '[1,2]',
    ]) {
      const { out, stream, streamed } = streamDown(text, [5, 17], { group: '', kind: 'Pod', namespaced: true }, false);
      expect(streamed, text).to.equal(false);
      expect(out, text).to.equal('');
      expect(stream.wholeText, text).to.equal(text);
    }
  });

  it('a list that ends early or has text after its end throws at its end', () => {
    for (const broken of [
      '{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p"',
      '{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p"}}',
      '{"kind":"PodList","apiVersion":"v1","items":[]} x',
      '{"kind":"PodList","apiVersion":"v1","items":[{"a" 1}]}',
    ]) {
      expect(() => streamDown(broken, [20], { group: '', kind: 'Pod', namespaced: true }, false), broken).to.throw();
    }
  });
});
