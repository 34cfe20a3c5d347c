import { expect } from 'chai';
import { tenantContext } from '../../translate/context.js';
import { objectDown, objectUp } from '../../translate/objects.js';
import { kindScope } from '../support/kind-scope.js';

type Json = Record<string, any>;

const ctx = tenantContext('aaaaaa', kindScope());
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const withAnnotation = (object: Json, applied: unknown): Json => ({
  ...object,
  metadata: {
    ...object.metadata,
    annotations: { [LAST_APPLIED]: typeof applied === 'string' ? applied : `${JSON.stringify(applied)}\n` },
  },
});
const annotationOf = (object: Json | null): unknown => JSON.parse(object!.metadata.annotations[LAST_APPLIED]);

describe("translate: kubectl's last-applied-configuration annotation", () => {
  const cronTab = {
    apiVersion: 'stable.example.com/v1',
    kind: 'CronTab',
    metadata: { name: 'nightly', namespace: 'default' },
    spec: { schedule: '0 1 * * *' },
  };

  it("is converted as the object it holds: up in upstream names, down in the tenant's, its final newline kept", () => {
    const up = objectUp(ctx, withAnnotation(cronTab, cronTab));
    expect(annotationOf(up)).to.deep.equal({
      ...cronTab,
      apiVersion: 'aaaaaa-stable.example.com/v1',
      metadata: { name: 'nightly', namespace: 'aaaaaa-default' },
    });
    expect(up.metadata.annotations[LAST_APPLIED].endsWith('\n')).to.equal(true);
    const down = objectDown(ctx, up);
    expect(annotationOf(down)).to.deep.equal(cronTab);
    expect(down!.metadata.annotations[LAST_APPLIED].endsWith('\n')).to.equal(true);
  });

  it('comes down converted in lists too', () => {
    const upstream = objectUp(ctx, withAnnotation(cronTab, cronTab));
    const list = objectDown(ctx, {
      apiVersion: 'aaaaaa-stable.example.com/v1',
      kind: 'CronTabList',
      items: [upstream],
    });
    expect(annotationOf(list!.items[0])).to.deep.equal(cronTab);
  });

  it("one that is no JSON, or was stored in the tenant's names before, stays as it is", () => {
    const upstream = objectUp(ctx, cronTab);
    for (const text of ['not json', `${JSON.stringify(cronTab)}\n`]) {
      const down = objectDown(ctx, withAnnotation(upstream, text));
      expect(down!.metadata.annotations[LAST_APPLIED]).to.equal(text);
    }
  });
});
