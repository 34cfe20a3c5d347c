import { expect } from 'chai';
import WebSocket from 'ws';
import { parseKubeconfig } from '../../certs/index.js';
import type { ApiClient } from '../support/api-client.js';
import type { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';
import { eventually } from '../support/eventually.js';

const A = 'alice1';
const B = 'bobby2';
const RBAC = 'rbac.authorization.k8s.io/v1';

const clusterRole = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name }, rules, ...extra });

describe('adversarial: RBAC objects stay inside the tenant', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let alice: Kubectl;
  let bob: Kubectl;
  let bobKubeconfig: string;
  /** The upstream cluster's admin; with impersonation headers, any identity upstream. */
  let member: ApiClient;

  before(async () => {
    stage = await startTwoTenants('rbac', [A, B]);
    [alice, bob] = stage.tenants.map((tenant) => tenant.kubectl) as [Kubectl, Kubectl];
    bobKubeconfig = stage.tenants[1].kubeconfig;
    member = stage.member;
  });
  after(async () => {
    await stage?.stop();
  });

  /** A SubjectAccessReview asked upstream as the cluster's admin. */
  async function upstreamAllows(user: string, groups: string[], attributes: Record<string, string>): Promise<boolean> {
    const review = await member.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user, groups, resourceAttributes: attributes },
    });
    expect(review.status, review.text).to.equal(201);
    return review.body.status.allowed === true;
  }

  it('an aggregationRule selecting every ClusterRole (`[{}]`) aggregates only the tenant\u2019s own; rules reviews show nothing of the other tenant', async () => {
    await bob.ok(
      ['apply', '-f', '-'],
      clusterRole(
        'vault-reader',
        [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['bobs-vault-password'], verbs: ['get'] }],
        { metadata: { name: 'vault-reader', labels: { team: 'vault' } } },
      ),
    );
    await alice.ok(
      ['apply', '-f', '-'],
      clusterRole('config-reader', [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['alices-settings'], verbs: ['get'] },
      ]),
    );
    await alice.ok(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: 'everything' },
        aggregationRule: { clusterRoleSelectors: [{}] },
      }),
    );
    await alice.ok(['create', 'clusterrolebinding', 'everything', '--clusterrole=everything', '--user=admin']);

    // The aggregation has run once the tenant's own role is in; the other tenant's never is.
    await eventually(
      async () => JSON.parse(await alice.ok(['get', 'clusterrole', 'everything', '-o', 'json'])).rules,
      (rules) => expect(JSON.stringify(rules)).to.contain('alices-settings'),
    );
    const seen = await alice.ok(['get', 'clusterrole', 'everything', '-o', 'yaml']);
    expect(seen).to.not.contain('bobs-vault-password');
    expect(seen).to.not.contain('kubezoo.io/tenant');
    expect(seen).to.match(/clusterRoleSelectors:\n {2}- \{\}\n/);
    const upstreamRole = (
      await member.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${A}-everything`)
    ).body;
    expect(JSON.stringify(upstreamRole.rules)).to.not.contain('bobs-vault-password');
    expect(upstreamRole.rules.length).to.be.above(0);

    const canI = await alice.ok(['auth', 'can-i', '--list']);
    expect(canI).to.contain('alices-settings');
    expect(canI).to.not.contain('bobs-vault-password');
    const review = JSON.parse(
      await alice.ok(
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: 'default' },
        }),
      ),
    );
    expect(JSON.stringify(review.status.resourceRules))
      .to.contain('alices-settings')
      .and.to.not.contain('bobs-vault-password');
    // Directly upstream, A's user is not granted B's named Secret by the aggregation either.
    expect(
      await upstreamAllows(`${A}-someone`, [], {
        namespace: `${B}-default`,
        resource: 'secrets',
        name: 'bobs-vault-password',
        verb: 'get',
      }),
    ).to.equal(false);
  });

  it('a binding to system:authenticated grants only the tenant\u2019s own users, not another tenant\u2019s', async () => {
    await alice.ok(['create', 'clusterrole', 'secret-reader', '--verb=get,list', '--resource=secrets']);
    await alice.ok([
      'create',
      'clusterrolebinding',
      'everyone-reads-secrets',
      '--clusterrole=secret-reader',
      '--group=system:authenticated',
    ]);
    await bob.ok(['create', 'secret', 'generic', 'bobs-token', '--from-literal=token=s3cr3t']);

    // Upstream, a user of B as the gateway impersonates it, with the system:authenticated upstream adds.
    const bUser = `${B}-carol`;
    const bGroups = [`${B}-system:authenticated`, 'system:authenticated'];
    expect(
      await upstreamAllows(bUser, bGroups, {
        namespace: `${B}-default`,
        resource: 'secrets',
        name: 'bobs-token',
        verb: 'get',
      }),
    ).to.equal(false);
    expect(
      await upstreamAllows(bUser, bGroups, { namespace: `${A}-default`, resource: 'secrets', verb: 'list' }),
    ).to.equal(false);
    const asCarol = await member.request('GET', `/api/v1/namespaces/${B}-default/secrets/bobs-token`, undefined, {
      'Impersonate-User': bUser,
      'Impersonate-Group': bGroups[0],
    });
    expect(asCarol.status).to.equal(403);

    // Through the gateway: B asks about a user of its own in system:authenticated; A's binding is no part of the answer.
    const sar = (user: string) =>
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user,
          groups: ['system:authenticated'],
          resourceAttributes: { namespace: 'default', resource: 'secrets', name: 'bobs-token', verb: 'get' },
        },
      });
    expect(JSON.parse(await bob.ok(['create', '-o', 'json', '-f', '-'], sar('carol'))).status.allowed).to.not.equal(
      true,
    );
    // A's own users are granted, and A's binding reads back as written.
    expect(JSON.parse(await alice.ok(['create', '-o', 'json', '-f', '-'], sar('carol'))).status.allowed).to.equal(true);
    expect(
      await alice.ok(['get', 'clusterrolebinding', 'everyone-reads-secrets', '-o', 'jsonpath={.subjects[0].name}']),
    ).to.equal('system:authenticated');
  });

  it('the gateway\u2019s users carry the tenant\u2019s system:authenticated: a binding to it applies to them', async () => {
    await alice.ok([
      'create',
      'clusterrole',
      'marker',
      '--verb=get',
      '--resource=configmaps',
      '--resource-name=authenticated-marker',
    ]);
    await alice.ok(['create', 'clusterrolebinding', 'marker', '--clusterrole=marker', '--group=system:authenticated']);
    expect(await alice.ok(['auth', 'can-i', '--list'])).to.contain('authenticated-marker');
    expect(await bob.ok(['auth', 'can-i', '--list'])).to.not.contain('authenticated-marker');
  });

  it('binding the cluster\u2019s own identities (system:masters, system:unauthenticated, system:anonymous) is 403', async () => {
    for (const [flag, name] of [
      ['--group', 'system:masters'],
      ['--group', 'system:unauthenticated'],
      ['--user', 'system:anonymous'],
    ] as const) {
      const result = await alice.run([
        'create',
        'clusterrolebinding',
        `to-${name.replace(/:/g, '-')}`,
        '--clusterrole=secret-reader',
        `${flag}=${name}`,
      ]);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.contain(
        `the ${flag.slice(2)} "${name}" is one of the cluster's own identities, which tenants cannot name`,
      );
    }
  });

  it('a SubjectAccessReview naming the cluster\u2019s own identities is 403, as a binding to them is', async () => {
    for (const [user, groups, named] of [
      ['carol', ['system:masters'], 'the group "system:masters"'],
      ['system:kube-scheduler', [], 'the user "system:kube-scheduler"'],
    ] as const) {
      const result = await alice.run(
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user, groups, resourceAttributes: { namespace: 'default', resource: 'secrets', verb: 'list' } },
        }),
      );
      expect(result.code, result.stdout).to.equal(1);
      expect(result.stderr).to.contain(`${named} is one of the cluster's own identities, which tenants cannot name`);
    }
  });

  it('resourceNames of cluster-scoped objects are prefixed: naming another tenant\u2019s namespace grants nothing on it', async () => {
    await alice.ok([
      'create',
      'clusterrole',
      'ns-deleter',
      '--verb=get,delete',
      '--resource=namespaces',
      `--resource-name=${B}-default`,
      '--resource-name=default',
    ]);
    await alice.ok(['create', 'clusterrolebinding', 'ns-deleter', '--clusterrole=ns-deleter', '--user=dave']);
    const upstreamRole = (
      await member.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${A}-ns-deleter`)
    ).body;
    expect(upstreamRole.rules[0].resourceNames).to.deep.equal([`${A}-${B}-default`, `${A}-default`]);
    // Upstream the binding is dormant (docs/isolation.md): the gateway decides cluster-scoped requests, so neither is allowed there.
    expect(
      await upstreamAllows(`${A}-dave`, [], { resource: 'namespaces', name: `${B}-default`, verb: 'delete' }),
    ).to.equal(false);
    expect(
      await upstreamAllows(`${A}-dave`, [], { resource: 'namespaces', name: `${A}-default`, verb: 'delete' }),
    ).to.equal(false);
    expect(await alice.ok(['get', 'clusterrole', 'ns-deleter', '-o', 'jsonpath={.rules[0].resourceNames}'])).to.equal(
      `["${B}-default","default"]`,
    );

    const mixed = await alice.run(
      ['apply', '-f', '-'],
      clusterRole('mixed', [
        { apiGroups: [''], resources: ['pods', 'namespaces'], resourceNames: ['default'], verbs: ['get'] },
      ]),
    );
    expect(mixed.code).to.equal(1);
    expect(mixed.stderr).to.contain('The ClusterRole "mixed" is invalid: rules[0].resourceNames: Invalid value:');
    expect(mixed.stderr).to.contain(
      'split the rule into one for the namespaced and one for the cluster-scoped resources',
    );
  });

  it('kubectl --as and --as-group are 403 with a message saying why, on requests and on upgrades (exec)', async () => {
    for (const args of [
      ['get', 'pods', '--as=bob'],
      ['get', 'pods', '--as=alice', '--as-group=admins'],
      ['delete', 'namespace', 'default', '--as=bob'],
    ]) {
      const result = await alice.run(args);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.stderr).to.contain(
        'Error from server (Forbidden): impersonation is not available through the gateway: the request carries Impersonate-User',
      );
    }
    expect(await alice.ok(['get', 'namespace', 'default', '-o', 'name'])).to.equal('namespace/default\n');
    // whoami is the gateway's own answer; it does not pretend to be someone else either (kubectl words any 403 there its own way).
    const whoami = await alice.run(['auth', 'whoami', '--as=bob']);
    expect([whoami.code, whoami.stdout]).to.deep.equal([1, '']);

    await bob.ok(['run', 'box', '--image=busybox', '--restart=Never']);
    const parsed = parseKubeconfig(bobKubeconfig);
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const ws = new WebSocket(
        `${stage.gateway.url.replace('https', 'wss')}/api/v1/namespaces/default/pods/box/exec?command=id&stdout=true`,
        ['v5.channel.k8s.io'],
        {
          ca: parsed.caPem,
          cert: parsed.certPem,
          key: parsed.keyPem,
          headers: { 'Impersonate-User': `${A}-admin` },
        },
      );
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('open', () => {
        ws.terminate();
        reject(new Error('the exec was upgraded'));
      });
      ws.on('error', () => {});
    });
    expect(refused.status).to.equal(403);
    expect(JSON.parse(refused.body)).to.include({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(JSON.parse(refused.body).message).to.match(
      /^impersonation is not available through the gateway: the request carries Impersonate-User/,
    );
  });

  it('a ClusterRole labelled aggregate-to-view cannot lend the tenant\u2019s rules to the cluster\u2019s own view role, by create or by patch', async () => {
    const labelled = await alice.run(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: RBAC,
        kind: 'ClusterRole',
        metadata: { name: 'lender', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
      }),
    );
    expect(labelled.code).to.equal(1);
    expect(labelled.stderr).to.contain("would add the tenant's rules to the cluster's own roles");
    await alice.ok(['create', 'clusterrole', 'lender', '--verb=get,list', '--resource=secrets']);
    const patched = await alice.run([
      'label',
      'clusterrole',
      'lender',
      'rbac.authorization.k8s.io/aggregate-to-view=true',
    ]);
    expect(patched.code).to.equal(1);
    expect(patched.stderr).to.contain('rbac.authorization.k8s.io/aggregate-to-');
    const upstreamRole = (await member.request('GET', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${A}-lender`))
      .body;
    expect(upstreamRole.metadata.labels ?? {}).not.to.have.property('rbac.authorization.k8s.io/aggregate-to-view');
    const view = (await member.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/view')).body;
    expect(JSON.stringify(view.rules)).not.to.match(/"secrets"/);
  });
});
