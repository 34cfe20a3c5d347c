/**
 * The gateway's /metrics as an operator reads it: promtool's lint passes on the real exposition
 * (and is shown to fail on a bad one, so that it is known to be checking), labels are bounded by
 * default (no tenant id anywhere) and carry the tenant only with `metricsPerTenant`, the gaps of
 * issue 19 are filled (latency, open watches, upstream errors), the cache and eviction metrics are
 * on the same registry, and the Grafana dashboard in deploy/grafana reads only metrics that exist.
 *
 * promtool comes from Debian's `prometheus` package: scripts/test.sh installs it when missing.
 */
import { exampleCrd } from '../support/crd-fixture.js';
import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { parseKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway, type GatewayOptions } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { TcpRelay } from '../support/tcp-relay.js';
import { samples, type Sample } from '../support/metric-samples.js';
import { runPromtool } from '../support/promtool.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DASHBOARD = path.join(REPO_ROOT, 'deploy/grafana/paddock-dashboard.json');
const IDS = ['mtaaaa', 'mtbbbb'] as const;

/**
 * The sample names a text exposition declares (`# TYPE` lines), whether or not a series has a
 * sample now: a labelled gauge has none while nothing is measured (the cache's, for a cluster
 * whose stores were dropped). A histogram's are its `_bucket`, `_sum` and `_count`.
 */
function declaredNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** The value of the one sample of `name` with exactly these labels; undefined when there is none. */
function valueOf(all: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const same = (s: Sample) =>
    s.name === name &&
    Object.keys(s.labels).length === Object.keys(labels).length &&
    Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  return all.find(same)?.value;
}

/** `promtool check metrics` on `exposition`: its exit code and everything it wrote. */
function promtool(exposition: string): Promise<{ code: number | null; output: string }> {
  return runPromtool(['check', 'metrics'], exposition);
}

const PROMQL_KEYWORDS = new Set(['bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: what is left once strings, matchers, ranges, label lists, variables and functions are gone. */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const [, name, call] of stripped.matchAll(/(?<![\w.])([a-zA-Z_:][\w:]*)(\s*\()?/g))
    if (!call && !PROMQL_KEYWORDS.has(name.toLowerCase())) names.add(name);
  return [...names];
}

interface Panel {
  title?: string;
  type?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every query of a Grafana dashboard: each panel's targets' `expr` (rows' panels too) and the query variables' `label_values(<metric>, …)`. */
function dashboardQueries(dashboard: {
  panels: Panel[];
  templating?: { list: { type: string; definition?: string }[] };
}): { where: string; expr?: string; names: string[] }[] {
  const queries: { where: string; expr?: string; names: string[] }[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      if (panel.type !== 'row') {
        expect(panel.targets, `panel "${panel.title}" has queries`).to.not.be.empty;
        for (const target of panel.targets ?? []) {
          expect(target.expr, `panel "${panel.title}"`).to.be.a('string').and.not.equal('');
          queries.push({
            where: `panel "${panel.title}": ${target.expr}`,
            expr: target.expr,
            names: metricNames(target.expr!),
          });
        }
      }
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? [])
    if (variable.type === 'query') {
      const metric = /label_values\(\s*([a-zA-Z_:][\w:]*)/.exec(variable.definition ?? '');
      expect(metric, `variable ${JSON.stringify(variable)}`).to.not.equal(null);
      queries.push({ where: `variable: ${variable.definition}`, names: [metric![1]] });
    }
  return queries;
}

describe('gateway: /metrics, bounded and linted by promtool, and the Grafana dashboard on it', function () {
  this.timeout(180_000);
  let work: { dir: string; remove(): Promise<void> };
  let upstream: DevCluster;
  let relay: TcpRelay;
  let gateway: Gateway | undefined;
  let admin: ApiClient;
  const tenants: ApiClient[] = [];
  let options: GatewayOptions;

  const scrape = async () => {
    const res = await admin.request('GET', '/metrics');
    expect(res.status).to.equal(200);
    return res.text;
  };

  /** A tenant's requests of each kind: a write, a read from the cache, one forwarded upstream, a miss. */
  const tenantTraffic = async (tenant: ApiClient, name: string) => {
    const created = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name },
      data: { a: '1' },
    });
    expect(created.status, created.text).to.equal(201);
    expect((await tenant.request('GET', `/api/v1/namespaces/default/configmaps/${name}`)).status).to.equal(200);
    expect((await tenant.request('GET', '/api/v1/namespaces/default/configmaps')).status).to.equal(200);
    // Service accounts are not cached for tenants: this one goes upstream.
    expect((await tenant.request('GET', '/api/v1/namespaces/default/serviceaccounts/none')).status).to.equal(404);
  };

  /**
   * A tenant's CRD of `example.com` (upstream `<tid>-example.com`) and one object of it, which the
   * cache keeps for failover once the cluster's next probe lists the resource.
   */
  const createCustomObject = async (tenant: ApiClient, plural: string, kind: string) => {
    const crd = await tenant.request(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      exampleCrd(plural, kind, 'Namespaced'),
    );

    expect(crd.status, crd.text).to.equal(201);
    // A custom resource is not served the moment its CRD is made.
    await waitUntil(`a ${kind} created`, async () => {
      const res = await tenant.request('POST', `/apis/example.com/v1/namespaces/default/${plural}`, {
        apiVersion: 'example.com/v1',
        kind,
        metadata: { name: 'one' },
      });
      return res.status === 201;
    });
  };

  before(async () => {
    work = await makeTempDir('metrics');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    relay = new TcpRelay(Number(new URL(upstream.url).port));
    await relay.start();
    const kubeconfig = (await readFile(upstream.kubeconfigPath, 'utf8')).replace(
      /server: .*/,
      `server: https://127.0.0.1:${relay.port}`,
    );
    options = {
      listen: `127.0.0.1:${await freePort()}`,
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig }],
      // Eviction on, so that its metrics are there; a quick probe lists a tenant's new CRD in the
      // cluster's apiEnablements at once, so that the cache caches its custom resources.
      enableNoExecuteTaintEviction: true,
      clusterStatusUpdateFrequencyMs: 300,
    };
    gateway = await startGateway(options);
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    for (const id of IDS) {
      const { kubeconfigPath } = await createActiveTenant(admin, id, work.dir);
      tenants.push(await ApiClient.load(kubeconfigPath));
    }
    for (const [i, tenant] of tenants.entries()) await tenantTraffic(tenant, `settings-${i}`);
    // The admin: the gateway's own API, a request passed through to the cluster, one not found.
    expect((await admin.request('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants')).status).to.equal(200);
    expect((await admin.request('GET', '/api/v1/namespaces')).status).to.equal(200);
    expect((await admin.request('GET', '/api/v1/namespaces/none')).status).to.equal(404);
    // A client without a certificate: 401.
    const { caPem } = parseKubeconfig(await readFile(gateway.adminKubeconfigPath, 'utf8'));
    const stranger = new RestClient(new URL(gateway.url), { ca: caPem });
    expect((await stranger.request('GET', '/api/v1/namespaces')).status).to.equal(401);
    stranger.close();
    // A tenant's own CRD and custom object: cached for failover, under a resource named with its id.
    await createCustomObject(tenants[0], 'widgets', 'Widget');
    await waitUntil(
      'the Widget cached',
      async () =>
        valueOf(samples(await scrape()), 'paddock_cache_objects', {
          cluster: 'member1',
          resource: '(tenant custom resources)',
        }) === 1,
    );
  });

  after(async () => {
    for (const tenant of tenants) tenant.close();
    admin?.close();
    await gateway?.stop();
    await relay?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('counts each open watch under its identity kind while it runs, and the watch once it ends (not in the latency histogram)', async () => {
    const tenantWatch = tenants[0].watch('/api/v1/namespaces/default/configmaps?watch=true');
    const adminWatch = admin.watch('/apis/tenant.kubezoo.io/v1alpha1/tenants?watch=true');
    try {
      await tenantWatch.waitFor((events) => events.some((e) => e.object?.metadata?.name === 'settings-0'));
      await adminWatch.waitFor((events) => events.length === IDS.length);
      const open = samples(await scrape());
      expect(valueOf(open, 'paddock_open_watches', { identity: 'tenant' })).to.equal(1);
      expect(valueOf(open, 'paddock_open_watches', { identity: 'admin' })).to.equal(1);
      expect(valueOf(open, 'paddock_open_watches', { identity: 'unauthenticated' })).to.equal(0);
    } finally {
      tenantWatch.close();
      adminWatch.close();
    }
    await eventually(
      async () => samples(await scrape()),
      (closed) => {
        expect(valueOf(closed, 'paddock_open_watches', { identity: 'tenant' })).to.equal(0);
        expect(valueOf(closed, 'paddock_open_watches', { identity: 'admin' })).to.equal(0);
        expect(valueOf(closed, 'paddock_requests_total', { identity: 'tenant', verb: 'watch', code: '200' })).to.equal(
          1,
        );
        expect(valueOf(closed, 'paddock_requests_total', { identity: 'admin', verb: 'watch', code: '200' })).to.equal(
          1,
        );
      },
    );
    const all = samples(await scrape());
    const durations = all.filter((s) => s.name === 'paddock_request_duration_seconds_count');
    expect(durations.map((s) => s.labels.verb)).to.include.members(['create', 'get', 'list']);
    expect(
      durations.map((s) => s.labels.verb),
      'watches are long-running: not in the histogram',
    ).to.not.include('watch');
    expect(
      valueOf(all, 'paddock_request_duration_seconds_count', { identity: 'tenant', verb: 'create', code_class: '2xx' }),
    ).to.be.at.least(IDS.length);
    expect(
      valueOf(all, 'paddock_request_duration_seconds_count', {
        identity: 'unauthenticated',
        verb: 'list',
        code_class: '4xx',
      }),
    ).to.equal(1);
  });

  it('passes `promtool check metrics`: exit 0, nothing said', async () => {
    const exposition = await scrape();
    expect(await promtool(exposition)).to.deep.equal({ code: 0, output: '' });
  });

  it('promtool is really checking: a gauge named like a counter, a counter without _total and a metric without help are refused', async () => {
    const bad = [
      '# HELP paddock_nodejs_active_handles_total Total number of active handles.',
      '# TYPE paddock_nodejs_active_handles_total gauge',
      'paddock_nodejs_active_handles_total 3',
      '# HELP paddock_requests Requests.',
      '# TYPE paddock_requests counter',
      'paddock_requests 1',
      '# TYPE paddock_open_watches gauge',
      'paddock_open_watches 0',
      '',
    ].join('\n');
    const { code, output } = await promtool(bad);
    expect(code).to.not.equal(0);
    expect(output).to.contain(
      'paddock_nodejs_active_handles_total non-counter metrics should not have "_total" suffix',
    );
    expect(output).to.contain('paddock_requests counter metrics should have "_total" suffix');
    expect(output).to.contain('paddock_open_watches no help text');
  });

  it('labels requests by identity kind, verb and code only: no label value anywhere holds a tenant id', async () => {
    const all = samples(await scrape());
    const requests = all.filter((s) => s.name === 'paddock_requests_total');
    for (const s of requests) expect(Object.keys(s.labels)).to.have.members(['identity', 'verb', 'code']);
    expect(new Set(requests.map((s) => s.labels.identity))).to.deep.equal(
      new Set(['admin', 'tenant', 'unauthenticated']),
    );
    expect(valueOf(all, 'paddock_requests_total', { identity: 'tenant', verb: 'create', code: '201' })).to.be.at.least(
      IDS.length + 2,
    );
    expect(valueOf(all, 'paddock_requests_total', { identity: 'admin', verb: 'get', code: '404' })).to.equal(1);
    expect(valueOf(all, 'paddock_requests_total', { identity: 'unauthenticated', verb: 'list', code: '401' })).to.equal(
      1,
    );
    for (const s of all)
      for (const value of Object.values(s.labels))
        for (const id of IDS) expect(value, `${s.name} ${JSON.stringify(s.labels)}`).to.not.contain(id);
    // The tenant's custom resource is there, counted with the others of its kind.
    expect(
      all.filter((s) => s.name === 'paddock_cache_objects' && s.labels.resource === '(tenant custom resources)'),
    ).to.have.length(1);
  });

  it('has the cache, eviction and cluster metrics on the same registry', async () => {
    const all = samples(await scrape());
    expect(valueOf(all, 'paddock_cache_objects', { cluster: 'member1', resource: 'configmaps' })).to.be.at.least(
      IDS.length,
    );
    expect(valueOf(all, 'paddock_cache_relists_total', { cluster: 'member1', resource: 'configmaps' })).to.be.a(
      'number',
    );
    expect(valueOf(all, 'paddock_tenant_cache_reads_total', { verb: 'list', answer: 'cache' })).to.be.at.least(
      IDS.length,
    );
    expect(valueOf(all, 'eviction_queue_depth', { name: 'tenant-eviction' })).to.equal(0);
    expect(valueOf(all, 'eviction_processing_total', { name: 'tenant-eviction', result: 'success' })).to.equal(0);
    expect(valueOf(all, 'cluster_ready_state', { member_cluster: 'member1' })).to.be.oneOf([0, 1]);
  });

  // It takes the cluster away for the rest (the restarted replica of the last test reaches it
  // directly): late, as a cluster unreachable past its failure threshold leaves the cache plan.
  it('counts a request its cluster did not answer under the cluster and why (the cluster gone: refused or reset)', async () => {
    const before = samples(await scrape()).filter((s) => s.name === 'paddock_upstream_errors_total');
    expect(
      before.reduce((sum, s) => sum + s.value, 0),
      'no error yet',
    ).to.equal(0);
    await relay.stop();
    const res = await tenants[1].request('GET', '/api/v1/namespaces/default/serviceaccounts/none');
    expect(res.status, res.text).to.equal(503);
    const errors = samples(await scrape()).filter((s) => s.name === 'paddock_upstream_errors_total');
    expect(errors.reduce((sum, s) => sum + s.value, 0)).to.be.at.least(1);
    for (const s of errors) {
      expect(s.labels.cluster).to.equal('member1');
      expect(['refused', 'reset']).to.include(s.labels.reason);
    }
  });

  it('the Grafana dashboard (deploy/grafana) reads only metrics /metrics has', async () => {
    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8'));
    const queries = dashboardQueries(dashboard);
    const exposed = declaredNames(await scrape());
    const used = new Set(queries.flatMap((q) => q.names));
    // The extraction finds what the panels are about (were it to find nothing, nothing would be checked).
    expect([...used]).to.include.members([
      'paddock_requests_total',
      'paddock_request_duration_seconds_bucket',
      'paddock_open_watches',
      'paddock_upstream_errors_total',
      'paddock_cache_objects',
      'paddock_cache_watch_lag_seconds',
      'eviction_queue_depth',
      'eviction_processing_total',
      'cluster_ready_state',
    ]);
    const missing = queries.flatMap((q) =>
      q.names.filter((name) => !exposed.has(name)).map((name) => `${name} (${q.where})`),
    );
    expect(missing, 'metrics the dashboard reads that /metrics does not have').to.deep.equal([]);
    // The same check catches a name that drifted.
    expect(
      metricNames('sum by (cluster) (rate(paddock_upstream_error_total{instance=~"$instance"}[$__rate_interval]))'),
    ).to.deep.equal(['paddock_upstream_error_total']);
    expect(exposed.has('paddock_upstream_error_total')).to.equal(false);
    // And every expression is PromQL Prometheus parses: each one a recording rule for `promtool check rules`
    // (Grafana's variables given values; JSON is YAML).
    const exprs = queries.flatMap((q) => (q.expr === undefined ? [] : [q.expr]));
    const rules = {
      groups: [
        {
          name: 'paddock-dashboard',
          rules: exprs.map((expr, i) => ({
            record: `dashboard:query_${i}`,
            expr: expr.replace(/\$__rate_interval/g, '5m').replace(/\$\w+/g, '.*'),
          })),
        },
      ],
    };
    const file = path.join(work.dir, 'dashboard-rules.json');
    await writeFile(file, JSON.stringify(rules));
    const checked = await runPromtool(['check', 'rules', file]);
    expect(checked.code, checked.output).to.equal(0);
    expect(checked.output).to.contain(`SUCCESS: ${exprs.length} rules found`);
    await writeFile(
      file,
      JSON.stringify({ groups: [{ name: 'bad', rules: [{ record: 'x:y', expr: 'sum by (le (x)' }] }] }),
    );
    expect((await runPromtool(['check', 'rules', file])).code, 'promtool refuses a broken expression').to.not.equal(0);
  });

  it('with metricsPerTenant, requests, open watches and the cached custom resources name their tenant; promtool still passes', async () => {
    await gateway!.stop();
    gateway = undefined;
    // The same replica again (its store, its tenants), reaching the cluster directly, per tenant.
    const kubeconfig = await readFile(upstream.kubeconfigPath, 'utf8');
    gateway = await startGateway({ ...options, upstreams: [{ name: 'member1', kubeconfig }], metricsPerTenant: true });
    await tenantTraffic(tenants[0], 'per-tenant-0');
    const watch = tenants[1].watch('/api/v1/namespaces/default/configmaps?watch=true');
    try {
      await watch.waitFor((events) => events.some((e) => e.object?.metadata?.name === 'settings-1'));
      // The Widgets made before the restart are cached again once the restarted replica's CRD store has listed.
      await waitUntil('the Widget cached again', async () =>
        samples(await scrape()).some(
          (s) => s.name === 'paddock_cache_objects' && s.labels.resource === `widgets.${IDS[0]}-example.com`,
        ),
      );
      // A new CRD's resource is cached once the cluster's next probe lists it.
      await createCustomObject(tenants[0], 'gadgets', 'Gadget');
      await waitUntil('the Gadget cached', async () =>
        samples(await scrape()).some(
          (s) => s.name === 'paddock_cache_objects' && s.labels.resource === `gadgets.${IDS[0]}-example.com`,
        ),
      );
      const exposition = await scrape();
      const all = samples(exposition);
      const requests = all.filter((s) => s.name === 'paddock_requests_total');
      for (const s of requests) expect(Object.keys(s.labels)).to.have.members(['identity', 'tenant', 'verb', 'code']);
      expect(
        valueOf(all, 'paddock_requests_total', { identity: 'tenant', tenant: IDS[0], verb: 'create', code: '201' }),
        'a ConfigMap, a CRD and a Gadget since the restart',
      ).to.equal(3);
      expect(
        valueOf(all, 'paddock_requests_total', { identity: 'admin', tenant: '', verb: 'get', code: '200' }),
      ).to.be.at.least(1);
      expect(valueOf(all, 'paddock_open_watches', { identity: 'tenant', tenant: IDS[1] })).to.equal(1);
      expect(
        all.some((s) => s.name === 'paddock_cache_objects' && s.labels.resource === '(tenant custom resources)'),
      ).to.equal(false);
      expect(await promtool(exposition)).to.deep.equal({ code: 0, output: '' });
    } finally {
      watch.close();
    }
    // A tenant's series goes with its last watch, rather than staying at 0 forever.
    await eventually(
      async () => samples(await scrape()),
      (all) => expect(all.filter((s) => s.name === 'paddock_open_watches' && s.labels.tenant === IDS[1])).to.be.empty,
    );
  });
});
