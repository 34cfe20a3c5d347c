/**
 * Least privilege upstream (docs/isolation.md): a tenant's identities hold rights upstream only
 * inside the tenant's namespaces, so a gap in the conversion, or a token used against the
 * cluster directly, cannot cross tenants; cluster-scope requests are decided by the gateway from
 * the tenant's own RBAC; the tenant's space heals when its role, binding or grants are deleted.
 */
import { expect } from 'chai';
import { upstreamToken } from '../support/upstream-token.js';
import type { ClientRequest } from 'node:http';
import { request } from 'node:https';
import { parseKubeconfig } from '../../certs/index.js';
import { impersonation } from '../../gateway/auth/tenant-credentials.js';
import { dormantRoleName } from '../../translate/kinds/rbac.js';
import type { ApiClient } from '../support/api-client.js';
import type { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';
import { eventually } from '../support/eventually.js';

const A = 'lpaaaa';
const B = 'lpbbbb';

/** The status and text of the answer to a request, which this sends. */
function answerOf(req: ClientRequest): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('adversarial: least privilege upstream', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let alice: Kubectl;
  let bob: Kubectl;
  /** The upstream cluster's admin: with impersonation headers, any identity upstream. */
  let member: ApiClient;
  let upstreamCa: string;

  before(async () => {
    stage = await startTwoTenants('lp', [A, B]);
    [alice, bob] = stage.tenants.map((tenant) => tenant.kubectl) as [Kubectl, Kubectl];
    member = stage.member;
    upstreamCa = parseKubeconfig(stage.upstreamKubeconfig).caPem;
    await bob.ok(['create', 'secret', 'generic', 'crown-jewels', '--from-literal=password=bobs-secret']);
  });
  after(async () => {
    await stage?.stop();
  });

  /** A request straight to the upstream cluster with a bearer token, as a workload there would send it. */
  function withToken(token: string, path: string): Promise<{ status: number; body: string }> {
    const server = member.server;
    return answerOf(
      request({
        host: server.hostname,
        port: server.port,
        path,
        ca: upstreamCa,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }),
    );
  }

  it('a tenant ServiceAccount bound to cluster-admin by a ClusterRoleBinding: its token from the gateway is none upstream, its own upstream token cannot read another tenant\u2019s Secrets', async () => {
    await alice.ok(['create', 'serviceaccount', 'robot']);
    await alice.ok([
      'create',
      'clusterrolebinding',
      'robot-is-admin',
      '--clusterrole=cluster-admin',
      '--serviceaccount=default:robot',
    ]);
    // A token issued through the gateway is for the gateway's audience: no credential upstream.
    const viaGateway = (await alice.ok(['create', 'token', 'robot'])).trim();
    const refused = await withToken(viaGateway, `/api/v1/namespaces/${A}-default/secrets`);
    expect(refused.status, refused.body).to.equal(401);
    const token = await upstreamToken(member, `${A}-default`, 'robot');
    // Inside its own tenant the binding holds, against the cluster directly too.
    await eventually(
      () => withToken(token, `/api/v1/namespaces/${A}-default/secrets`),
      (res) => expect(res.status, res.body).to.equal(200),
    );
    const other = await withToken(token, `/api/v1/namespaces/${B}-default/secrets/crown-jewels`);
    expect(other.status, other.body).to.equal(403);
    expect(other.body).not.to.include('bobs-secret');
    const everywhere = await withToken(token, '/api/v1/secrets');
    expect(everywhere.status, everywhere.body).to.equal(403);
    const bindings = await withToken(token, '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings');
    expect(bindings.status, 'a tenant token cannot even list the cluster\u2019s bindings').to.equal(403);
  });

  it('the tenant\u2019s own user holds no right upstream outside its namespaces (a SubjectAccessReview upstream)', async () => {
    const allows = async (attributes: Record<string, string>) => {
      const review = await member.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: `${A}-admin`,
          groups: [`${A}-system:authenticated`, 'system:authenticated'],
          resourceAttributes: attributes,
        },
      });
      expect(review.status, review.text).to.equal(201);
      return review.body.status.allowed === true;
    };
    expect(await allows({ namespace: `${A}-default`, verb: 'get', resource: 'secrets' }), 'its own namespace').to.equal(
      true,
    );
    expect(
      await allows({ namespace: `${B}-default`, verb: 'get', resource: 'secrets' }),
      'the other tenant\u2019s namespace',
    ).to.equal(false);
    expect(await allows({ verb: 'list', resource: 'secrets' }), 'secrets cluster-wide').to.equal(false);
    expect(
      await allows({ verb: 'create', resource: 'clusterrolebindings', group: 'rbac.authorization.k8s.io' }),
      'cluster-wide bindings',
    ).to.equal(false);
    expect(await allows({ verb: 'create', resource: 'namespaces' }), 'namespaces').to.equal(false);
  });

  it('with the namespace conversion turned off, the upstream itself refuses the cross-tenant read', async () => {
    // What the gateway would send for `kubectl get secret crown-jewels -n <B>-default` by tenant A if
    // the namespace rule (request.ts) were disabled: the path unprefixed, the tenant's identity as impersonation.
    const headers = impersonation({ kind: 'tenant', tenant: A, user: `${A}-admin`, groups: [], serial: '' });
    const flat: Record<string, string> = {};
    for (const [key, value] of Object.entries(headers)) if (typeof value === 'string') flat[key] = value;
    const groups = ([] as string[]).concat(headers['impersonate-group'] ?? []);
    const req = member.open('GET', `/api/v1/namespaces/${B}-default/secrets/crown-jewels`, {
      ...flat,
      accept: 'application/json',
    });
    for (const group of groups) req.appendHeader('impersonate-group', group);
    const raw = await answerOf(req);
    expect(raw.status, raw.body).to.equal(403);
    expect(raw.body).not.to.include('bobs-secret');
  });

  it('cluster-scope requests are decided by the tenant\u2019s own RBAC in the gateway: namespaces, -A, and can-i tell the truth', async () => {
    expect(await alice.ok(['get', 'namespaces', '-o', 'name'])).to.include('namespace/default');
    expect((await alice.ok(['get', 'secrets', '-A', '-o', 'name'])).trim()).not.to.include('crown-jewels');
    expect((await alice.run(['auth', 'can-i', 'list', 'namespaces'])).stdout.trim()).to.equal('yes');
    expect((await alice.run(['auth', 'can-i', 'get', 'pods', '--all-namespaces'])).stdout.trim()).to.equal('yes');
    const nodes = await alice.run(['auth', 'can-i', 'create', 'nodes']);
    expect(nodes.stdout.trim()).to.equal('no - nodes are shared by all tenants and read-only');
    expect(nodes.code).to.equal(1);
  });

  it('-A needs a cluster-wide right in the tenant, as in kube: RoleBindings in every namespace are not enough (a SubjectAccessReview through the gateway)', async () => {
    await alice.ok(['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await alice.ok([
        'create',
        'rolebinding',
        'carol-reads-pods',
        '--clusterrole=pod-reader',
        '--user=carol',
        '-n',
        namespace,
      ]);
    }
    await alice.ok(['create', 'clusterrolebinding', 'dan-reads-pods', '--clusterrole=pod-reader', '--user=dan']);
    const review = async (user: string, namespace: string) => {
      const answer = JSON.parse(
        await alice.ok(
          ['create', '-o', 'json', '-f', '-'],
          JSON.stringify({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user, resourceAttributes: { verb: 'list', resource: 'pods', namespace } },
          }),
        ),
      );
      return answer.status.allowed === true;
    };
    expect(await review('carol', 'default'), 'carol in one namespace').to.equal(true);
    expect(await review('carol', ''), 'carol across all namespaces').to.equal(false);
    expect(await review('dan', ''), 'dan, bound cluster-wide, across all namespaces').to.equal(true);
    expect(await review('dan', 'kube-system'), 'dan in any namespace').to.equal(true);
  });

  it('the tenant\u2019s space heals: its deleted cluster-admin binding and role, and a deleted grant, are back within seconds', async () => {
    // The binding is the only grant of the tenant's admin: deleting it locks the tenant out until it heals.
    await alice.ok(['delete', 'clusterrolebinding', 'cluster-admin']);
    await eventually(
      () => alice.run(['get', 'configmaps']),
      (res) => expect(res.code, res.stderr).to.equal(0),
    );
    // The gateway's view of the tenant's bindings may be a second behind the healing replica's write.
    await eventually(
      () => alice.run(['get', 'clusterrolebinding', 'cluster-admin', '-o', 'jsonpath={.roleRef.name}']),
      (res) => expect(res.stdout).to.equal('cluster-admin'),
    );

    // Deleted upstream behind the gateway's back: the role, and a grant in one namespace.
    expect(
      (await member.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${A}-cluster-admin`)).status,
    ).to.equal(200);
    expect(
      (
        await member.request(
          'DELETE',
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${A}-kube-public/rolebindings/paddock:cluster-admin`,
        )
      ).status,
    ).to.equal(200);
    await eventually(
      async () => [
        (await member.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${A}-cluster-admin`)).status,
        (
          await member.request(
            'GET',
            `/apis/rbac.authorization.k8s.io/v1/namespaces/${A}-kube-public/rolebindings/paddock:cluster-admin`,
          )
        ).status,
      ],
      (statuses) => expect(statuses).to.deep.equal([200, 200]),
    );
  });

  it('the tenant\u2019s space heals what is changed behind its back too: an edited grant, a live binding, a stale grant', async () => {
    // One after the other, each healed before the next: each must be seen by the heal pass itself, not found by a pass another change started.
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const grants = `${rbac}/namespaces/${A}-default/rolebindings`;
    const grant = (await member.request('GET', `${grants}/paddock:cluster-admin`)).body;
    const subjects = grant.subjects;
    // Another tenant's admin slipped into A's grant, upstream.
    const edited = await member.request('PUT', `${grants}/paddock:cluster-admin`, {
      ...grant,
      subjects: [...subjects, { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${B}-admin` }],
    });
    expect(edited.status, edited.text).to.equal(200);
    await eventually(
      async () => (await member.request('GET', `${grants}/paddock:cluster-admin`)).body?.subjects,
      (now) => expect(now).to.deep.equal(subjects),
    );

    // A live binding of A's own role at the cluster scope, as bindings were made before they were
    // dormant and stored as RoleBindings: moved to A's kube-system, dormant.
    const live = await member.request('POST', `${rbac}/clusterrolebindings`, {
      metadata: { name: `${A}-live` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${A}-cluster-admin` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${A}-admin` }],
    });
    expect(live.status, live.text).to.equal(201);
    const stored = `${rbac}/namespaces/${A}-kube-system/rolebindings/paddock.clusterrolebinding:live`;
    await eventually(
      async () => [
        (await member.request('GET', `${rbac}/clusterrolebindings/${A}-live`)).status,
        (await member.request('GET', stored)).body?.roleRef?.name,
        (await member.request('GET', `${grants}/paddock:live`)).status,
      ],
      (now) => expect(now).to.deep.equal([404, dormantRoleName(A, 'cluster-admin'), 200]),
    );
    expect(await alice.ok(['get', 'clusterrolebinding', 'live', '-o', 'jsonpath={.roleRef.name}'])).to.equal(
      'cluster-admin',
    );

    // A live binding where they are stored: made dormant there.
    const liveStored = await member.request('POST', `${rbac}/namespaces/${A}-kube-system/rolebindings`, {
      metadata: { name: 'paddock.clusterrolebinding:live2', labels: { 'kubezoo.io/cluster-role-binding-of': A } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${A}-cluster-admin` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${A}-admin` }],
    });
    expect(liveStored.status, liveStored.text).to.equal(201);
    await eventually(
      async () => (await member.request('GET', `${stored}2`)).body?.roleRef?.name,
      (now) => expect(now).to.equal(dormantRoleName(A, 'cluster-admin')),
    );

    // A grant of no binding of A's.
    const stale = await member.request('POST', grants, {
      metadata: { name: 'paddock:gone', labels: { 'kubezoo.io/tenant': A } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${A}-cluster-admin` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `${B}-admin` }],
    });
    expect(stale.status, stale.text).to.equal(201);
    await eventually(
      async () => (await member.request('GET', `${grants}/paddock:gone`)).status,
      (now) => expect(now).to.equal(404),
    );
  });

  it('the gateway\u2019s grants are neither visible to the tenant nor theirs to change', async () => {
    expect(await alice.ok(['get', 'rolebindings', '-o', 'name'])).not.to.include('paddock');
    const byName = await alice.run(['delete', 'rolebinding', 'paddock:cluster-admin']);
    expect(byName.code).not.to.equal(0);
    expect(byName.stderr).to.include('NotFound');
    await alice.ok(['delete', 'rolebindings', '--all']);
    expect(
      (
        await member.request(
          'GET',
          `/apis/rbac.authorization.k8s.io/v1/namespaces/${A}-default/rolebindings/paddock:cluster-admin`,
        )
      ).status,
      'delete --all leaves the grant',
    ).to.equal(200);
    const made = await alice.run([
      'create',
      'rolebinding',
      'paddock:mine',
      '--clusterrole=cluster-admin',
      '--user=admin',
    ]);
    expect(made.code).not.to.equal(0);
    expect(made.stderr).to.include('reserved');
  });
});
