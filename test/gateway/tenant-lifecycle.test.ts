import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseKubeconfig, renderKubeconfig } from '../../certs/index.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { EtcdStore } from '../../store/etcd/etcd-store.js';
import type { Store } from '../../store/index.js';
import {
  CREDENTIALS_ANNOTATION as CREDENTIALS,
  KUBECONFIG_ANNOTATION as KUBECONFIG,
  storedCredentials,
} from '../../tenants/tenant-kubeconfig.js';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { ApiClient } from '../support/api-client.js';
import { killAndWait, startEtcd, type EtcdServer } from '../support/etcd-server.js';
import { waitUntil } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const cli = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
/** A stored Tenant's JSON, its credentials included: about 1,910 characters; 2,050 when they were PEM. */
const STORED_TENANT_LIMIT = 2000;

const tenantYaml = (id: string) =>
  `apiVersion: tenant.kubezoo.io/v1alpha1\nkind: Tenant\nmetadata:\n  name: ${id}\nspec:\n  id: 1\n`;

/** One gateway replica: where it is and how to reach it as admin. */
interface Replica {
  url: string;
  adminKubeconfig: string;
  stop(): Promise<void>;
  pid?: number;
  child?: ChildProcess;
}

/** A replica in its own process (`paddock serve`), so that it can be killed. */
async function spawnReplica(dataDir: string, etcd: string, upstreamKubeconfig: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      cli,
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--data-dir',
      dataDir,
      '--etcd-endpoints',
      etcd,
      '--etcd-prefix',
      '/gateway',
      '--upstream',
      `member1=${upstreamKubeconfig}`,
      '--election-ttl',
      '2',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`paddock serve exited with ${code}`)));
  });
  return {
    url: `https://127.0.0.1:${port}`,
    adminKubeconfig: `${dataDir}/admin.kubeconfig`,
    pid: child.pid,
    child,
    stop: () => killAndWait(child, 'SIGTERM'),
  };
}

for (const backend of ['embedded', 'etcd'] as const) {
  describe(`gateway: the Tenant API and the tenant lifecycle (${backend} store${backend === 'etcd' ? ', two replicas' : ''})`, function () {
    let etcd: EtcdServer | undefined;
    let upstream: DevCluster;
    let replicas: Replica[] = [];
    let cleanups: (() => Promise<void>)[] = [];
    let admin: Kubectl;
    let upstreamKubectl: Kubectl;
    /** The store the replicas share, read and written beneath their API. */
    let store: Store;
    let counter = 0;

    before(async () => {
      const upstreamDir = await makeTempDir('upstream');
      cleanups.push(upstreamDir.remove);
      if (backend === 'etcd') etcd = await startEtcd();
      upstream = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: upstreamDir.dir });
      if (backend === 'embedded') {
        const dir = await makeTempDir('gateway');
        cleanups.push(dir.remove);
        const gateway: Gateway = await startGateway({
          listen: '127.0.0.1:0',
          dataDir: dir.dir,
          upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
        });
        replicas = [{ url: gateway.url, adminKubeconfig: gateway.adminKubeconfigPath, stop: () => gateway.stop() }];
        store = gateway.store;
      } else {
        const dirs = [await makeTempDir('replica-a'), await makeTempDir('replica-b')];
        cleanups.push(...dirs.map((d) => d.remove));
        replicas = await Promise.all(dirs.map((d) => spawnReplica(d.dir, etcd!.endpoint, upstream.kubeconfigPath)));
        const client = new EtcdStore({ endpoints: [etcd!.endpoint], prefix: '/gateway' });
        cleanups.push(() => client.close());
        store = client;
      }
      admin = await Kubectl.create(replicas[0].adminKubeconfig);
      upstreamKubectl = await Kubectl.create(upstream.kubeconfigPath);
    });
    after(async () => {
      await admin?.dispose();
      await upstreamKubectl?.dispose();
      for (const replica of replicas) await replica.stop().catch(() => undefined);
      await upstream?.stop();
      await etcd?.stop();
      for (const cleanup of cleanups) await cleanup();
      cleanups = [];
    });

    const nextId = () => `${backend === 'etcd' ? 'e' : 'm'}${String(++counter).padStart(5, '0')}`;
    /** The replica that did not take the admin request: what "every replica" has to show. */
    const otherReplica = () => replicas[replicas.length - 1];

    async function tenantKubeconfig(id: string): Promise<string> {
      const tenant = JSON.parse(await admin.ok(['get', 'tenant', id, '-o', 'json']));
      return Buffer.from(tenant.metadata.annotations['kubezoo.io/tenant.kubeconfig.base64'], 'base64').toString('utf8');
    }

    /** A tenant kubeconfig pointed at a given replica, in a directory the suite removes (it holds a key). */
    async function kubectlAs(kubeconfigText: string, replica: Replica): Promise<Kubectl> {
      const { dir, remove } = await makeTempDir('tenant-kubeconfig');
      cleanups.push(remove);
      const file = `${dir}/kubeconfig`;
      await writeFile(file, kubeconfigText.replace(/server: .*/, `server: ${replica.url}`));
      return Kubectl.create(file);
    }

    /**
     * Applies a Tenant and waits until the other replica shows it Active; resolves to the ms from
     * the apply's answer. The phase is read in-process: a kubectl run is itself a few hundred ms on
     * a busy machine, which would count the test's load, not the gateway's.
     */
    async function createActive(id: string): Promise<number> {
      expect(await admin.ok(['apply', '-f', '-'], tenantYaml(id))).to.equal(`tenant.tenant.kubezoo.io/${id} created\n`);
      const started = performance.now();
      const api = await ApiClient.load(otherReplica().adminKubeconfig);
      try {
        await waitUntil(
          `tenant ${id} Active`,
          async () => (await api.request('GET', `${TENANTS}/${id}`)).body?.status?.phase === 'Active',
          { timeout: 5000, interval: 10 },
        );
      } finally {
        api.close();
      }
      return performance.now() - started;
    }

    it('kubectl apply makes an Active tenant within a second, with a certificate signed by the CA, on every replica', async () => {
      const id = nextId();
      const took = await createActive(id);
      expect(took, 'Active within 1 s of the apply').to.be.lessThan(1000);
      const tenant = JSON.parse(await admin.ok(['get', 'tenant', id, '-o', 'json']));
      expect(tenant.status.cluster).to.equal('member1');
      expect(tenant.metadata.finalizers).to.deep.equal(['kubezoo.io/tenant']);
      const kubeconfig = parseKubeconfig(await tenantKubeconfig(id));
      expect(kubeconfig.context).to.equal(`${id}@paddock`);
      expect(kubeconfig.user).to.equal(id);
      const certificate = new X509Certificate(kubeconfig.certPem);
      const ca = new X509Certificate(parseKubeconfig(await readFile(replicas[0].adminKubeconfig, 'utf8')).caPem);
      expect(certificate.subject).to.contain(`CN=${id}-admin`);
      expect(certificate.subject).to.contain(`OU=${id}`);
      expect(certificate.checkIssued(ca) && certificate.verify(ca.publicKey)).to.equal(true);
      expect(tenant.status.certificateSerials).to.deep.equal([
        certificate.serialNumber.toLowerCase().replace(/^0+/, ''),
      ]);

      for (const replica of replicas) {
        const asTenant = await kubectlAs(await tenantKubeconfig(id), replica);
        const whoami = JSON.parse(await asTenant.ok(['auth', 'whoami', '-o', 'json']));
        expect(whoami.status.userInfo.username).to.equal(`${id}-admin`);
        expect(whoami.status.userInfo.groups).to.include('system:authenticated');
        // The tenant under the same key as in the audit log.
        expect(whoami.status.userInfo.extra).to.deep.equal({ 'paddock.io/tenant': [id] });
        await asTenant.dispose();
      }
    });

    it("prepares the tenant's namespaces and RBAC on the upstream cluster", async () => {
      const id = nextId();
      await createActive(id);
      const namespaces = JSON.parse(
        await upstreamKubectl.ok(['get', 'namespaces', '-l', `kubezoo.io/tenant=${id}`, '-o', 'json']),
      ).items.map((n: any) => n.metadata.name);
      expect(namespaces.sort()).to.deep.equal([
        `${id}-default`,
        `${id}-kube-node-lease`,
        `${id}-kube-public`,
        `${id}-kube-system`,
      ]);
      // The binding is dormant upstream (its role never exists), stored as a RoleBinding in the
      // tenant's kube-system; the grants in each namespace carry it.
      const binding = JSON.parse(
        await upstreamKubectl.ok([
          'get',
          'rolebinding',
          'paddock.clusterrolebinding:cluster-admin',
          '-n',
          `${id}-kube-system`,
          '-o',
          'json',
        ]),
      );
      expect(
        (await upstreamKubectl.run(['get', 'clusterrolebinding', `${id}-cluster-admin`])).code,
        'none at the cluster scope',
      ).to.not.equal(0);
      expect(binding.roleRef).to.deep.include({ kind: 'ClusterRole', name: `${id}:cluster-admin` });
      expect(binding.subjects).to.deep.equal([
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${id}-admin` },
      ]);
      for (const namespace of namespaces) {
        const grant = JSON.parse(
          await upstreamKubectl.ok(['get', 'rolebinding', 'paddock:cluster-admin', '-n', namespace, '-o', 'json']),
        );
        expect(grant.roleRef).to.deep.include({ kind: 'ClusterRole', name: `${id}-cluster-admin` });
        expect(grant.subjects).to.deep.equal(binding.subjects);
      }
      const role = JSON.parse(await upstreamKubectl.ok(['get', 'clusterrole', `${id}-cluster-admin`, '-o', 'json']));
      expect(role.rules[0]).to.deep.include({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] });
    });

    it("stores the tenant's certificate and key, not its kubeconfig: every read answers the kubeconfig, no client's copy is stored, and one stored before is moved", async () => {
      const id = nextId();
      await createActive(id);
      const key = `/registry/tenant.kubezoo.io/tenants/${id}`;
      const held = async () => {
        const kv = (await store.get(key))!;
        return { object: JSON.parse(kv.value), revision: kv.modRevision };
      };
      const { object: stored } = await held();
      const kubeconfig = parseKubeconfig(await tenantKubeconfig(id));
      expect(stored.metadata.annotations).to.not.have.property(KUBECONFIG);
      // Stored as their bytes in base64, without PEM's armour and line breaks.
      expect(stored.metadata.annotations[CREDENTIALS]).to.not.include('-----');
      expect(storedCredentials(stored.metadata.annotations)).to.deep.equal({
        certPem: kubeconfig.certPem,
        keyPem: kubeconfig.keyPem,
      });
      expect(JSON.stringify(stored).length, 'the stored Tenant').to.be.lessThan(STORED_TENANT_LIMIT);

      // Get, list and watch answer the kubeconfig, and none of them the stored credentials.
      const api = await ApiClient.load(otherReplica().adminKubeconfig);
      try {
        const listed = (await api.request('GET', TENANTS)).body.items.find((t: any) => t.metadata.name === id);
        const watched = await api.request(
          'GET',
          `${TENANTS}?watch=true&fieldSelector=metadata.name%3D${id}&timeoutSeconds=1`,
        );
        const event = JSON.parse(watched.text.split('\n')[0]);
        // Each replica answers its own address where no --advertise-address names one for all.
        for (const answered of [listed, event.object]) {
          expect(answered.metadata.annotations).to.not.have.property(CREDENTIALS);
          expect(
            parseKubeconfig(Buffer.from(answered.metadata.annotations[KUBECONFIG], 'base64').toString()),
          ).to.deep.equal({ ...kubeconfig, server: otherReplica().url });
        }

        // A client's kubeconfig or credentials are not stored: what is read stays the tenant's own.
        await admin.ok(['annotate', 'tenant', id, `${KUBECONFIG}=Zm9v`, 'team=a', '--overwrite']);
        const patched = await api.request(
          'PATCH',
          `${TENANTS}/${id}`,
          { metadata: { annotations: { [CREDENTIALS]: 'sent' } } },
          { 'content-type': 'application/merge-patch+json' },
        );
        expect(patched.status, patched.text).to.equal(200);
        const replaced = JSON.parse(await admin.ok(['get', 'tenant', id, '-o', 'json']));
        await admin.ok(['replace', '-f', '-'], JSON.stringify(replaced));
        const { object: after } = await held();
        expect(after.metadata.annotations).to.not.have.property(KUBECONFIG);
        expect(after.metadata.annotations.team).to.equal('a');
        expect(after.metadata.annotations[CREDENTIALS]).to.equal(stored.metadata.annotations[CREDENTIALS]);
        expect(parseKubeconfig(await tenantKubeconfig(id))).to.deep.equal(kubeconfig);
      } finally {
        api.close();
      }

      // A Tenant as an earlier version stored it, its kubeconfig in the annotation: moved, with no new certificate.
      const { object: current, revision } = await held();
      const { [CREDENTIALS]: _credentials, ...annotations } = current.metadata.annotations;
      const legacy = renderKubeconfig({
        clusterName: 'paddock',
        server: replicas[0].url,
        caPem: kubeconfig.caPem,
        userName: id,
        certPem: kubeconfig.certPem,
        keyPem: kubeconfig.keyPem,
        contextName: `${id}@paddock`,
      });
      annotations[KUBECONFIG] = Buffer.from(legacy).toString('base64');
      await store.update(key, JSON.stringify({ ...current, metadata: { ...current.metadata, annotations } }), revision);
      const moved = await waitUntil('the stored kubeconfig moved', async () => {
        const { object } = await held();
        return object.metadata.annotations[KUBECONFIG] === undefined ? object : undefined;
      });
      expect(moved.metadata.annotations[CREDENTIALS]).to.equal(stored.metadata.annotations[CREDENTIALS]);
      expect(moved.status.certificateSerials).to.deep.equal(current.status.certificateSerials);
      expect(parseKubeconfig(await tenantKubeconfig(id))).to.deep.equal(kubeconfig);
    });

    it('refuses invalid tenant ids with 422 and kubectl-friendly causes', async () => {
      for (const bad of ['abc', 'abcdefg', 'ab_12c']) {
        const res = await admin.run(['apply', '-f', '-'], tenantYaml(bad));
        expect(res.code).to.equal(1);
        expect(res.stderr).to.contain(
          `The Tenant "${bad}" is invalid: metadata.name: Invalid value: "${bad}": a tenant id must be exactly 6 lowercase letters or digits`,
        );
      }
      const upper = await admin.run(['apply', '-f', '-'], tenantYaml('ABCDEF'));
      expect(upper.code).to.equal(1);
      expect(upper.stderr).to.contain('is invalid');
    });

    it('keeps tenants out of the admin API (403) and out of their discovery', async () => {
      const id = nextId();
      await createActive(id);
      const asTenant = await kubectlAs(await tenantKubeconfig(id), otherReplica());
      const forbidden = await asTenant.run(['get', '--raw', TENANTS]);
      expect(forbidden.code).to.equal(1);
      expect(forbidden.stderr).to.contain('Error from server (Forbidden)');
      const resources = await asTenant.ok(['api-resources']);
      expect(resources).to.not.contain('tenant.kubezoo.io');
      expect(resources).to.match(/^selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview$/m);
      await asTenant.dispose();
    });

    it('kubectl delete tenant removes every trace upstream, and the certificate is refused by every replica within a second', async () => {
      const id = nextId();
      await createActive(id);
      const asTenant = await kubectlAs(await tenantKubeconfig(id), otherReplica());
      await asTenant.ok(['auth', 'whoami']);
      const prefix = `${id}-`;
      await upstreamKubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'inside', namespace: `${prefix}default` },
        }),
      );
      await upstreamKubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `${prefix}extra` },
          rules: [],
        }),
      );
      await upstreamKubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `gizmos.${prefix}example.com` },
          spec: {
            group: `${prefix}example.com`,
            scope: 'Namespaced',
            names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        }),
      );
      // The second is the gateway's: from the delete's answer to the other replica's refusal, both
      // read in-process (a kubectl run is itself a few hundred ms on a busy machine, and counted
      // the test's load, not the replicas' revocation).
      const adminApi = await ApiClient.load(replicas[0].adminKubeconfig);
      const tenantApi = await ApiClient.load(asTenant.kubeconfig);
      try {
        const whoami = () =>
          tenantApi.request('POST', WHOAMI, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
        expect((await whoami()).status).to.equal(201);
        expect((await adminApi.request('DELETE', `${TENANTS}/${id}`)).status).to.equal(200);
        const deleted = performance.now();
        await waitUntil('certificate refused', async () => (await whoami()).status === 401, {
          timeout: 1000,
          interval: 10,
        });
        expect(performance.now() - deleted, 'refused by the other replica after the delete answered').to.be.lessThan(
          1000,
        );
      } finally {
        adminApi.close();
        tenantApi.close();
      }
      const refused = await asTenant.run(['auth', 'whoami']);
      expect(refused.stderr).to.contain('error: You must be logged in to the server (Unauthorized)');
      await waitUntil('tenant gone', async () => (await admin.run(['get', 'tenant', id])).code !== 0, {
        timeout: 15000,
        interval: 20,
      });
      const everything = await upstreamKubectl.ok([
        'get',
        'namespaces,clusterroles,clusterrolebindings,customresourcedefinitions',
        '-o',
        'name',
      ]);
      expect(everything.split('\n').filter((line) => line.includes(prefix))).to.deep.equal([]);
      await asTenant.dispose();
    });

    it("a ServiceAccount's token from kubectl create token is refused by every replica within a second of the account's deletion", async () => {
      const id = nextId();
      await createActive(id);
      const kubeconfig = await tenantKubeconfig(id);
      const asTenant = await kubectlAs(kubeconfig, replicas[0]);
      await asTenant.ok(['create', 'serviceaccount', 'ci']);
      await asTenant.ok(['create', 'role', 'reads', '--verb=get,list', '--resource=configmaps']);
      await asTenant.ok(['create', 'rolebinding', 'reads', '--role=reads', '--serviceaccount=default:ci']);
      const token = (await asTenant.ok(['create', 'token', 'ci'])).trim();
      const { caPem } = parseKubeconfig(kubeconfig);
      const clients = replicas.map((replica) => new RestClient(new URL(replica.url), { ca: caPem, token }));
      const tenantApi = await ApiClient.load(asTenant.kubeconfig);
      try {
        const answers = () =>
          Promise.all(
            clients.map(async (c) => (await c.request('GET', '/api/v1/namespaces/default/configmaps')).status),
          );
        await waitUntil('every replica takes the token', async () => (await answers()).every((code) => code === 200));
        expect((await tenantApi.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/ci')).status).to.equal(
          200,
        );
        const deleted = performance.now();
        await waitUntil('token refused by every replica', async () => (await answers()).every((code) => code === 401), {
          timeout: 2000,
          interval: 10,
        });
        expect(performance.now() - deleted, 'refused by every replica after the delete answered').to.be.lessThan(1000);
      } finally {
        for (const client of clients) client.close();
        tenantApi.close();
        await asTenant.dispose();
      }
    });

    it('rotation (paddock tenant rotate) revokes the old certificate and issues a working new one', async () => {
      const id = nextId();
      await createActive(id);
      const before = await kubectlAs(await tenantKubeconfig(id), otherReplica());
      await before.ok(['auth', 'whoami']);
      const rotate = spawn(
        process.execPath,
        [cli, 'tenant', 'rotate', id, '--kubeconfig', replicas[0].adminKubeconfig],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      rotate.stdout.on('data', (c: Buffer) => (output += c.toString()));
      rotate.stderr.on('data', (c: Buffer) => (output += c.toString()));
      const code = await new Promise((resolve) => rotate.once('exit', resolve));
      expect(code, output).to.equal(0);
      expect(output).to.match(
        new RegExp(
          `^tenant/${id} certificate rotated \\(serial [0-9a-f]+\\); the previous certificate is revoked$`,
          'm',
        ),
      );
      await waitUntil('old certificate refused', async () => (await before.run(['auth', 'whoami'])).code !== 0, {
        timeout: 1000,
        interval: 20,
      });
      const after = await kubectlAs(await tenantKubeconfig(id), otherReplica());
      expect(JSON.parse(await after.ok(['auth', 'whoami', '-o', 'json'])).status.userInfo.username).to.equal(
        `${id}-admin`,
      );
      await before.dispose();
      await after.dispose();
    });

    if (backend === 'etcd') {
      it('a replica killed in the middle of a deletion is finished by the other', async () => {
        const id = nextId();
        await createActive(id);
        const prefix = `${id}-`;
        // A finalizer on an object in the tenant's namespace holds the deletion until it is removed.
        await upstreamKubectl.ok(
          ['apply', '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'held', namespace: `${prefix}default`, finalizers: ['example.com/hold'] },
          }),
        );
        await admin.ok(['delete', 'tenant', id, '--wait=false']);
        await waitUntil(
          'deletion in progress',
          async () =>
            (await admin.ok(['get', 'tenant', id, '-o', 'jsonpath={.status.conditions[0].message}'])).includes(
              'waiting for',
            ),
          { timeout: 5000, interval: 20 },
        );

        const elections = new EtcdStore({ endpoints: [etcd!.endpoint], prefix: '/gateway' });
        const candidates = (await elections.list('/elections/tenant-controller/')).items.sort(
          (a, b) => a.createRevision - b.createRevision,
        );
        await elections.close();
        const leader = replicas.find((r) => candidates[0].value.includes(`_${r.pid}_`))!;
        const survivor = replicas.find((r) => r !== leader)!;
        await killAndWait(leader.child!, 'SIGKILL');
        await upstreamKubectl.ok([
          'patch',
          'configmap',
          'held',
          '-n',
          `${prefix}default`,
          '--type=json',
          '-p',
          '[{"op":"remove","path":"/metadata/finalizers"}]',
        ]);

        const survivorAdmin = await Kubectl.create(survivor.adminKubeconfig);
        await waitUntil(
          'tenant gone after hand-over',
          async () => (await survivorAdmin.run(['get', 'tenant', id])).code !== 0,
          { timeout: 15000, interval: 20 },
        );
        const everything = await upstreamKubectl.ok([
          'get',
          'namespaces,clusterroles,clusterrolebindings',
          '-o',
          'name',
        ]);
        expect(everything.split('\n').filter((line) => line.includes(prefix))).to.deep.equal([]);
        await survivorAdmin.dispose();
        const api = await ApiClient.load(survivor.adminKubeconfig);
        expect((await api.request('GET', `${TENANTS}/${id}`)).status).to.equal(404);
        api.close();
      });
    }
  });
}
