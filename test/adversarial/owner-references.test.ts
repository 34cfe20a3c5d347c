/**
 * Owner references stay inside the tenant (docs/isolation.md): tenant B has learnt the uid of
 * tenant A's ConfigMap and makes its own object a blocking dependent of it — `blockOwnerDeletion`
 * and a finalizer of its own — so that A's foreground deletion would wait on B. Through the gateway
 * the reference is refused; directly upstream (B's ServiceAccount token, as a workload of B's sends
 * it), the cluster's garbage collector takes it for what it is, a reference to an owner B's
 * namespace does not hold, and the gateway drops the reference the collector reports, so that it
 * no longer holds A's foreground deletion.
 */
import { expect } from 'chai';
import { upstreamToken } from '../support/upstream-token.js';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { parseKubeconfig } from '../../certs/index.js';
import type { ApiClient } from '../support/api-client.js';
import { eventually, waitUntil } from '../support/eventually.js';
import type { Kubectl } from '../support/kubectl.js';
import { encodeKubernetesProtobuf } from '../support/protobuf-encode.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const A = 'oraaaa';
const B = 'orbbbb';
const HOLD = 'example.com/hold';

function answerOf(req: ClientRequest, body?: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('adversarial: owner references stay inside the tenant', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let alice: Kubectl;
  let bob: Kubectl;
  /** The upstream cluster's admin, to look behind the gateway's back. */
  let member: ApiClient;
  let upstreamCa: string;
  let counter = 0;

  before(async () => {
    stage = await startTwoTenants('owners', [A, B]);
    [alice, bob] = stage.tenants.map((tenant) => tenant.kubectl) as [Kubectl, Kubectl];
    member = stage.member;
    upstreamCa = parseKubeconfig(stage.upstreamKubeconfig).caPem;
  });
  after(async () => {
    await stage?.stop();
  });

  /** A ConfigMap of A's; its uid is what B has learnt. */
  async function victim(): Promise<{ name: string; uid: string }> {
    const name = `precious-${++counter}`;
    await alice.ok(['create', 'configmap', name, '--from-literal=a=1']);
    const uid = (await alice.ok(['get', 'configmap', name, '-o', 'jsonpath={.metadata.uid}'])).trim();
    return { name, uid };
  }

  const dependent = (name: string, owner: { name: string; uid: string }, finalizers = [HOLD]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ...(finalizers.length ? { finalizers } : {}),
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid, blockOwnerDeletion: true },
      ],
    },
  });

  const upstreamConfigMap = (namespace: string, name: string) =>
    member.request('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`);

  it("through the gateway, a blocking owner reference to another tenant's object is 403, on create and on patch", async () => {
    const owner = await victim();
    const created = await bob.run(['create', '-f', '-'], JSON.stringify(dependent('hostage', owner)));
    expect(created.code, created.stdout).to.not.equal(0);
    expect(created.stderr).to.include('Forbidden');
    expect(created.stderr).to.include(
      "cannot set blockOwnerDeletion if an ownerReference refers to an object that is not the tenant's",
    );
    expect((await upstreamConfigMap(`${B}-default`, 'hostage')).status, 'nothing stored upstream').to.equal(404);

    // The same reference added to an object B has already.
    await bob.ok(['create', 'configmap', 'innocent', '--from-literal=a=1']);
    const patched = await bob.run([
      'patch',
      'configmap',
      'innocent',
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: dependent('innocent', owner).metadata }),
    ]);
    expect(patched.code, patched.stdout).to.not.equal(0);
    expect(patched.stderr).to.include('cannot set blockOwnerDeletion');
    const innocent = (await upstreamConfigMap(`${B}-default`, 'innocent')).body;
    expect(innocent.metadata.ownerReferences, 'the patch changed nothing upstream').to.equal(undefined);
    expect(innocent.metadata.finalizers).to.equal(undefined);

    // A's deletion is A's: foreground, it completes.
    await alice.ok(['delete', 'configmap', owner.name, '--cascade=foreground', '--timeout=60s']);
  });

  it('through the gateway, a protobuf create (as client-go sends one) with such a reference is 403 too', async () => {
    const owner = await victim();
    const client = RestClient.fromKubeconfig(stage.tenants[1].kubeconfig);
    try {
      const req = client.open('POST', '/api/v1/namespaces/default/configmaps', {
        'content-type': 'application/vnd.kubernetes.protobuf',
        accept: 'application/json',
      });
      const answer = await answerOf(req, encodeKubernetesProtobuf(dependent('hostage-pb', owner)));
      expect(answer.status, answer.body).to.equal(403);
      expect(JSON.parse(answer.body).message).to.include('cannot set blockOwnerDeletion');
    } finally {
      client.close();
    }
    expect((await upstreamConfigMap(`${B}-default`, 'hostage-pb')).status, 'nothing stored upstream').to.equal(404);
  });

  it('through the gateway, blocking owner references to the tenant\u2019s own objects still work, and updates keep them', async () => {
    const own = { name: `own-${++counter}`, uid: '' };
    await bob.ok(['create', 'configmap', own.name, '--from-literal=a=1']);
    own.uid = (await bob.ok(['get', 'configmap', own.name, '-o', 'jsonpath={.metadata.uid}'])).trim();
    await bob.ok(['create', '-f', '-'], JSON.stringify(dependent('kept', own, [])));
    await bob.ok(['label', 'configmap', 'kept', 'touched=yes']);
    await bob.ok(['annotate', 'configmap', 'kept', 'note=still-mine', '--overwrite']);
    const kept = (await upstreamConfigMap(`${B}-default`, 'kept')).body;
    expect(kept.metadata.ownerReferences[0]).to.include({ uid: own.uid, blockOwnerDeletion: true });
    await bob.ok(['delete', 'configmap', own.name, '--cascade=foreground', '--timeout=60s']);
    expect((await upstreamConfigMap(`${B}-default`, 'kept')).status, 'collected with its owner').to.equal(404);
  });

  describe('directly upstream, with a token of B', () => {
    let token: string;

    before(async () => {
      await bob.ok(['create', 'serviceaccount', 'robot']);
      await bob.ok([
        'create',
        'clusterrolebinding',
        'robot-is-admin',
        '--clusterrole=cluster-admin',
        '--serviceaccount=default:robot',
      ]);
      token = await upstreamToken(member, `${B}-default`, 'robot');
    });

    /** B creates the dependent in its own namespace straight on the cluster, as a workload of B's can. */
    async function createUpstream(object: unknown): Promise<void> {
      const server = member.server;
      const body = JSON.stringify(object);
      await eventually(
        () =>
          answerOf(
            request({
              host: server.hostname,
              port: server.port,
              method: 'POST',
              path: `/api/v1/namespaces/${B}-default/configmaps`,
              ca: upstreamCa,
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                accept: 'application/json',
              },
            }),
            body,
          ),
        (res) => expect(res.status, res.body).to.equal(201),
      );
    }

    async function invalidNamespaceEvents(uid: string): Promise<any[]> {
      const events = (await member.request('GET', `/api/v1/namespaces/${B}-default/events`)).body.items as any[];
      return events.filter((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.uid === uid);
    }

    it("a dependent in B's namespace naming A's uid is an absent owner's: collected at once and reported", async () => {
      const owner = await victim();
      await createUpstream(dependent('squatter', owner));
      const squatter = (await upstreamConfigMap(`${B}-default`, 'squatter')).body;
      await waitUntil(
        'the squatter deleted by the garbage collector',
        async () => Boolean((await upstreamConfigMap(`${B}-default`, 'squatter')).body.metadata?.deletionTimestamp),
        { timeout: 30_000 },
      );
      await waitUntil(
        'the OwnerRefInvalidNamespace event',
        async () => (await invalidNamespaceEvents(squatter.metadata.uid)).length > 0,
        { timeout: 30_000 },
      );
      const [event] = await invalidNamespaceEvents(squatter.metadata.uid);
      expect(event.type).to.equal('Warning');
      expect(event.message).to.equal(
        `ownerRef [v1/ConfigMap, namespace: ${B}-default, name: ${owner.name}, uid: ${owner.uid}] does not exist in namespace "${B}-default"`,
      );
      // A's object is untouched by it.
      expect((await alice.ok(['get', 'configmap', owner.name, '-o', 'jsonpath={.metadata.uid}'])).trim()).to.equal(
        owner.uid,
      );
    });

    it("held by a finalizer of its own, the dependent does not hold A's foreground deletion: the gateway drops the reference", async () => {
      const owner = await victim();
      await createUpstream(dependent('hostage-direct', owner));
      // kube's collector would keep A waiting as long as B's finalizer stays; the gateway heals B's dependent.
      await alice.ok(['delete', 'configmap', owner.name, '--cascade=foreground', '--timeout=60s']);
      expect((await upstreamConfigMap(`${A}-default`, owner.name)).status, "A's object is gone").to.equal(404);
      const hostage = (await upstreamConfigMap(`${B}-default`, 'hostage-direct')).body;
      const uids = ((hostage.metadata.ownerReferences ?? []) as { uid: string }[]).map((ref) => ref.uid);
      expect(uids, "B's dependent no longer names A's uid").to.not.include(owner.uid);
      expect(hostage.metadata.finalizers, "B's finalizer is B's business").to.deep.equal([HOLD]);
    });

    it("the same under another kind's coordinates (a ClusterRole named as A's ConfigMap, with its uid)", async () => {
      const owner = await victim();
      const disguised = dependent('disguised', owner);
      disguised.metadata.ownerReferences[0] = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        name: owner.name,
        uid: owner.uid,
        blockOwnerDeletion: true,
      };
      await createUpstream(disguised);
      await alice.ok(['delete', 'configmap', owner.name, '--cascade=foreground', '--timeout=60s']);
      const held = (await upstreamConfigMap(`${B}-default`, 'disguised')).body;
      expect(held.metadata.ownerReferences, 'the reference is dropped').to.equal(undefined);
      expect(held.metadata.finalizers).to.deep.equal([HOLD]);
    });

    it("a dependent in a namespace of no tenant's is the admin's business: left as it is", async () => {
      const owner = await victim();
      const admins = dependent('admins', owner);
      expect((await member.request('POST', '/api/v1/namespaces/default/configmaps', admins)).status).to.equal(201);
      const uid = (await upstreamConfigMap('default', 'admins')).body.metadata.uid;
      await waitUntil(
        "the admin's dependent reported",
        async () => {
          const events = (await member.request('GET', '/api/v1/namespaces/default/events')).body.items as any[];
          return events.some((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.uid === uid);
        },
        { timeout: 30_000 },
      );
      // Reported after it, and healed one at a time in order: once B's is healed, the admin's was looked at.
      await createUpstream(dependent('marker', owner));
      await waitUntil(
        "B's dependent healed",
        async () => (await upstreamConfigMap(`${B}-default`, 'marker')).body.metadata.ownerReferences === undefined,
        { timeout: 30_000 },
      );
      const kept = (await upstreamConfigMap('default', 'admins')).body;
      expect(kept.metadata.ownerReferences[0].uid, "the admin's reference stays").to.equal(owner.uid);
      await member.request(
        'PATCH',
        '/api/v1/namespaces/default/configmaps/admins',
        [{ op: 'remove', path: '/metadata/finalizers' }],
        { 'Content-Type': 'application/json-patch+json' },
      );
    });

    it("without a finalizer of its own, the dependent is gone before A acts, and A's foreground deletion completes", async () => {
      const owner = await victim();
      await createUpstream(dependent('lodger', owner, []));
      await waitUntil(
        'the lodger collected',
        async () => (await upstreamConfigMap(`${B}-default`, 'lodger')).status === 404,
        { timeout: 30_000 },
      );
      expect((await upstreamConfigMap(`${A}-default`, owner.name)).status, 'while its owner lives').to.equal(200);
      await alice.ok(['delete', 'configmap', owner.name, '--cascade=foreground', '--timeout=60s']);
    });
  });
});
