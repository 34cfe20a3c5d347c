import { expect } from 'chai';
import type { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';
import {
  READMIT_FRACTION,
  RETRY_MS,
  TenantCacheBudget,
  type BudgetedStore,
} from '../../gateway/cached/tenant-cache-budget.js';

const store = (cluster: string, resource: string, bytes: number, sheddable = true): BudgetedStore => ({
  cluster,
  resource,
  bytes,
  sheddable,
});
const names = (stores: readonly { cluster: string; resource: string }[]) =>
  stores.map((s) => `${s.cluster}/${s.resource}`);

describe('gateway: the tenant cache budget', () => {
  it('sheds nothing within the budget, and nothing at all without one', () => {
    expect(new TenantCacheBudget(100).review([store('a', 'pods', 60), store('a', 'secrets', 40)])).to.deep.equal({
      shed: [],
      readmitted: [],
    });
    expect(new TenantCacheBudget(0).review([store('a', 'pods', 1e12)]).shed).to.deep.equal([]);
  });

  it('over the budget, sheds the largest tenant-only stores until the rest fits; never an admin store', () => {
    const budget = new TenantCacheBudget(100);
    const changes = budget.review([
      store('a', 'pods', 500, false),
      store('a', 'secrets', 30),
      store('b', 'secrets', 70),
      store('a', 'configmaps', 50),
      store('b', 'configmaps', 10),
    ]);
    // 660 bytes: every sheddable store goes, the admin's pods stay even so.
    expect(names(changes.shed)).to.deep.equal(['b/secrets', 'a/configmaps', 'a/secrets', 'b/configmaps']);
    expect(budget.isShed('a', 'pods')).to.equal(false);
    expect(budget.shedClusters('secrets')).to.deep.equal(['b', 'a']);

    const partly = new TenantCacheBudget(100);
    expect(
      names(partly.review([store('a', 'pods', 60), store('b', 'pods', 45), store('a', 'secrets', 20)]).shed),
    ).to.deep.equal(['a/pods']);
    expect(partly.isShed('b', 'pods')).to.equal(false);
  });

  it(`lets a shed store back after ${RETRY_MS / 60_000} min out even when its old size would not fit, to measure it again`, () => {
    const budget = new TenantCacheBudget(1000);
    budget.review([store('a', 'pods', 1200), store('a', 'secrets', 100)], 0);
    expect(names(budget.shedStores)).to.deep.equal(['a/pods']);
    expect(budget.review([store('a', 'secrets', 100)], RETRY_MS - 1).readmitted).to.deep.equal([]);
    expect(names(budget.review([store('a', 'secrets', 100)], RETRY_MS).readmitted)).to.deep.equal(['a/pods']);
    // Listed again and still too large: shed again, for another RETRY_MS.
    expect(
      names(budget.review([store('a', 'pods', 1100), store('a', 'secrets', 100)], RETRY_MS + 5000).shed),
    ).to.deep.equal(['a/pods']);
    expect(budget.review([store('a', 'secrets', 100)], 2 * RETRY_MS).readmitted).to.deep.equal([]);
  });

  it(`lets a shed store back, smallest first, once the cache with it stays under ${READMIT_FRACTION} of the budget`, () => {
    const budget = new TenantCacheBudget(1000);
    budget.review([store('a', 'pods', 300), store('a', 'secrets', 200), store('a', 'configmaps', 600, false)]);
    expect(names(budget.shedStores)).to.deep.equal(['a/pods']);
    // Within the budget, but 900 + 300 would not stay under 800: pods stay out.
    expect(budget.review([store('a', 'secrets', 200), store('a', 'configmaps', 700, false)]).readmitted).to.deep.equal(
      [],
    );
    budget.review([store('a', 'secrets', 200), store('a', 'configmaps', 900, false)]);
    expect(names(budget.shedStores)).to.deep.equal(['a/pods', 'a/secrets']);
    // 400: secrets (the smaller) back at 600; pods would make 900.
    expect(names(budget.review([store('a', 'configmaps', 400, false)]).readmitted)).to.deep.equal(['a/secrets']);
    expect(budget.isShed('a', 'pods')).to.equal(true);
    expect(
      names(budget.review([store('a', 'configmaps', 100, false), store('a', 'secrets', 200)]).readmitted),
    ).to.deep.equal(['a/pods']);
    expect(budget.shedStores).to.deep.equal([]);
  });
});

describe('gateway: the tenant cache over its budget (a devcluster, one gateway)', function () {
  this.timeout(120_000);
  let stage: Stage;
  let admin: ApiClient;
  let kubectl: Kubectl;

  const metric = async (name: string, labels: string) => {
    const text = (await admin.request('GET', '/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const listsFromCache = () => metric('paddock_tenant_cache_reads_total', 'verb="list",answer="cache"');

  before(async () => {
    stage = await startStage('tenant-cache-budget', {
      gateway: { tenantCache: 'configmaps,secrets', tenantCacheMaxBytes: 40_000 },
    });
    ({ admin } = stage);
    const tenant = await stage.tenant('budget');
    kubectl = await Kubectl.create(tenant.kubeconfigPath);
  });

  after(async () => {
    await kubectl?.dispose();
    await stage?.stop();
  });

  it('sheds the largest store kept for tenants, whose reads are then forwarded and still whole; the others stay cached', async () => {
    await kubectl.ok(['create', 'secret', 'generic', 'small', '--from-literal=k=v']);
    const data = 'x'.repeat(4096);
    for (let i = 0; i < 12; i++) await kubectl.ok(['create', 'configmap', `big-${i}`, `--from-literal=data=${data}`]);
    await eventually(
      () => metric('paddock_tenant_cache_shed', 'cluster="member1",resource="configmaps"'),
      (shed) => expect(shed).to.equal(1),
      20_000,
    );
    expect(await metric('paddock_tenant_cache_shed', 'cluster="member1",resource="secrets"')).to.equal(0);
    expect((await admin.request('GET', '/metrics')).text).to.include('\npaddock_tenant_cache_budget_bytes 40000\n');

    const before = await listsFromCache();
    const names = (await kubectl.ok(['get', 'configmaps', '-o', 'name'])).trim().split('\n');
    expect(names.filter((n) => n.startsWith('configmap/big-'))).to.have.length(12);
    expect(await listsFromCache(), 'configmaps were forwarded').to.equal(before);
    expect((await kubectl.ok(['get', 'secrets', '-o', 'name'])).trim().split('\n')).to.include('secret/small');
    expect(await listsFromCache(), 'secrets still come from the cache').to.equal(before + 1);
  });
});
