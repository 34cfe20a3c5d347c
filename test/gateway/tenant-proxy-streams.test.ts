import { expect } from 'chai';
import { createConnection } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { DevCluster } from '../../devcluster/devcluster.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { keepAliveRequests } from '../support/keep-alive-http.js';
import { Kubectl } from '../support/kubectl.js';
import { startStage, type Stage } from '../support/stage.js';

describe("gateway: a tenant's kubectl generators, can-i, exec, logs and port-forward through the gateway", function () {
  let upstream: DevCluster;
  let stage: Stage;
  let tenant: Kubectl;
  let member: Kubectl;

  before(async () => {
    stage = await startStage('streams');
    ({ upstream } = stage);
    tenant = await Kubectl.create((await stage.tenant('strm01')).kubeconfigPath);
    member = await Kubectl.create(upstream.kubeconfigPath);
  });
  after(async () => {
    await tenant?.dispose();
    await member?.dispose();
    await stage?.stop();
  });

  it("kubectl create generators (protobuf bodies) create the right objects under the tenant's prefix upstream", async () => {
    expect(await tenant.ok(['create', 'namespace', 'shop'])).to.equal('namespace/shop created\n');
    await tenant.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '-n', 'shop']);
    await tenant.ok(['create', 'configmap', 'settings', '--from-literal=a=b', '-n', 'shop']);
    await tenant.ok(['create', 'secret', 'generic', 'creds', '--from-literal=p=q', '-n', 'shop']);
    await tenant.ok(['create', 'serviceaccount', 'robot', '-n', 'shop']);
    await tenant.ok(['create', 'role', 'reader', '--verb=get', '--resource=pods', '-n', 'shop']);
    await tenant.ok([
      'create',
      'rolebinding',
      'readers',
      '--role=reader',
      '--user=alice',
      '--serviceaccount=shop:robot',
      '-n',
      'shop',
    ]);
    await tenant.ok(['create', 'clusterrole', 'viewer', '--verb=list', '--resource=pods']);
    await tenant.ok(['create', 'clusterrolebinding', 'viewers', '--clusterrole=viewer', '--group=devs']);
    await tenant.ok(['create', 'quota', 'limits', '--hard=pods=5', '-n', 'shop']);
    await tenant.ok(['create', 'job', 'once', '--image=busybox', '-n', 'shop', '--', 'echo', 'hi']);

    expect(
      await member.ok(['get', 'namespace', 'strm01-shop', '-o', 'jsonpath={.metadata.labels.kubezoo\\.io/tenant}']),
    ).to.equal('strm01');
    for (const kind of [
      'deployment/web',
      'configmap/settings',
      'secret/creds',
      'serviceaccount/robot',
      'role/reader',
      'rolebinding/readers',
      'quota/limits',
      'job/once',
    ]) {
      expect((await member.run(['get', kind, '-n', 'strm01-shop'])).code, kind).to.equal(0);
    }
    const binding = JSON.parse(await member.ok(['get', 'rolebinding', 'readers', '-n', 'strm01-shop', '-o', 'json']));
    expect(binding.subjects).to.deep.equal([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'strm01-alice' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'strm01-shop' },
    ]);
    // Stored as a RoleBinding in the tenant's kube-system (translate/kinds/stored-cluster-role-binding.ts).
    const clusterBinding = JSON.parse(
      await member.ok([
        'get',
        'rolebinding',
        'paddock.clusterrolebinding:viewers',
        '-n',
        'strm01-kube-system',
        '-o',
        'json',
      ]),
    );
    expect(clusterBinding.roleRef.name).to.equal('strm01:viewer');
    expect(clusterBinding.subjects[0].name).to.equal('strm01-devs');
    expect(
      await tenant.ok(['get', 'rolebinding', 'readers', '-n', 'shop', '-o', 'jsonpath={.subjects[0].name}']),
    ).to.equal('alice');
  });

  it("auth can-i answers for the tenant's own user", async () => {
    expect(await tenant.ok(['auth', 'can-i', 'create', 'pods', '-n', 'shop'])).to.equal('yes\n');
  });

  it('exec over WebSocket, logs -f, and port-forward echo bytes through the gateway', async () => {
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'box', namespace: 'shop' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    expect(await tenant.ok(['exec', 'box', '-n', 'shop', '--', 'echo', 'through', 'the', 'gateway'])).to.equal(
      'through the gateway\n',
    );
    const failed = await tenant.run(['exec', 'box', '-n', 'shop', '--', 'exit', '4']);
    expect([failed.code, failed.stderr.trim()]).to.deep.equal([4, 'command terminated with exit code 4']);
    expect(await tenant.ok(['exec', '-i', 'box', '-n', 'shop', '--', 'cat'], 'stdin through the gateway\n')).to.equal(
      'stdin through the gateway\n',
    );

    const follow = tenant.start(['logs', '-f', 'box', '-n', 'shop']);
    try {
      await follow.waitFor(/tick 1/);
    } finally {
      follow.child.kill();
    }

    const port = await freePort();
    const forward = tenant.start(['port-forward', 'pod/box', '-n', 'shop', `${port}:80`]);
    try {
      await forward.waitFor(/Forwarding from 127\.0\.0\.1/);
      const echoed = await new Promise<string>((resolve, reject) => {
        const socket = createConnection(port, '127.0.0.1', () => socket.write('hello tunnel'));
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk.toString();
          if (data.length >= 'hello tunnel'.length) {
            socket.end();
            resolve(data);
          }
        });
        socket.on('error', reject);
      });
      expect(echoed).to.equal('hello tunnel');
    } finally {
      forward.child.kill();
    }
  });

  it('logs --since, --since-time, --tail and --limit-bytes, with and without -f, as on the cluster itself', async function () {
    this.timeout(60_000);
    await tenant.ok(['create', 'namespace', 'logs']);
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'talker', namespace: 'logs' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    const lines = 'talker main started\ntalker main image busybox\ntalker main ready\n';
    const started = await tenant.ok(['get', 'pod', 'talker', '-n', 'logs', '-o', 'jsonpath={.status.startTime}']);
    const later = new Date(Date.parse(started) + 2000).toISOString().replace(/\.\d+Z$/, 'Z');
    // The same answer through the gateway as from the cluster, whose namespace has the tenant's prefix.
    const logs = async (...args: string[]) => {
      const [through, direct] = await Promise.all([
        tenant.ok(['logs', 'talker', '-n', 'logs', ...args]),
        member.ok(['logs', 'talker', '-n', 'strm01-logs', ...args]),
      ]);
      expect(through, args.join(' ')).to.equal(direct);
      return through;
    };
    expect(await logs(`--since-time=${started}`)).to.equal(lines);
    expect(await logs(`--since-time=${later}`)).to.equal('');
    expect(await logs('--since=1h')).to.equal(lines);
    expect(await logs('--tail=1')).to.equal('talker main ready\n');
    expect(await logs('--limit-bytes=15')).to.equal('talker main sta');
    expect(await logs('--timestamps', '--limit-bytes=40')).to.equal(`${started.replace('Z', '.000000000Z')} talker ma`);
    // Once the pod is older than a second, --since=1s leaves its lines out; -f must too.
    await waitUntil('the pod is older than a second', async () => (await logs('--since=1s')) === '');

    const followed = async (args: string[], first: RegExp) => {
      const follow = tenant.start(['logs', '-f', 'talker', '-n', 'logs', ...args]);
      try {
        await follow.waitFor(/tick \d+\n/);
      } finally {
        await follow.stop();
      }
      expect(follow.output(), args.join(' ')).to.match(first);
    };
    await followed(['--since=1s'], /^tick \d+\n/);
    await followed([`--since-time=${later}`], /^tick \d+\n/);
    await followed([`--since-time=${started}`], /^talker main started\n.*\ntalker main ready\ntick 1\n/);
    await followed(['--tail=1'], /^talker main ready\ntick 1\n/);
    const limited = await tenant.run(['logs', '-f', 'talker', '-n', 'logs', `--limit-bytes=${lines.length + 4}`]);
    expect(limited).to.deep.equal({ code: 0, stdout: `${lines}tick`, stderr: '' });

    // kube-apiserver's refusal of an option comes back as it is, the pod named as the tenant knows it.
    const refused = await tenant.run(['get', '--raw', '/api/v1/namespaces/logs/pods/talker/log?tailLines=-1']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal(
      'The PodLogOptions "talker" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0\n',
    );
  });

  it("port-forward to the tenant's web server answers HTTP through the gateway, as its pods proxy does", async () => {
    await tenant.ok(['create', 'namespace', 'site']);
    await tenant.ok(['run', 'web', '--image=nginx:1.27', '-n', 'site']);
    const port = await freePort();
    const forward = tenant.start(['port-forward', 'pod/web', '-n', 'site', `${port}:80`]);
    try {
      await forward.waitFor(/Forwarding from 127\.0\.0\.1/);
      const [page, again, missing] = await keepAliveRequests(port, [
        { method: 'GET', path: '/' },
        { method: 'HEAD', path: '/' },
        { method: 'GET', path: '/missing' },
      ]);
      expect(page).to.include({ status: 200, sameConnection: true });
      expect(page.body).to.include('<h1>Welcome to nginx!</h1>');
      expect(page.headers).to.include({ 'content-type': 'text/html', server: 'nginx', connection: 'keep-alive' });
      expect(again).to.include({ status: 200, body: '', sameConnection: true });
      expect(missing).to.include({ status: 404, sameConnection: true });
      expect(await tenant.ok(['get', '--raw', '/api/v1/namespaces/site/pods/web/proxy/'])).to.equal(page.body);
    } finally {
      await forward.stop();
    }
  });

  it('exec over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) through the gateway', async () => {
    const out = await tenant.run(['exec', 'box', '-n', 'shop', '--', 'echo', 'over', 'spdy'], undefined, {
      KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false',
    });
    expect({ code: out.code, stdout: out.stdout }).to.deep.equal({ code: 0, stdout: 'over spdy\n' });
  });

  it("pods/proxy and services/proxy reach the tenant's workload through the gateway, any method, path and query kept", async () => {
    const echo = JSON.parse(
      await tenant.ok(['get', '--raw', '/api/v1/namespaces/shop/pods/box/proxy/hello/there/?x=1&y=two']),
    );
    expect(echo).to.include({
      pod: 'box',
      namespace: 'strm01-shop',
      method: 'GET',
      path: '/hello/there/',
      query: 'x=1&y=two',
    });

    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'api', namespace: 'shop', labels: { app: 'api' } },
        spec: { containers: [{ name: 'main', image: 'api', ports: [{ name: 'http', containerPort: 8080 }] }] },
      }),
    );
    await tenant.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'api', namespace: 'shop' },
        spec: { selector: { app: 'api' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] },
      }),
    );
    const posted = JSON.parse(
      await tenant.ok(
        ['create', '--raw', '/api/v1/namespaces/shop/services/api:web/proxy/orders', '-f', '-'],
        '{"item":"tea"}',
      ),
    );
    expect(posted).to.include({ pod: 'api', port: 8080, method: 'POST', path: '/orders', body: '{"item":"tea"}' });

    // The cluster's own refusals come back as the tenant's Status.
    const missing = await tenant.run(['get', '--raw', '/api/v1/namespaces/shop/pods/nothere/proxy/']);
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.include('pods "nothere" not found').and.not.include('strm01-');
    const elsewhere = await tenant.run(['get', '--raw', '/api/v1/namespaces/shop/pods/api:9999/proxy/']);
    expect(elsewhere.stderr).to.match(/Error from server \(ServiceUnavailable\)/);
  });

  it('a WebSocket through pods/proxy reaches the workload and echoes', async () => {
    const { default: WebSocket } = await import('ws');
    const { parseKubeconfig } = await import('../../certs/index.js');
    const config = parseKubeconfig(await readFile(tenant.kubeconfig, 'utf8'));
    const url = `${config.server.replace(/^https/, 'wss')}/api/v1/namespaces/shop/pods/box/proxy/socket`;
    const messages = await new Promise<string[]>((resolve, reject) => {
      const ws = new WebSocket(url, { ca: config.caPem, cert: config.certPem, key: config.keyPem });
      const got: string[] = [];
      ws.on('open', () => ws.send('ping through the gateway'));
      ws.on('message', (data: Buffer) => {
        got.push(data.toString());
        if (got.length === 2) {
          ws.close();
          resolve(got);
        }
      });
      ws.on('error', reject);
    });
    expect(JSON.parse(messages[0])).to.include({ pod: 'box', path: '/socket' });
    expect(messages[1]).to.equal('ping through the gateway');
  });

  it("nodes/proxy reaches only the kubelet's health: everything else there names every tenant's pods", async () => {
    await member.ok(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } }),
    );
    expect(await tenant.ok(['get', '--raw', '/api/v1/nodes/worker-1/proxy/healthz'])).to.equal('ok');
    for (const path of ['pods', 'stats/summary', 'configz', 'metrics']) {
      const refused = await tenant.run(['get', '--raw', `/api/v1/nodes/worker-1/proxy/${path}`]);
      expect(refused.code, path).to.not.equal(0);
      expect(refused.stderr, path)
        .to.include('Error from server (Forbidden)')
        .and.include('tenants may only reach /healthz');
    }
  });
});
