import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';
import { UpstreamConnection } from '../../clusters/upstream-connection.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { TENANTS_PREFIX, TenantRoster } from '../../tenants/tenant-roster.js';
import { exampleCrd } from '../support/crd-fixture.js';
import { eventually } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A connection whose discovery read can be held after `/apis` has answered, to order a CRD's creation against it. */
class HeldConnection extends UpstreamConnection {
  hold: Promise<void> | undefined;
  apisAnswered: (() => void) | undefined;

  override async request(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
    timeoutMs?: number,
  ): Promise<UpstreamResponse> {
    const res = await super.request(method, path, headers, body, timeoutMs);
    if (path === '/apis' && this.hold) {
      this.apisAnswered?.();
      await this.hold;
    }
    return res;
  }
}

describe("an upstream connection's discovery, told of CRDs written past the proxy", function () {
  let upstream: DevCluster;
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let connection: HeldConnection;

  before(async function () {
    dir = await makeTempDir('upstream-discovery');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    connection = new HeldConnection('up', await readFile(upstream.kubeconfigPath, 'utf8'));
  });

  after(async function () {
    await connection?.close();
    await upstream?.stop();
    await dir?.remove();
  });

  it('reads again after a read that began before the invalidation, so the CRD made meanwhile is known', async function () {
    const scope = await connection.scope();
    expect(scope.resource('held.example.com', 'widgets')).to.equal(undefined);
    let release!: () => void;
    connection.hold = new Promise((resolve) => (release = resolve));
    const apisAnswered = new Promise<void>((resolve) => (connection.apisAnswered = resolve));
    connection.invalidate();
    const first = scope.refresh();
    // The first read has its list of groups from before the CRD: it cannot see it.
    await apisAnswered;
    connection.hold = undefined;
    const crd = exampleCrd('widgets', 'Widget', 'Namespaced');
    crd.metadata.name = 'widgets.held.example.com';
    crd.spec.group = 'held.example.com';
    const made = await connection.admin.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(made.status).to.equal(201);
    connection.invalidate();
    const second = scope.refresh();
    release();
    await Promise.all([first, second]);
    expect(scope.resource('held.example.com', 'widgets')).to.deep.equal({ namespaced: true, kind: 'Widget' });
  });
});

describe("the tenant roster's moves", function () {
  let store: Store;
  let dir: Awaited<ReturnType<typeof makeTempDir>>;
  let roster: TenantRoster;
  const moves: string[] = [];

  const putTenant = async (name: string, cluster: string | undefined) => {
    const key = `${TENANTS_PREFIX}${name}`;
    const value = JSON.stringify({ metadata: { name }, status: { phase: 'Active', ...(cluster ? { cluster } : {}) } });
    const existing = await store.get(key);
    if (existing) await store.update(key, value);
    else await store.create(key, value);
  };

  before(async function () {
    dir = await makeTempDir('roster-moves');
    store = await openStore({ dataDir: dir.dir });
    await putTenant('listed', 'one');
    roster = new TenantRoster(store);
    roster.onMove((tenant, cluster) => moves.push(`${tenant}→${cluster}`));
    await roster.start();
  });

  after(async function () {
    await roster?.stop();
    await store?.close();
    await dir?.remove();
  });

  it('tells of a tenant whose cluster changed, not of one listed or placed for the first time', async function () {
    await putTenant('placed', undefined);
    await putTenant('placed', 'one');
    await putTenant('listed', 'two');
    await eventually(
      () => roster.clusterOf('listed'),
      (cluster) => expect(cluster).to.equal('two'),
    );
    await putTenant('listed', 'two');
    await putTenant('placed', 'three');
    await eventually(
      () => roster.clusterOf('placed'),
      (cluster) => expect(cluster).to.equal('three'),
    );
    expect(moves).to.deep.equal(['listed→two', 'placed→three']);
  });
});
