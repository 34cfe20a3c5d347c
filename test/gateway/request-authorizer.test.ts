import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { RbacChangeFeed } from '../../gateway/auth/rbac-change-feed.js';
import { rbacWritesOf } from '../../gateway/auth/rbac-writes.js';
import { RequestAuthorizer, type CachedReadQuestion } from '../../gateway/auth/request-authorizer.js';
import { SUBJECT_ACCESS_REVIEWS } from '../../gateway/auth/subject-access-review.js';
import { TenantAuthorizer } from '../../gateway/auth/tenant-authorizer.js';
import { cachedObjectInformers, type CachedObjectInformers } from '../../search/cached-object-informers.js';
import type { TenantUserIdentity } from '../../tenants/upstream-identity.js';
import { tenantContext, type TenantContext } from '../../translate/context.js';
import { eventually, sleep } from '../support/eventually.js';
import { kindScope } from '../support/kind-scope.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const A = 'cra1aa';
const B = 'cra2bb';
/** Longer than any test: a decision that changes did so because the RBAC watch dropped it. */
const NEVER_EXPIRES_MS = 3_600_000;

describe('gateway: cached-read authorization (as the upstream would decide, kept until RBAC changes)', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let admin: RestClient;
  /** The cluster's shared informers, as its connection holds them: every authorizer here follows the same ones. */
  let informers: CachedObjectInformers;
  let authorizer: RequestAuthorizer;
  /** SubjectAccessReviews the devcluster was asked. */
  let reviews = 0;
  /** Watches of RoleBindings held (by clients that mark their requests `x-test-hold`), released at the end of their test. */
  const held: (() => void)[] = [];
  const ctxA = tenantContext(A, kindScope());
  const ctxB = tenantContext(B, kindScope());
  const adminOf = (tenant: string): TenantUserIdentity => ({ tenant, user: `${tenant}-admin`, groups: [] });
  const bob: TenantUserIdentity = { tenant: A, user: `${A}-bob`, groups: ['dev'] };
  /** A cluster as its state holds it: the RBAC informers' feed, read by its cluster-scope authorizer; by default this file's client and informers. */
  const cluster = (client = admin, from = informers) => {
    const rbac = new RbacChangeFeed(from);
    return { name: 'member1', admin: client, rbac, authorizer: new TenantAuthorizer(client, rbac) };
  };
  const ask = (q: CachedReadQuestion, who = bob, ctx: TenantContext = ctxA, on = authorizer) =>
    on.authorize(ctx, who, q);
  const allowed = async (q: CachedReadQuestion, who = bob, ctx: TenantContext = ctxA) =>
    (await ask(q, who, ctx)).allowed;
  const kubectlA = () => stage.tenants[0].kubectl;

  before(async () => {
    stage = await startTwoTenants('cached-read-authz', [A, B], {
      beforeRequest: (req) => {
        if (req.method === 'POST' && req.url?.startsWith(SUBJECT_ACCESS_REVIEWS)) reviews++;
        if (req.headers['x-test-hold'] && /\/rolebindings\?.*watch=/.test(req.url ?? ''))
          return new Promise<void>((resolve) => held.push(resolve));
      },
    });
    admin = RestClient.fromKubeconfig(stage.upstreamKubeconfig);
    informers = cachedObjectInformers('member1', admin);
    authorizer = new RequestAuthorizer(cluster(), { ttlMs: NEVER_EXPIRES_MS });
    authorizer.start();
    expect(await authorizer.synced()).to.equal(true);
  });

  after(async () => {
    authorizer?.stop();
    informers?.stop();
    await stage?.stop();
  });

  it('allows the tenant admin in its namespace, and denies a user without a binding with kube-apiserver’s message in the tenant’s terms', async () => {
    expect(await allowed({ verb: 'list', group: '', resource: 'pods', namespace: 'default' }, adminOf(A))).to.equal(
      true,
    );
    expect(
      await allowed(
        { verb: 'get', group: '', resource: 'configmaps', namespace: 'kube-system', name: 'x' },
        adminOf(A),
      ),
    ).to.equal(true);
    const denial = await ask({ verb: 'list', group: '', resource: 'pods', namespace: 'default' });
    expect(denial.allowed).to.equal(false);
    expect(denial.message).to.equal(
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
    );
  });

  it('a RoleBinding added allows at once the informer sees it, and its removal takes the access away again', async () => {
    const read: CachedReadQuestion = { verb: 'watch', group: '', resource: 'pods', namespace: 'default' };
    expect(await allowed(read)).to.equal(false);
    await kubectlA().ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods', '-n', 'default']);
    await kubectlA().ok(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob', '-n', 'default']);
    await eventually(
      () => allowed(read),
      (yes) => expect(yes, 'allowed once the RoleBinding is seen').to.equal(true),
    );
    // The same question in another namespace of the tenant: the binding is only in default.
    expect(await allowed({ ...read, namespace: 'kube-public' })).to.equal(false);
    await kubectlA().ok(['delete', 'rolebinding', 'bob-reads', '-n', 'default']);
    await eventually(
      () => allowed(read),
      (yes) => expect(yes, 'denied once the deletion is seen').to.equal(false),
    );
  });

  it('prefixes a CRD group in the review: a Role on the tenant’s own group allows its custom resources', async () => {
    const read: CachedReadQuestion = {
      verb: 'list',
      group: 'stable.example.com',
      resource: 'crontabs',
      namespace: 'default',
    };
    expect(await allowed(read)).to.equal(false);
    await kubectlA().ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: 'crontab-reader', namespace: 'default' },
            rules: [{ apiGroups: ['stable.example.com'], resources: ['crontabs'], verbs: ['list'] }],
          },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'bob-crontabs', namespace: 'default' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'crontab-reader' },
            subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
          },
        ],
      }),
    );
    await eventually(
      () => allowed(read),
      (yes) => expect(yes).to.equal(true),
    );
  });

  it('-A needs a cluster-wide grant, as in kube: denied with a RoleBinding only, allowed with a ClusterRoleBinding', async () => {
    const everywhere: CachedReadQuestion = { verb: 'list', group: '', resource: 'configmaps', namespace: '' };
    await kubectlA().ok(['create', 'role', 'cm-reader', '--verb=list', '--resource=configmaps', '-n', 'default']);
    await kubectlA().ok(['create', 'rolebinding', 'bob-cm', '--role=cm-reader', '--user=bob', '-n', 'default']);
    await eventually(
      () => allowed({ ...everywhere, namespace: 'default' }),
      (yes) => expect(yes).to.equal(true),
    );
    const denial = await ask(everywhere);
    expect(denial.allowed).to.equal(false);
    expect(denial.message).to.equal(
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope',
    );
    expect(await allowed(everywhere, adminOf(A)), 'the tenant admin holds cluster-admin in its view').to.equal(true);
    await kubectlA().ok(['create', 'clusterrole', 'cm-lister', '--verb=list', '--resource=configmaps']);
    await kubectlA().ok(['create', 'clusterrolebinding', 'bob-cm-everywhere', '--clusterrole=cm-lister', '--user=bob']);
    await eventually(
      () => allowed(everywhere),
      (yes) => expect(yes, 'allowed once the ClusterRoleBinding is seen').to.equal(true),
    );
    // A cluster-scoped kind is decided the same way: the grant names configmaps only.
    expect(await allowed({ verb: 'list', group: '', resource: 'namespaces', namespace: '' })).to.equal(false);
  });

  it('never allows a namespace of the other tenant, nor the admin’s groups, whatever the tenant’s own rights', async () => {
    expect(
      await allowed({ verb: 'list', group: '', resource: 'pods', namespace: 'default' }, adminOf(B), ctxB),
    ).to.equal(true);
    for (const namespace of [`${B}-default`, `${B}-kube-system`]) {
      const denial = await ask({ verb: 'list', group: '', resource: 'pods', namespace }, adminOf(A));
      expect(denial.allowed, namespace).to.equal(false);
      expect(denial.message).to.not.contain(`${A}-`);
    }
    const adminGroup = await ask(
      { verb: 'list', group: 'cluster.karmada.io', resource: 'clusters', namespace: '' },
      adminOf(A),
    );
    expect(adminGroup.allowed, 'the admin’s groups, though the tenant admin holds * on * in its view').to.equal(false);
    const refusal = await ask(
      { verb: 'list', group: '', resource: 'pods', namespace: 'default' },
      adminOf(A),
      ctxB,
    ).catch((err: unknown) => err);
    expect(String(refusal)).to.contain(`user ${A}-admin is not of tenant ${B}`);
  });

  it('asks one SubjectAccessReview for many concurrent identical questions, and none while the answer is kept', async () => {
    const read: CachedReadQuestion = {
      verb: 'get',
      group: '',
      resource: 'secrets',
      namespace: 'default',
      name: 'burst',
    };
    const before = reviews;
    const answers = await Promise.all(Array.from({ length: 50 }, () => allowed(read, adminOf(A))));
    expect(answers).to.deep.equal(Array(50).fill(true));
    expect(reviews - before).to.equal(1);
    expect(await allowed(read, adminOf(A))).to.equal(true);
    expect(reviews - before, 'the kept answer').to.equal(1);
    expect(await allowed({ ...read, name: 'other' }, adminOf(A))).to.equal(true);
    expect(reviews - before, 'another name is another question').to.equal(2);
  });

  it('a Role change drops only its tenant’s decisions; a ClusterRoleBinding change drops every tenant’s', async () => {
    const readB: CachedReadQuestion = { verb: 'list', group: '', resource: 'endpoints', namespace: 'default' };
    const readA: CachedReadQuestion = { verb: 'list', group: '', resource: 'endpoints', namespace: 'default' };
    expect(await allowed(readB, adminOf(B), ctxB)).to.equal(true);
    expect(await allowed(readA)).to.equal(false);
    const before = reviews;
    await kubectlA().ok(['create', 'role', 'ep-reader', '--verb=list', '--resource=endpoints', '-n', 'default']);
    await kubectlA().ok(['create', 'rolebinding', 'bob-ep', '--role=ep-reader', '--user=bob', '-n', 'default']);
    await eventually(
      () => allowed(readA),
      (yes) => expect(yes).to.equal(true),
    );
    const afterA = reviews;
    expect(afterA - before, 'tenant A asked again').to.be.greaterThan(0);
    expect(await allowed(readB, adminOf(B), ctxB)).to.equal(true);
    expect(reviews, 'tenant B’s decision was kept').to.equal(afterA);
    await kubectlA().ok(['create', 'clusterrole', 'ep-lister', '--verb=list', '--resource=endpoints']);
    await kubectlA().ok(['create', 'clusterrolebinding', 'nobody-ep', '--clusterrole=ep-lister', '--user=nobody']);
    await eventually(
      async () => {
        const asked = reviews;
        await allowed(readB, adminOf(B), ctxB);
        return reviews - asked;
      },
      (asked) => expect(asked, 'tenant B asks again once the ClusterRoleBinding is seen').to.equal(1),
    );
  });

  it('asks again once the TTL has passed', async () => {
    const shortLived = new RequestAuthorizer(cluster(), { ttlMs: 1 });
    shortLived.start();
    try {
      expect(await shortLived.synced()).to.equal(true);
      const read: CachedReadQuestion = { verb: 'list', group: '', resource: 'pods', namespace: 'kube-public' };
      const before = reviews;
      await ask(read, adminOf(A), ctxA, shortLived);
      await sleep(50);
      await ask(read, adminOf(A), ctxA, shortLived);
      expect(reviews - before).to.equal(2);
    } finally {
      shortLived.stop();
    }
  });

  it('keeps at most maxDecisions, the least recently used going first', async () => {
    const bounded = new RequestAuthorizer(cluster(), { ttlMs: NEVER_EXPIRES_MS, maxDecisions: 3 });
    bounded.start();
    try {
      expect(await bounded.synced()).to.equal(true);
      const question = (i: number): CachedReadQuestion => ({
        verb: 'get',
        group: '',
        resource: 'configmaps',
        namespace: 'default',
        name: `cm-${i}`,
      });
      for (let i = 0; i < 6; i++) await ask(question(i), adminOf(A), ctxA, bounded);
      expect(bounded.size).to.equal(3);
      const before = reviews;
      await ask(question(5), adminOf(A), ctxA, bounded);
      expect(reviews - before, 'a recent one is kept').to.equal(0);
      await ask(question(0), adminOf(A), ctxA, bounded);
      expect(reviews - before, 'the first one was evicted').to.equal(1);
      expect(bounded.size).to.equal(3);
    } finally {
      bounded.stop();
    }
  });

  it('keeps nothing before it follows the RBAC objects: a change could go unseen', async () => {
    const unstarted = new RequestAuthorizer(cluster(), { ttlMs: NEVER_EXPIRES_MS });
    const read: CachedReadQuestion = { verb: 'list', group: '', resource: 'services', namespace: 'default' };
    const before = reviews;
    expect(await ask(read, adminOf(A), ctxA, unstarted)).to.deep.include({ allowed: true });
    expect(await ask(read, adminOf(A), ctxA, unstarted)).to.deep.include({ allowed: true });
    expect(reviews - before).to.equal(2);
    expect(unstarted.size).to.equal(0);
  });

  it('a SubjectAccessReview’s user is asked about with its groups alone, and its decision is kept apart from the same user’s requests', async () => {
    await kubectlA().ok(['create', 'clusterrole', 'pv-lister', '--verb=list', '--resource=persistentvolumes']);
    await kubectlA().ok([
      'create',
      'clusterrolebinding',
      'everyone-lists-pvs',
      '--clusterrole=pv-lister',
      '--group=system:authenticated',
    ]);
    const listPvs = { verb: 'list', group: '', resource: 'persistentvolumes', namespace: '' };
    await eventually(
      () => authorizer.decideHere(ctxA, bob, listPvs),
      (decision) => expect(decision.allowed, 'a request: system:authenticated is added').to.equal(true),
    );
    const reviewed = await authorizer.decideHere(ctxA, { ...bob, exactGroups: true }, listPvs);
    expect(reviewed.allowed, 'a review naming only the group dev').to.equal(false);
    expect((await authorizer.decideHere(ctxA, bob, listPvs)).allowed).to.equal(true);
  });

  it('decides at the cluster scope from the informers: no RBAC read upstream while they are current, reads before', async () => {
    const reads: string[] = [];
    const observed = RestClient.fromKubeconfig(stage.upstreamKubeconfig, (method, path) => {
      if (path.startsWith('/apis/rbac.authorization.k8s.io/') && !path.includes('watch='))
        reads.push(`${method} ${path}`);
    });
    const own = new RequestAuthorizer(cluster(observed));
    const question = (name: string) => ({ verb: 'get', group: '', resource: 'namespaces', namespace: '', name });
    try {
      expect((await own.decideHere(ctxA, adminOf(A), question('before'))).allowed).to.equal(true);
      expect(reads.length, 'not yet following the informers: the cluster is read').to.be.above(0);
      own.start();
      expect(await own.synced()).to.equal(true);
      reads.length = 0;
      for (const name of ['one', 'two', 'three']) {
        expect((await own.decideHere(ctxA, adminOf(A), question(name))).allowed).to.equal(true);
        expect((await own.decideHere(ctxA, bob, question(name))).allowed).to.equal(false);
      }
      expect((await own.decideHere(ctxB, adminOf(B), question('default'))).allowed).to.equal(true);
      expect(reads).to.deep.equal([]);
    } finally {
      own.stop();
      observed.close();
    }
  });

  it("a tenant's RBAC write through this replica decides its next request before the informer sees it", async () => {
    await kubectlA().ok(['create', 'clusterrole', 'ns-lister', '--verb=list', '--resource=namespaces']);
    // Informers of their own whose RoleBinding watch the devcluster holds: they list, then see nothing more.
    const holding = RestClient.fromKubeconfig(stage.upstreamKubeconfig, (_method, _path, req) =>
      req?.setHeader('x-test-hold', '1'),
    );
    const lagging = cachedObjectInformers('member1', holding);
    const own = new RequestAuthorizer(cluster(holding, lagging));
    const listNamespaces = { verb: 'list', group: '', resource: 'namespaces', namespace: '' };
    const storedKey = `${A}-kube-system/paddock.clusterrolebinding:bob-lists-ns`;
    try {
      own.start();
      expect(await own.synced()).to.equal(true);
      await kubectlA().ok(['create', 'clusterrolebinding', 'bob-lists-ns', '--clusterrole=ns-lister', '--user=bob']);
      expect((await own.decideHere(ctxA, bob, listNamespaces)).allowed, 'the informer has not seen it').to.equal(false);
      const stored = await admin.request(
        'GET',
        `/apis/rbac.authorization.k8s.io/v1/namespaces/${storedKey.replace('/', '/rolebindings/')}`,
      );
      expect(stored.status).to.equal(200);
      own.wrote(A, rbacWritesOf('rolebindings', storedKey, stored.body));
      expect((await own.decideHere(ctxA, bob, listNamespaces)).allowed, 'decided by the write').to.equal(true);

      await kubectlA().ok(['delete', 'clusterrolebinding', 'bob-lists-ns']);
      expect((await own.decideHere(ctxA, bob, listNamespaces)).allowed, 'kept: nothing told of the deletion').to.equal(
        true,
      );
      own.wrote(
        A,
        rbacWritesOf('rolebindings', storedKey, { kind: 'Status', details: { uid: stored.body.metadata.uid } }),
      );
      expect((await own.decideHere(ctxA, bob, listNamespaces)).allowed, 'decided by the deletion').to.equal(false);
    } finally {
      own.stop();
      lagging.stop();
      for (const release of held.splice(0)) release();
      holding.close();
    }
  });
});
