/**
 * The audit log (gateway/observability/audit-log.ts, `--audit-log-path`): a gateway with one, a tenant using the
 * real kubectl and the admin creating a Tenant; the exact events (who, what verb, which object as
 * the tenant sees it, how it ended, for which tenant), every line an audit.k8s.io/v1 Event, reads
 * left out, no body and no upstream name anywhere; and, with a tiny size, rotation that loses no
 * event, even one of a watch the gateway's stop cuts.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { goDuration, isAudited, microTime, type AuditEvent } from '../../gateway/observability/audit-log.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { parseRequestInfo } from '../../apiserver/request-info.js';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const GO_DURATION = /^(\d+µs|\d+(\.\d+)?ms|(\d+h)?(\d+m)?\d+(\.\d+)?s)$/;

/** The backups of `file` (`audit.log` → `audit-2026-12-01T20-24-14.502.log`, lumberjack's names), oldest first. */
function backupsOf(file: string): string[] {
  const ext = path.extname(file);
  const prefix = path.basename(file, ext);
  const name = new RegExp(`^${prefix}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${ext.replace('.', '\\.')}$`);
  return readdirSync(path.dirname(file))
    .filter((entry) => name.test(entry))
    .sort()
    .map((entry) => path.join(path.dirname(file), entry));
}

/** Every event of the log and its backups, oldest file first; each line must be a whole Event. */
function readEvents(file: string): AuditEvent[] {
  const files = [...backupsOf(file), file];
  return files.flatMap((name) =>
    readFileSync(name, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => expectEvent(JSON.parse(line))),
  );
}

/** Checks the shape kube's audit.k8s.io/v1 Event has at the Metadata level, and returns the event. */
function expectEvent(event: any): AuditEvent {
  expect(event).to.deep.include({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    stage: 'ResponseComplete',
  });
  expect(event.auditID).to.match(UUID);
  expect(event.requestURI).to.be.a('string').and.match(/^\//);
  expect(event.verb).to.be.a('string');
  expect(event.user.username).to.be.a('string');
  expect(event.user.groups).to.include('system:authenticated');
  expect(event.sourceIPs).to.deep.equal(['127.0.0.1']);
  expect(event.requestReceivedTimestamp).to.match(MICRO_TIME);
  expect(event.stageTimestamp).to.match(MICRO_TIME);
  expect(event.stageTimestamp >= event.requestReceivedTimestamp).to.equal(true);
  expect(event.annotations['paddock.io/latency']).to.match(GO_DURATION);
  expect(Object.keys(event)).to.not.include.members(['requestObject', 'responseObject']);
  return event as AuditEvent;
}

/** What the tests compare of an event. */
function summary(event: AuditEvent) {
  return {
    user: event.user.username,
    verb: event.verb,
    objectRef: event.objectRef,
    code: event.responseStatus?.code,
    tenant: event.annotations['paddock.io/tenant'],
  };
}

const byReceived = (a: AuditEvent, b: AuditEvent) =>
  a.requestReceivedTimestamp.localeCompare(b.requestReceivedTimestamp);

describe('gateway: the audit log, what it audits and how it writes', () => {
  const info = (method: string, url: string) => {
    const parsed = new URL(url, 'https://x');
    return parseRequestInfo(method, parsed.pathname, parsed.searchParams);
  };

  it('audits writes, sessions and anything on the gateway’s own kinds; not other reads', () => {
    const cases: [string, string, boolean, boolean][] = [
      ['POST', '/api/v1/namespaces/default/configmaps', false, true],
      ['PUT', '/api/v1/namespaces/default/configmaps/a', false, true],
      ['PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', false, true],
      ['DELETE', '/api/v1/namespaces/default/configmaps/a', false, true],
      ['DELETE', '/api/v1/namespaces/default/configmaps', false, true],
      ['POST', '/some/other/path', false, true],
      ['GET', '/api/v1/namespaces/default/configmaps/a', false, false],
      ['GET', '/api/v1/namespaces/default/configmaps', false, false],
      ['GET', '/api/v1/namespaces/default/configmaps?watch=true', false, false],
      ['GET', '/version', false, false],
      ['HEAD', '/healthz', false, false],
      ['GET', '/api/v1/namespaces/default/pods/box/exec?command=sh', true, true],
      ['GET', '/api/v1/namespaces/default/pods/box/attach', true, true],
      ['GET', '/api/v1/namespaces/default/pods/box/portforward', true, true],
      ['GET', '/api/v1/namespaces/default/pods/box:80/proxy/', true, false],
      ['GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants', false, true],
      ['GET', '/apis/tenant.kubezoo.io/v1alpha1/tenants/foofoo', false, true],
      ['GET', '/apis/cluster.karmada.io/v1alpha1/clusters?watch=true', false, true],
      ['GET', '/api/v1/namespaces/karmada-cluster/secrets/member1', false, true],
      ['GET', '/apis/search.karmada.io/v1alpha1/resourceregistries', false, true],
      ['GET', '/api/v1/namespaces/default/secrets/member1', false, false],
      ['GET', '/apis/search.karmada.io/v1alpha1/search/cache/api/v1/pods', false, false],
    ];
    for (const [method, url, upgrade, audited] of cases)
      expect(isAudited(info(method, url), upgrade), `${method} ${url}${upgrade ? ' (upgrade)' : ''}`).to.equal(audited);
  });

  it("writes kube's MicroTime and Go's duration", () => {
    expect(microTime(Date.UTC(2026, 11, 1, 20, 24, 14, 502) * 1000 + 114)).to.equal('2026-12-01T20:24:14.502114Z');
    expect(microTime(Date.UTC(2026, 0, 1) * 1000 + 7)).to.equal('2026-01-01T00:00:00.000007Z');
    expect(
      [850, 1000, 12_300, 12_345, 999_999, 1_000_000, 1_500_000, 123_250_000, 3_600_000_000].map(goDuration),
    ).to.deep.equal(['850µs', '1ms', '12.3ms', '12.345ms', '999.999ms', '1s', '1.5s', '2m3.25s', '1h0m0s']);
  });
});

describe('gateway: the audit log of a tenant using kubectl and of the admin', function () {
  this.timeout(180_000);
  let work: { dir: string; remove(): Promise<void> };
  let upstream: DevCluster;
  let gateway: Gateway;
  let admin: Kubectl;
  let tenant: Kubectl;
  let auditFile: string;

  before(async () => {
    work = await makeTempDir('audit-log');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    auditFile = path.join(work.dir, 'audit', 'audit.log');
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
      auditLog: { path: auditFile, maxBytes: 100 * 1024 * 1024, maxBackups: 10 },
    });
    admin = await Kubectl.create(gateway.adminKubeconfigPath);
  });

  after(async () => {
    await admin?.dispose();
    await tenant?.dispose();
    await gateway?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('has one Event per write, session and admin action, the objects as the tenant sees them, and no read, body or upstream name', async () => {
    expect(
      await admin.ok(
        ['create', '-f', '-'],
        JSON.stringify({ apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: 'audaaa' } }),
      ),
    ).to.equal('tenant.tenant.kubezoo.io/audaaa created\n');
    await admin.ok(['wait', '--for=jsonpath={.status.phase}=Active', 'tenant/audaaa']);
    const kubeconfig = await admin.ok([
      'get',
      'tenant',
      'audaaa',
      '-o',
      'jsonpath={.metadata.annotations.kubezoo\\.io/tenant\\.kubeconfig\\.base64}',
    ]);
    await writeFile(`${work.dir}/audaaa.kubeconfig`, Buffer.from(kubeconfig, 'base64'));
    tenant = await Kubectl.create(`${work.dir}/audaaa.kubeconfig`);

    await tenant.ok(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings' },
        data: { color: 'sky-blue-4711' },
      }),
    );
    await tenant.ok(['patch', 'configmap', 'settings', '--type=merge', '-p', '{"data":{"color":"deep-red-0815"}}']);
    expect(await tenant.ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}'])).to.equal('deep-red-0815');
    await tenant.ok(['delete', 'configmap', 'settings']);
    // kubectl's create generators send protobuf: the names are read from it too, the cluster-scoped one without its prefix.
    await tenant.ok(['create', 'configmap', 'generated', '--from-literal=a=1']);
    await tenant.ok(['create', 'namespace', 'shop']);
    const forbidden = await tenant.run(['get', '--raw', '/apis/tenant.kubezoo.io/v1alpha1/tenants']);
    expect(forbidden.code).to.not.equal(0);
    await tenant.ok(['run', 'box', '--image=busybox']);
    await tenant.ok(['wait', '--for=condition=Ready', 'pod/box']);
    expect(await tenant.ok(['exec', 'box', '--', 'echo', 'audited'])).to.equal('audited\n');

    const isAdminRead = (e: AuditEvent) => e.user.username === 'admin' && ['get', 'list', 'watch'].includes(e.verb);
    let events: AuditEvent[] = [];
    await eventually(
      () => (events = readEvents(auditFile).sort(byReceived)),
      (all) => expect(all.filter((e) => !isAdminRead(e)).map((e) => e.verb)).to.include('get'),
    );
    const tenantRef = { tenant: 'audaaa', user: 'audaaa-admin' };
    expect(events.filter((e) => !isAdminRead(e)).map(summary)).to.deep.equal([
      {
        user: 'admin',
        verb: 'create',
        // A create's path names nothing: the name is the body's, as kube's audit takes it.
        objectRef: { resource: 'tenants', name: 'audaaa', apiGroup: 'tenant.kubezoo.io', apiVersion: 'v1alpha1' },
        code: 201,
        tenant: undefined,
      },
      {
        ...tenantRef,
        verb: 'create',
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'settings', apiVersion: 'v1' },
        code: 201,
      },
      {
        ...tenantRef,
        verb: 'patch',
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'settings', apiVersion: 'v1' },
        code: 200,
      },
      {
        ...tenantRef,
        verb: 'delete',
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'settings', apiVersion: 'v1' },
        code: 200,
      },
      {
        ...tenantRef,
        verb: 'create',
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'generated', apiVersion: 'v1' },
        code: 201,
      },
      {
        ...tenantRef,
        verb: 'create',
        objectRef: { resource: 'namespaces', name: 'shop', apiVersion: 'v1' },
        code: 201,
      },
      {
        ...tenantRef,
        verb: 'list',
        objectRef: { resource: 'tenants', apiGroup: 'tenant.kubezoo.io', apiVersion: 'v1alpha1' },
        code: 403,
      },
      {
        ...tenantRef,
        verb: 'create',
        objectRef: { resource: 'pods', namespace: 'default', name: 'box', apiVersion: 'v1' },
        code: 201,
      },
      {
        ...tenantRef,
        verb: 'get',
        objectRef: { resource: 'pods', namespace: 'default', name: 'box', apiVersion: 'v1', subresource: 'exec' },
        code: 101,
      },
    ]);
    // The admin's reads of Tenants (kubectl wait's list and watch, the get of the kubeconfig) are audited, and only those.
    const adminReads = events.filter(isAdminRead);
    expect(adminReads.map((e) => e.objectRef?.resource)).to.deep.equal(adminReads.map(() => 'tenants'));
    expect(adminReads.map(summary)).to.deep.include({
      user: 'admin',
      verb: 'get',
      objectRef: { resource: 'tenants', name: 'audaaa', apiGroup: 'tenant.kubezoo.io', apiVersion: 'v1alpha1' },
      code: 200,
      tenant: undefined,
    });

    const create = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps')!;
    expect(create.requestURI).to.match(/^\/api\/v1\/namespaces\/default\/configmaps(\?|$)/);
    expect(create.userAgent).to.match(/^kubectl/);
    expect(create.user.groups).to.deep.equal(['system:authenticated']);
    expect(events.find((e) => e.user.username === 'admin')!.user.groups).to.deep.equal([
      'system:masters',
      'system:authenticated',
    ]);
    expect(new Set(events.map((e) => e.auditID)).size).to.equal(events.length);
    const text = readFileSync(auditFile, 'utf8');
    expect(text, 'no body').to.not.contain('sky-blue-4711').and.not.contain('deep-red-0815');
    expect(text, 'no upstream name').to.not.contain('audaaa-default');
  });
});

describe('gateway: the audit log rotated at a tiny size loses no event', function () {
  this.timeout(180_000);
  let work: { dir: string; remove(): Promise<void> };
  let upstream: DevCluster;
  let gateway: Gateway | undefined;

  before(async () => {
    work = await makeTempDir('audit-rotation');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
  });

  after(async () => {
    await gateway?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('spreads the events over backups, each within the size, every audited request once, a cut watch too', async () => {
    const auditFile = path.join(work.dir, 'audit.json');
    const maxBytes = 4096;
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
      auditLog: { path: auditFile, maxBytes, maxBackups: 1000 },
    });
    const admin = await ApiClient.load(gateway.adminKubeconfigPath);
    const { kubeconfigPath } = await createActiveTenant(admin, 'audbbb', work.dir);
    const tenant = await ApiClient.load(kubeconfigPath);
    const names = Array.from({ length: 30 }, (_, i) => `cm-${i}`);
    // At once: the events are written as the answers end, in whatever order.
    const created = await Promise.all(
      names.map((name) =>
        tenant.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { a: 'b' } }),
      ),
    );
    expect(created.map((r) => r.status)).to.deep.equal(names.map(() => 201));
    for (const name of names.slice(0, 5))
      expect((await tenant.request('GET', `/api/v1/namespaces/default/configmaps/${name}`)).status).to.equal(200);
    const deleted = await Promise.all(
      names.map((name) => tenant.request('DELETE', `/api/v1/namespaces/default/configmaps/${name}`)),
    );
    expect(deleted.map((r) => r.status)).to.deep.equal(names.map(() => 200));
    tenant.close();

    // A watch of the Tenants, open when the gateway stops: its event is written while it stops.
    const watch = admin.watch('/apis/tenant.kubezoo.io/v1alpha1/tenants?watch=true');
    await watch.waitFor((events) => events.some((e) => e.object?.metadata?.name === 'audbbb'));
    await gateway.stop();
    gateway = undefined;
    watch.close();
    admin.close();

    const events = readEvents(auditFile);
    const backups = backupsOf(auditFile);
    expect(backups.length).to.be.at.least(5);
    for (const file of [...backups, auditFile])
      expect(readFileSync(file).length, path.basename(file)).to.be.at.most(maxBytes);
    const tenantEvents = events.filter((e) => e.annotations['paddock.io/tenant'] === 'audbbb');
    expect(tenantEvents).to.have.length(60);
    const named = (verb: string) =>
      tenantEvents
        .filter((e) => e.verb === verb)
        .map((e) => e.objectRef?.name ?? '')
        .sort();
    expect(tenantEvents.filter((e) => e.verb === 'create').map((e) => e.responseStatus?.code)).to.deep.equal(
      names.map(() => 201),
    );
    expect(named('delete')).to.deep.equal([...names].sort());
    expect(events.filter((e) => e.user.username === 'admin' && e.verb === 'watch').map(summary)).to.deep.equal([
      {
        user: 'admin',
        verb: 'watch',
        objectRef: { resource: 'tenants', apiGroup: 'tenant.kubezoo.io', apiVersion: 'v1alpha1' },
        code: 200,
        tenant: undefined,
      },
    ]);
    expect(new Set(events.map((e) => e.auditID)).size).to.equal(events.length);
  });
});
