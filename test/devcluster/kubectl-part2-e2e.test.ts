import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createConnection } from 'node:net';
import { promisify } from 'node:util';
import { readFile, writeFile } from 'node:fs/promises';
import { loadCertificateAuthority, parseKubeconfig, renderKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { sleep } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { keepAliveRequests } from '../support/keep-alive-http.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const run = promisify(execFile);

describe('devcluster part 2 with the real kubectl: protobuf generators, RBAC and impersonation, exec, logs, port-forward', function () {
  let cluster: DevCluster;
  let dir: string;
  let remove: () => Promise<void>;
  let admin: Kubectl;
  let carol: Kubectl;

  before(async () => {
    ({ dir, remove } = await makeTempDir('part2'));
    await writeFile(`${dir}/tokens.csv`, 'static-token-for-dana,dana,uid-dana,"ops,auditors"\n');
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir, tokenAuthFile: `${dir}/tokens.csv` });
    admin = await Kubectl.create(cluster.kubeconfigPath);
    const ca = await loadCertificateAuthority(
      await readFile(`${dir}/pki/ca.crt`, 'utf8'),
      await readFile(`${dir}/pki/ca.key`, 'utf8'),
    );
    const cert = await ca.issueClientCertificate({ commonName: 'carol', organizations: ['devs'] });
    const server = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8')).server;
    await writeFile(
      `${dir}/carol.kubeconfig`,
      renderKubeconfig({
        clusterName: 'dev',
        server,
        caPem: ca.certPem,
        userName: 'carol',
        certPem: cert.certPem,
        keyPem: cert.keyPem,
        contextName: 'carol@dev',
      }),
    );
    carol = await Kubectl.create(`${dir}/carol.kubeconfig`);
  });
  after(async () => {
    await admin?.dispose();
    await carol?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  it('kubectl create <generator> (protobuf bodies) creates what kubectl meant', async () => {
    expect(await admin.ok(['create', 'namespace', 'gen'])).to.equal('namespace/gen created\n');
    const n = ['-n', 'gen'];
    expect(
      await admin.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80', ...n]),
    ).to.equal('deployment.apps/web created\n');
    expect(await admin.ok(['create', 'configmap', 'settings', '--from-literal=color=blue', ...n])).to.equal(
      'configmap/settings created\n',
    );
    expect(await admin.ok(['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret', ...n])).to.equal(
      'secret/creds created\n',
    );
    await admin.ok(['create', 'serviceaccount', 'robot', ...n]);
    await admin.ok(['create', 'role', 'reader', '--verb=get,list', '--resource=pods', ...n]);
    await admin.ok([
      'create',
      'rolebinding',
      'readers',
      '--role=reader',
      '--user=alice',
      '--serviceaccount=gen:robot',
      ...n,
    ]);
    await admin.ok(['create', 'clusterrole', 'node-reader', '--verb=list', '--resource=nodes']);
    await admin.ok(['create', 'clusterrolebinding', 'node-readers', '--clusterrole=node-reader', '--group=devs']);
    await admin.ok(['create', 'quota', 'limits', '--hard=pods=10,cpu=2', ...n]);
    await admin.ok(['create', 'job', 'once', '--image=busybox', ...n, '--', 'echo', 'hi']);
    await admin.ok([
      'create',
      'cronjob',
      'nightly',
      '--image=busybox',
      '--schedule=0 0 * * *',
      ...n,
      '--',
      'echo',
      'hi',
    ]);

    const deployment = JSON.parse(await admin.ok(['get', 'deployment', 'web', ...n, '-o', 'json']));
    expect(deployment.spec.replicas).to.equal(3);
    expect(deployment.spec.template.spec.containers[0]).to.deep.include({ name: 'nginx', image: 'nginx:1.27' });
    expect(deployment.spec.template.spec.containers[0].ports).to.deep.equal([{ containerPort: 80, protocol: 'TCP' }]);
    expect(await admin.ok(['get', 'configmap', 'settings', ...n, '-o', 'jsonpath={.data.color}'])).to.equal('blue');
    expect(
      Buffer.from(
        await admin.ok(['get', 'secret', 'creds', ...n, '-o', 'jsonpath={.data.password}']),
        'base64',
      ).toString(),
    ).to.equal('s3cret');
    const binding = JSON.parse(await admin.ok(['get', 'rolebinding', 'readers', ...n, '-o', 'json']));
    expect(binding.subjects).to.deep.equal([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'gen' },
    ]);
    expect(
      await admin.ok(['get', 'quota', 'limits', ...n, '-o', 'jsonpath={.spec.hard.pods} {.spec.hard.cpu}']),
    ).to.equal('10 2');
    expect(await admin.ok(['get', 'cronjob', 'nightly', ...n, '-o', 'jsonpath={.spec.schedule}'])).to.equal(
      '0 0 * * *',
    );
    expect(
      await admin.ok(['get', 'job', 'once', ...n, '-o', 'jsonpath={.spec.template.spec.containers[0].command}']),
    ).to.equal('["echo","hi"]');
  });

  it('authorizes with RBAC: can-i for impersonated users, 403 text, impersonation only for those allowed', async () => {
    expect(await admin.ok(['auth', 'can-i', 'create', 'pods'])).to.equal('yes\n');
    const no = await admin.run(['auth', 'can-i', 'list', 'pods', '-n', 'gen', '--as', 'bob']);
    expect([no.code, no.stdout]).to.deep.equal([1, 'no\n']);
    expect(await admin.ok(['auth', 'can-i', 'list', 'pods', '-n', 'gen', '--as', 'alice'])).to.equal('yes\n');
    const forbidden = await admin.run(['get', 'secrets', '-n', 'gen', '--as', 'alice']);
    expect(forbidden.stderr.trim()).to.equal(
      'Error from server (Forbidden): secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "gen"',
    );
    expect(await carol.ok(['get', 'nodes', '-o', 'name'])).to.equal('node/devcluster-control-plane\n');
    const impersonating = await carol.run(['get', 'pods', '-n', 'gen', '--as', 'alice']);
    expect(impersonating.stderr.trim()).to.equal(
      'Error from server (Forbidden): users "alice" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const whoami = JSON.parse(await admin.ok(['auth', 'whoami', '-o', 'json', '--as', 'alice', '--as-group', 'team']));
    expect(whoami.status.userInfo).to.deep.include({ username: 'alice' });
    expect(whoami.status.userInfo.groups).to.include.members(['team', 'system:authenticated']);
  });

  it('issues ServiceAccount tokens that authenticate as the account', async () => {
    const token = (await admin.ok(['create', 'token', 'robot', '-n', 'gen'])).trim();
    expect(token.split('.')).to.have.length(3);
    const server = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8')).server;
    const asRobot = await admin.run([
      '--kubeconfig',
      '/dev/null',
      '--server',
      server,
      '--certificate-authority',
      `${dir}/pki/ca.crt`,
      '--token',
      token,
      'get',
      'pods',
      '-n',
      'gen',
      '-o',
      'name',
    ]);
    // Pods in `gen` are the controllers' (the Job `once` has one): the account may list them.
    expect([asRobot.code, asRobot.stderr]).to.deep.equal([0, '']);
    expect(asRobot.stdout).to.match(/^pod\/once-[a-z0-9]{5}$/m);
    const denied = await admin.run([
      '--kubeconfig',
      '/dev/null',
      '--server',
      server,
      '--certificate-authority',
      `${dir}/pki/ca.crt`,
      '--token',
      token,
      'get',
      'secrets',
      '-n',
      'gen',
    ]);
    expect(denied.stderr).to.contain('User "system:serviceaccount:gen:robot" cannot list resource "secrets"');
  });

  it('authenticates bearer tokens from the static token file', async () => {
    const server = parseKubeconfig(await readFile(cluster.kubeconfigPath, 'utf8')).server;
    const flags = ['--kubeconfig', '/dev/null', '--server', server, '--certificate-authority', `${dir}/pki/ca.crt`];
    const whoami = JSON.parse(
      await admin.ok([...flags, '--token', 'static-token-for-dana', 'auth', 'whoami', '-o', 'json']),
    );
    expect(whoami.status.userInfo.username).to.equal('dana');
    expect(whoami.status.userInfo.groups).to.include.members(['ops', 'auditors', 'system:authenticated']);
    const wrong = await admin.run([...flags, '--token', 'not-a-token', 'get', 'pods']);
    expect(wrong.stderr).to.contain('error: You must be logged in to the server (Unauthorized)');
  });

  it('exec and logs over the real protocols, with the simulated container', async () => {
    await admin.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'box', namespace: 'gen' },
        spec: { containers: [{ name: 'main', image: 'busybox' }] },
      }),
    );
    expect(await admin.ok(['exec', 'box', '-n', 'gen', '--', 'echo', 'hello', 'world'])).to.equal('hello world\n');
    const failed = await admin.run(['exec', 'box', '-n', 'gen', '--', 'exit', '3']);
    expect([failed.code, failed.stderr.trim()]).to.deep.equal([3, 'command terminated with exit code 3']);
    expect(await admin.ok(['exec', '-i', 'box', '-n', 'gen', '--', 'cat'], 'piped\n')).to.equal('piped\n');
    const logs = await admin.ok(['logs', 'box', '-n', 'gen']);
    expect(logs.length).to.be.greaterThan(0);
    const refused = await admin.run(['exec', 'box', '-n', 'gen', '--as', 'alice', '--', 'echo', 'x']);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.contain('cannot create resource "pods/exec"');
  });

  it('port-forward echoes bytes through the forwarded port', async () => {
    const port = await freePort();
    const forward = admin.start(['port-forward', 'pod/box', '-n', 'gen', `${port}:80`]);
    try {
      await forward.waitFor(/Forwarding from 127\.0\.0\.1/);
      const echoed = await new Promise<string>((resolve, reject) => {
        const socket = createConnection(port, '127.0.0.1', () => socket.write('ping through the tunnel'));
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk.toString();
          if (data.length >= 'ping through the tunnel'.length) {
            socket.end();
            resolve(data);
          }
        });
        socket.on('error', reject);
      });
      expect(echoed).to.equal('ping through the tunnel');
    } finally {
      forward.child.kill();
      await sleep(100);
    }
  });

  it('port-forward reaches the same HTTP servers as the pod proxy: a web server image, or the echo on a declared port', async () => {
    const n = ['-n', 'web'];
    await admin.ok(['create', 'namespace', 'web']);
    await admin.ok(['run', 'web', '--image=nginx:1.27', ...n]);
    await admin.ok(['run', 'api', '--image=example/api', '--port=8080', ...n]);
    const [webPort, apiPort] = [await freePort(), await freePort()];
    const forwards = [
      admin.start(['port-forward', 'pod/web', ...n, `${webPort}:80`]),
      admin.start(['port-forward', 'pod/api', ...n, `${apiPort}:8080`]),
    ];
    try {
      await Promise.all(forwards.map((f) => f.waitFor(/Forwarding from 127\.0\.0\.1/)));
      const [page, again, head, missing, post] = await keepAliveRequests(webPort, [
        { method: 'GET', path: '/' },
        { method: 'GET', path: '/index.html' },
        { method: 'HEAD', path: '/' },
        { method: 'GET', path: '/missing' },
        { method: 'POST', path: '/', body: 'x=1' },
      ]);
      expect(page.body).to.include('<title>Welcome to nginx!</title>');
      expect(page.headers).to.include({
        'content-type': 'text/html',
        'content-length': String(Buffer.byteLength(page.body)),
        server: 'nginx',
        connection: 'keep-alive',
      });
      expect([again, head, missing, post].map((a) => [a.status, a.body.length > 0, a.sameConnection])).to.deep.equal([
        [200, true, true],
        [200, false, true],
        [404, true, true],
        [405, true, true],
      ]);
      expect(again.body).to.equal(page.body);
      expect(head.headers['content-length']).to.equal(page.headers['content-length']);
      expect(missing.body).to.include('<title>404 Not Found</title>');
      // The pods proxy reaches the same server.
      expect(await admin.ok(['get', '--raw', '/api/v1/namespaces/web/pods/web:80/proxy/'])).to.equal(page.body);
      // And curl, as a user tries it: two pages on one connection (the second made no new connection).
      const url = `http://127.0.0.1:${webPort}/`;
      const curl = await run('curl', [
        '-sS',
        '-w',
        '%{http_code} %{num_connects}\\n',
        '-o',
        '/dev/null',
        url,
        '-o',
        '/dev/null',
        url,
      ]);
      expect(curl.stdout).to.equal('200 1\n200 0\n');

      const [echo] = await keepAliveRequests(apiPort, [{ method: 'PUT', path: '/orders?id=7', body: 'tea' }]);
      const proxied = await admin.ok(
        ['replace', '--raw', '/api/v1/namespaces/web/pods/api:8080/proxy/orders?id=7', '-f', '-'],
        'tea',
      );
      expect(echo).to.deep.include({ status: 200, body: proxied });
      expect(JSON.parse(echo.body)).to.include({
        pod: 'api',
        port: 8080,
        method: 'PUT',
        path: '/orders',
        query: 'id=7',
      });
    } finally {
      await Promise.all(forwards.map((f) => f.stop()));
    }
  });
});
