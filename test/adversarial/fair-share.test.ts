/**
 * Attacks on the gateway's capacity that one tenant makes at every other tenant's expense: a
 * flood of requests, watches across many namespaces that each hold one upstream connection per
 * namespace (the file descriptors of the replica), and tenant ids that would own upstream names
 * of the cluster and its add-ons. Each tenant gets a bounded share of a replica (429 with
 * Retry-After beyond it, as kube-apiserver answers an overload) and reserved ids are refused.
 */
import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil, type WaitOptions } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
/** The gateway's own default for open watches in this file, low so that raising it shows. */
const GATEWAY_MAX_WATCHES = 3;
/** The fan-out tenant: 4 namespaces of its own and 8 more, so each `-A` watch holds 13 upstream connections. */
const EXTRA_NAMESPACES = Array.from({ length: 8 }, (_, i) => `team${i}`);
const FAN_OUT_BOUND = 30;

interface OpenWatch {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body so far (a refusal's whole Status once `ended`). */
  text: () => string;
  ended: () => boolean;
  close: () => void;
}

/** A watch request, resolved once its response headers are in. */
function openWatch(api: ApiClient, path: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const req = api.open('GET', path, { Accept: 'application/json' });
    req.on('response', (res) => {
      let text = '';
      let ended = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (ended = true));
      res.on('close', () => (ended = true));
      // Hanging up aborts the response; that is how a watch is closed, not a failure.
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        ended: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** How long the admissions and refusals here may take to show. */
const FAIR_WAIT: WaitOptions = { timeout: 15_000 };

/** Established TCP connections to `port` on this machine, counted from the client's side: the gateway's upstream connections, independent of its own accounting. */
async function connectionsTo(port: number): Promise<number> {
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const [, , remote, state] = line.trim().split(/\s+/);
      if (remote && state === '01' && parseInt(remote.split(':').pop()!, 16) === port) count++;
    }
  }
  return count;
}

describe('adversarial: fair share of a gateway replica among tenants', function () {
  this.timeout(180_000);
  let upstream: DevCluster;
  let gateway: Gateway;
  let admin: ApiClient;
  let adminKubectl: Kubectl;
  let dir: string;
  const cleanups: (() => Promise<void> | void)[] = [];
  /** Limited to 1 request per second, burst 5, by its Tenant. */
  let hammer: { api: ApiClient; kubectl: Kubectl };
  /** The gateway's defaults. */
  let steady: { api: ApiClient; kubectl: Kubectl };
  /** 12 namespaces, at most 30 upstream connections and 10 watches. */
  let wide: { api: ApiClient; kubectl: Kubectl };

  /** A tenant made through the admin API, with its API client and kubectl. */
  async function tenant(id: string, spec?: Record<string, unknown>): Promise<{ api: ApiClient; kubectl: Kubectl }> {
    const { kubeconfigPath } = await createActiveTenant(admin, id, dir, spec);
    const api = await ApiClient.load(kubeconfigPath);
    const kubectl = await Kubectl.create(kubeconfigPath);
    cleanups.push(
      () => api.close(),
      () => kubectl.dispose(),
    );
    return { api, kubectl };
  }

  before(async () => {
    const temp = await makeTempDir('fair-share');
    dir = temp.dir;
    cleanups.push(temp.remove);
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${dir}/upstream` });
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
      tenantLimits: { maxWatches: GATEWAY_MAX_WATCHES },
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    adminKubectl = await Kubectl.create(gateway.adminKubeconfigPath);
    hammer = await tenant('hammer', { limits: { qps: 1, burst: 5 } });
    steady = await tenant('steady');
    wide = await tenant('widens', { limits: { maxWatches: 10, maxUpstreamConnections: FAN_OUT_BOUND } });
    for (const name of EXTRA_NAMESPACES)
      expect(
        (
          await wide.api.request('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name },
          })
        ).status,
      ).to.equal(201);
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    admin?.close();
    await adminKubectl?.dispose();
    await gateway?.stop();
    await upstream?.stop();
  });

  it("a tenant hammering the gateway gets 429 TooManyRequests with Retry-After, while another tenant's requests keep succeeding", async () => {
    const flood = Promise.all(
      Array.from({ length: 40 }, () => hammer.api.request('GET', '/api/v1/namespaces/default/configmaps')),
    );
    const steadyStatuses: number[] = [];
    for (let i = 0; i < 20; i++)
      steadyStatuses.push((await steady.api.request('GET', '/api/v1/namespaces/default/configmaps')).status);
    const answers = await flood;

    expect(steadyStatuses, 'the other tenant, meanwhile').to.deep.equal(Array(20).fill(200));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length, 'refused of 40 at 1 request per second, burst 5').to.be.greaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).to.equal(true);
    const [first] = refused;
    expect(first.headers['retry-after']).to.match(/^[1-9]\d*$/);
    expect(first.body).to.deep.include({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
    expect(first.body.details.retryAfterSeconds).to.equal(Number(first.headers['retry-after']));
    expect(first.body.message).to.contain('tenant hammer may make 1 requests per second');
    // kubectl (client-go) waits out Retry-After and retries, so the throttled tenant is slowed, not broken.
    await hammer.kubectl.ok(['get', 'configmaps', '-n', 'default']);
  });

  it("watches across many namespaces are refused at the tenant's upstream-connection bound (429), its upstream connections stay bounded, and another tenant still works", async () => {
    const port = Number(new URL(upstream.url).port);
    const before = await connectionsTo(port);

    const watches: OpenWatch[] = [];
    // Service accounts are forwarded (not among the resources read from the cache): each -A watch fans out upstream.
    for (let i = 0; i < 6; i++) watches.push(await openWatch(wide.api, '/api/v1/serviceaccounts?watch=1'));
    const accepted = watches.filter((w) => w.status === 200);
    const refused = watches.filter((w) => w.status === 429);
    // 12 namespaces: each watch holds 13 upstream connections, two fit in 30.
    expect(accepted, 'accepted -A watches').to.have.length(2);
    expect(refused, 'refused -A watches').to.have.length(4);
    await waitUntil("the refusal's body", () => refused[0].ended(), FAIR_WAIT);
    const status = JSON.parse(refused[0].text());
    expect(status).to.deep.include({ code: 429, reason: 'TooManyRequests' });
    expect(status.message).to.contain('maxUpstreamConnections');
    expect(refused[0].headers['retry-after']).to.equal('1');
    const opened = (await connectionsTo(port)) - before;
    expect(opened, 'upstream connections the gateway opened for the watches').to.be.at.most(FAN_OUT_BOUND);

    const other = await openWatch(steady.api, '/api/v1/serviceaccounts?watch=1');
    expect(other.status, "the other tenant's -A watch").to.equal(200);
    other.close();
    expect(await steady.kubectl.ok(['get', 'configmaps', '-A', '-o', 'name'])).to.be.a('string');
    for (const w of watches) w.close();
    // Once they are closed, the tenant's connections are its own again.
    await waitUntil(
      'a request of the fan-out tenant admitted again',
      async () => ((await wide.api.request('GET', '/api/v1/namespaces')).status === 200 ? true : undefined),
      FAIR_WAIT,
    );
  });

  it('a watch across namespaces that would pass the bound on a namespace made later ends with a 429 ERROR event instead of opening it', async () => {
    const watches = await waitUntil(
      'two -A watches admitted',
      async () => {
        const pair = [
          await openWatch(wide.api, '/api/v1/serviceaccounts?watch=1'),
          await openWatch(wide.api, '/api/v1/serviceaccounts?watch=1'),
        ];
        if (pair.every((w) => w.status === 200)) return pair;
        for (const w of pair) w.close();
        return undefined;
      },
      FAIR_WAIT,
    );
    // Namespaces labelled as the tenant's appear upstream (another replica made them): each watch wants one more connection.
    const namespaces = upstream.api.registryOf('', 'namespaces')!;
    for (let i = 0; i < 4; i++)
      await namespaces.create('', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: `widens-late${i}`, labels: { 'kubezoo.io/tenant': 'widens' } },
      });
    // The first watch refused ends and gives its connections back, so the other has room again.
    const ended = await waitUntil('a watch ended', () => watches.find((w) => w.ended()), FAIR_WAIT);
    const events = ended
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1).type, 'the last event of the ended watch').to.equal('ERROR');
    expect(events.at(-1).object).to.deep.include({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
    expect(events.at(-1).object.message).to.contain('maxUpstreamConnections');
    for (const w of watches) w.close();
  });

  it("the Tenant's spec.limits raises and lowers its bound on open watches, at once", async () => {
    const path = '/api/v1/namespaces/default/configmaps?watch=1';
    const open: OpenWatch[] = [];
    for (let i = 0; i < GATEWAY_MAX_WATCHES; i++) open.push(await openWatch(steady.api, path));
    expect(open.map((w) => w.status)).to.deep.equal(Array(GATEWAY_MAX_WATCHES).fill(200));
    const over = await openWatch(steady.api, path);
    expect(over.status, "one more than the gateway's default").to.equal(429);
    await waitUntil("the refusal's body", () => over.ended(), FAIR_WAIT);
    expect(JSON.parse(over.text()).message).to.contain('may hold 3 open watches and streams (maxWatches)');

    await adminKubectl.ok([
      'patch',
      'tenant',
      'steady',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { limits: { maxWatches: 5 } } }),
    ]);
    open.push(
      await waitUntil(
        'a fourth watch admitted once the Tenant allows 5',
        async () => {
          const w = await openWatch(steady.api, path);
          if (w.status === 200) return w;
          w.close();
          return undefined;
        },
        FAIR_WAIT,
      ),
    );

    await adminKubectl.ok([
      'patch',
      'tenant',
      'steady',
      '--type',
      'merge',
      '-p',
      JSON.stringify({ spec: { limits: { maxWatches: 1 } } }),
    ]);
    await waitUntil(
      'a watch refused once the Tenant allows 1',
      async () => {
        const w = await openWatch(steady.api, path);
        w.close();
        return w.status === 429 ? true : undefined;
      },
      FAIR_WAIT,
    );
    for (const w of open) w.close();
    const single = await waitUntil(
      'one watch admitted after the others closed',
      async () => {
        const w = await openWatch(steady.api, path);
        if (w.status === 200) return w;
        w.close();
        return undefined;
      },
      FAIR_WAIT,
    );
    const second = await openWatch(steady.api, path);
    second.close();
    single.close();
    expect(second.status, 'a second watch at maxWatches 1').to.equal(429);
  });

  it('refuses reserved tenant ids (kube…, system…, cluster add-ons) with 422 through kubectl and the admin API', async () => {
    for (const id of ['kubeab', 'system', 'calico', 'argocd']) {
      const res = await adminKubectl.run(
        ['apply', '-f', '-'],
        JSON.stringify({ apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: id } }),
      );
      expect(res.code, id).to.equal(1);
      expect(res.stderr).to.contain(`The Tenant "${id}" is invalid: metadata.name: Invalid value: "${id}": `);
      expect(res.stderr).to.contain('reserved');
    }
    const direct = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'istiod' },
    });
    expect(direct.status).to.equal(422);
    expect(direct.body).to.deep.include({ reason: 'Invalid' });
    expect(direct.body.details.causes).to.deep.equal([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message:
          'Invalid value: "istiod": the tenant id is reserved: upstream names "istiod-…" belong to a cluster add-on',
      },
    ]);
    expect((await admin.request('GET', `${TENANTS}/istiod`)).status, 'nothing was stored').to.equal(404);
    // A look-alike that is not reserved is an ordinary id.
    expect(
      (
        await admin.request('POST', TENANTS, {
          apiVersion: 'tenant.kubezoo.io/v1alpha1',
          kind: 'Tenant',
          metadata: { name: 'calicx' },
        })
      ).status,
    ).to.equal(201);
  });

  it('refuses malformed spec.limits with 422 naming each field', async () => {
    const res = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'badlim' },
      spec: { limits: { qps: -1, maxWatches: 1.5, connections: 3 } },
    });
    expect(res.status).to.equal(422);
    expect(res.body.details.causes.map((c: { field: string }) => c.field).sort()).to.deep.equal([
      'spec.limits.connections',
      'spec.limits.maxWatches',
      'spec.limits.qps',
    ]);
    const burst = await admin.request('POST', TENANTS, {
      apiVersion: 'tenant.kubezoo.io/v1alpha1',
      kind: 'Tenant',
      metadata: { name: 'badlim' },
      spec: { limits: { burst: 0 } },
    });
    expect(burst.status).to.equal(422);
    expect(burst.body.details.causes[0]).to.deep.include({ field: 'spec.limits.burst' });
  });
});
