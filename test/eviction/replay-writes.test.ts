/**
 * A failover's writes on the new cluster (eviction/replay-writes.ts), against a recording API:
 * cluster-scoped objects first with the gateway's credentials, then the grants the gateway makes,
 * then namespaced objects as the tenant's administrator; a 403 of those is tried again while the
 * grants may not have reached the authorizer, and is a refusal after; what is skipped is logged and
 * named, within bounds, in the task's message.
 */
import { expect } from 'chai';
import type { RequestHeaders } from '../../apiserver/client/rest-client.js';
import type { Json } from '../../apiserver/json.js';
import type { CacheResource } from '../../search/cluster-resource-store.js';
import { replayKindScope } from '../../eviction/replay-admission.js';
import {
  GRANT_PROPAGATION_MS,
  replayMessage,
  replayOnCluster,
  type ReplayApi,
  type ReplayOutcome,
} from '../../eviction/replay-writes.js';
import type { ReplayStep } from '../../eviction/tenant-replay.js';
import type { Logger } from '../../log/log.js';
import { tenantContext } from '../../translate/context.js';
import { FakeClock } from '../support/fake-clock.js';

const T = 'abc123';
const NS = `${T}-shop`;
const RBAC = 'rbac.authorization.k8s.io';

const NAMESPACES: CacheResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
const CONFIGMAPS: CacheResource = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
const ROLEBINDINGS: CacheResource = {
  group: RBAC,
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
};
const ctx = tenantContext(T, replayKindScope(T, [NAMESPACES, CONFIGMAPS, ROLEBINDINGS]));

function step(of: CacheResource, metadata: Json, rest: Json = {}): ReplayStep {
  return {
    resource: of,
    namespace: of.namespaced ? metadata.namespace : '',
    name: metadata.name,
    body: { apiVersion: of.group ? `${of.group}/v1` : 'v1', kind: of.kind, metadata, ...rest },
  };
}
const STEPS: ReplayStep[] = [
  step(NAMESPACES, { name: NS, labels: { 'kubezoo.io/tenant': T } }),
  step(CONFIGMAPS, { name: 'settings', namespace: NS }, { data: { a: '1' } }),
  step(
    ROLEBINDINGS,
    { name: 'open-door', namespace: NS },
    {
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: RBAC, kind: 'Group', name: 'system:authenticated' }],
    },
  ),
  step(
    ROLEBINDINGS,
    { name: 'paddock:cluster-admin', namespace: NS, labels: { 'kubezoo.io/tenant': T } },
    {
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${T}-cluster-admin` },
      subjects: [{ apiGroup: RBAC, kind: 'User', name: `${T}-admin` }],
    },
  ),
];

interface Call {
  method: string;
  path: string;
  body: any;
  headers: RequestHeaders;
}

/** The new cluster, with the tenant's space made: `answer` decides each request's status. */
function recordingApi(answer: (call: Call, calls: Call[]) => number): ReplayApi & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    request: async (method, path, body, headers = {}) => {
      const call = { method, path, body, headers };
      calls.push(call);
      const status = answer(call, calls);
      return { status, headers: {}, body: {}, text: '{}' };
    },
  };
}

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => {};
  return { component: 'test', warnings, warn: (msg) => warnings.push(msg), error: ignore, info: ignore, debug: ignore };
}

const isConfigMapPost = (call: Call) => call.method === 'POST' && call.path === `/api/v1/namespaces/${NS}/configmaps`;

describe('eviction: the replay writes on the new cluster (replay-writes.ts)', () => {
  it('writes cluster-scoped objects as the gateway, then the grants, then namespaced objects as the tenant administrator, a 403 tried again', async () => {
    const clock = new FakeClock();
    const api = recordingApi((call, calls) =>
      isConfigMapPost(call) && calls.filter(isConfigMapPost).length === 1 ? 403 : 201,
    );
    const log = recordingLog();
    const replaying = replayOnCluster(api, ctx, STEPS, clock, log);
    await clock.advance(1000);
    const outcome = await replaying;

    // The grant of the replayed namespace is made from what was written, with no list of the cluster.
    expect(api.calls.map((call) => [call.method, call.path, call.headers])).to.deep.equal([
      ['POST', '/api/v1/namespaces', {}],
      ['POST', `/apis/${RBAC}/v1/namespaces/${NS}/rolebindings`, {}],
      ...Array.from({ length: 2 }, () => [
        'POST',
        `/api/v1/namespaces/${NS}/configmaps`,
        { 'impersonate-user': `${T}-admin`, 'impersonate-group': [`${T}-system:authenticated`] },
      ]),
    ]);
    const grant = api.calls[1].body;
    expect([grant.metadata, grant.roleRef.name, grant.subjects]).to.deep.equal([
      { name: 'paddock:cluster-admin', namespace: NS, labels: { 'kubezoo.io/tenant': T } },
      `${T}-cluster-admin`,
      [{ apiGroup: RBAC, kind: 'User', name: `${T}-admin` }],
    ]);
    expect(outcome).to.deep.include({ planned: 3, replayed: 2, refused: [] });
    expect(outcome.skipped.map((s) => s.object)).to.deep.equal([`rolebindings ${NS}/open-door`]);
    expect(log.warnings).to.have.length(1);
    expect(log.warnings[0]).to.include(`rolebindings ${NS}/open-door (it is not the tenant's`);
  });

  it(`takes a 403 for a refusal once ${GRANT_PROPAGATION_MS / 1000} s have passed since the grants`, async () => {
    const clock = new FakeClock();
    const api = recordingApi((call) => (isConfigMapPost(call) ? 403 : 201));
    const replaying = replayOnCluster(api, ctx, STEPS, clock, recordingLog());
    await clock.advance(GRANT_PROPAGATION_MS + 1000);
    const outcome = await replaying;
    expect(outcome.refused).to.deep.equal([`configmaps ${NS}/settings: 403`]);
    expect(api.calls.filter(isConfigMapPost).length).to.be.greaterThan(1);
  });

  it('throws on a 5xx, so that the move is tried again', async () => {
    const api = recordingApi((call) => (isConfigMapPost(call) ? 503 : 201));
    const replaying = replayOnCluster(api, ctx, STEPS, new FakeClock(), recordingLog());
    try {
      await replaying;
      expect.fail('not thrown');
    } catch (err) {
      expect((err as Error).message).to.match(new RegExp(`^replaying configmaps ${NS}/settings: 503`));
    }
  });
});

describe("eviction: the eviction task's message (replayMessage)", () => {
  const outcome = (refused: string[], skipped: string[]): ReplayOutcome => ({
    planned: 20,
    replayed: 20 - refused.length - skipped.length,
    refused,
    skipped: skipped.map((object) => ({ object, reason: 'why' })),
  });

  it('names what was refused and skipped, three of each at most', () => {
    expect(
      replayMessage(outcome(['configmaps a/x: 422'], ['rolebindings a/r1', 'rolebindings a/r2']), 'member2'),
    ).to.equal(
      "replayed 17 of 20 objects on member2; refused there: configmaps a/x: 422; not replayed, as the tenant's own writes would be refused: rolebindings a/r1, rolebindings a/r2",
    );
    expect(
      replayMessage(
        outcome(
          [],
          Array.from({ length: 5 }, (_, i) => `rolebindings a/r${i}`),
        ),
        'member2',
      ),
    ).to.equal(
      "replayed 15 of 20 objects on member2; not replayed, as the tenant's own writes would be refused: rolebindings a/r0, rolebindings a/r1, rolebindings a/r2 and 2 more",
    );
    expect(replayMessage(outcome([], []), 'member2')).to.equal('replayed 20 of 20 objects on member2');
  });

  it('stays within 400 characters, however long the names', () => {
    const long = (i: number) => `configmaps ${'n'.repeat(63)}/${'x'.repeat(253)}${i}`;
    const message = replayMessage(outcome([long(0), long(1)], [long(2), long(3), long(4), long(5)]), 'member2');
    expect(message.length).to.be.at.most(400);
    expect(message).to.match(/^replayed 14 of 20 objects on member2; refused there: configmaps n+\/x+0, configm.*…$/);
  });
});
