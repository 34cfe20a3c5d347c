import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { createActiveTenant } from '../support/tenants.js';
import { ApiClient } from '../support/api-client.js';
import { TcpRelay } from '../support/tcp-relay.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('gateway: the tenant proxy under failure, limits and metrics', function () {
  let upstream: DevCluster;
  let relay: TcpRelay;
  let gateway: Gateway;
  let admin: ApiClient;
  let tenant: ApiClient;
  let remove: () => Promise<void>;

  before(async () => {
    const temp = await makeTempDir('proxy-failures');
    remove = temp.remove;
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${temp.dir}/upstream` });
    relay = new TcpRelay(Number(new URL(upstream.url).port));
    await relay.start();
    const kubeconfig = (await readFile(upstream.kubeconfigPath, 'utf8')).replace(
      /server: .*/,
      `server: https://127.0.0.1:${relay.port}`,
    );
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${temp.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig }],
      upstreamTimeoutMs: 1000,
    });
    admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const created = await createActiveTenant(admin, 'fail01', temp.dir);
    tenant = await ApiClient.load(created.kubeconfigPath);
  });
  after(async () => {
    admin?.close();
    tenant?.close();
    await gateway?.stop();
    await relay?.stop();
    await upstream?.stop();
    await remove?.();
  });

  it('refuses a request body over --max-request-bytes with 413 and keeps serving', async () => {
    const big = await tenant.request('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(3 * 1024 * 1024 + 1) },
    });
    expect(big.status).to.equal(413);
    expect(big.body).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect((await tenant.request('GET', '/api/v1/namespaces/default/configmaps')).status).to.equal(200);
  });

  it("answers 422 naming the tenant's own field when a name is too long once prefixed", async () => {
    const name = 'n'.repeat(57);
    const res = await tenant.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
    expect(res.status).to.equal(422);
    expect(res.body.reason).to.equal('Invalid');
    expect(res.body.details.causes[0].field).to.equal('metadata.name');
    expect(res.body.message).to.not.contain('fail01');
    expect(
      (
        await tenant.request('POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'n'.repeat(56) },
        })
      ).status,
    ).to.equal(201);
  });

  it('keeps nodes read-only for tenants (403) and the admin API out of reach (403)', async () => {
    const node = await tenant.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'mine' },
    });
    expect(node.status).to.equal(403);
    expect((await tenant.request('GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants')).status).to.equal(403);
  });

  it('serves /metrics to the admin only, with requests by identity kind, verb and code (no tenant id by default)', async () => {
    // Service accounts are not among the resources tenants read from the cache: this get goes upstream.
    await tenant.request('GET', '/api/v1/namespaces/default/serviceaccounts/none');
    expect((await tenant.request('GET', '/metrics')).status).to.equal(403);
    const metrics = await admin.request('GET', '/metrics', undefined, { Accept: 'text/plain' });
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.match(/paddock_requests_total\{identity="tenant",verb="get",code="404"\} [1-9]/);
    expect(metrics.text).to.not.contain('fail01');
    expect(metrics.text).to.match(
      /paddock_upstream_request_duration_seconds_count\{cluster="member1",verb="get"\} [1-9]/,
    );
    expect(metrics.text).to.match(/paddock_translation_duration_seconds_count\{direction="up"\} [1-9]/);
    expect(metrics.text).to.contain('# TYPE paddock_process_faults_total counter');
  });

  it('answers 504, not 500, when the cluster stops answering while the gateway re-reads its discovery', async () => {
    // A CRD write drops the cached discovery, so the next request reads it again first.
    const deleted = await tenant.request('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/xs.a.b');
    expect(deleted.status).to.equal(404);
    relay.stall();
    try {
      const slow = await tenant.request('GET', '/api/v1/namespaces/default/configmaps');
      expect(slow.status).to.equal(504);
      expect(slow.body).to.include({ kind: 'Status', reason: 'Timeout', code: 504 });
    } finally {
      relay.resume();
    }
  });

  it('answers 504 when the cluster stops answering and 503 with Retry-After when it is gone', async () => {
    expect((await tenant.request('GET', '/api/v1/namespaces/default/serviceaccounts')).status).to.equal(200);
    relay.stall();
    const slow = await tenant.request('GET', '/api/v1/namespaces/default/serviceaccounts');
    expect(slow.status, slow.text).to.equal(504);
    expect(slow.body).to.include({ kind: 'Status', reason: 'Timeout', code: 504 });
    await relay.stop();
    const gone = await tenant.request('GET', '/api/v1/namespaces/default/serviceaccounts');
    expect(gone.status).to.equal(503);
    expect(gone.headers['retry-after']).to.equal('1');
    expect(gone.body).to.include({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect((await admin.request('GET', '/healthz')).text).to.equal('ok');
  });
});
