import { expect } from 'chai';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';
import { deployment, getJson, readyPods } from '../support/workloads.js';

const TENANT = 'alice1';
const PREFIX = `${TENANT}-`;

describe('gateway: workloads through a tenant kubeconfig (rollouts, history, undo) with nothing upstream-only shown', function () {
  this.timeout(120_000);
  let alice: Kubectl;
  let bob: Kubectl;
  let member: Kubectl;
  let stage: TwoTenants;

  before(async () => {
    stage = await startTwoTenants('workloads', [TENANT, 'bobby2']);
    [alice, bob] = stage.tenants.map((t) => t.kubectl);
    member = await Kubectl.create(stage.upstream.kubeconfigPath);
  });
  after(async () => {
    await member?.dispose();
    await stage?.stop();
  });

  /** Everything the tenant can read of these kinds, as YAML: none of it may carry the prefix. */
  async function expectNoPrefixShown(): Promise<void> {
    for (const kinds of ['deployments,replicasets,pods', 'statefulsets,daemonsets,controllerrevisions', 'events']) {
      const text = await alice.ok(['get', kinds, '-o', 'yaml']);
      expect(text, kinds).to.not.include(PREFIX);
    }
  }

  it('a Deployment rolls out, scales, updates, lists its history and undoes, as on a cluster of its own', async () => {
    await alice.ok(['create', 'deployment', 'web', '--image=nginx']);
    const status = await alice.run(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/deployment "web" successfully rolled out\n$/);
    expect(await alice.ok(['get', 'deployment', 'web', '--no-headers'])).to.match(/^web\s+1\/1\s+1\s+1\s/);

    await alice.ok(['scale', 'deployment/web', '--replicas=3']);
    await alice.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await readyPods(alice, 'default', 'app=web', 3);

    await alice.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27']);
    await alice.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    expect(await alice.ok(['rollout', 'history', 'deployment/web'])).to.equal(
      'deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );
    expect(await alice.ok(['rollout', 'undo', 'deployment/web'])).to.equal('deployment.apps/web rolled back\n');
    await alice.ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const pods = await readyPods(alice, 'default', 'app=web', 3);
    expect(pods.map((p: any) => p.spec.containers[0].image)).to.deep.equal(['nginx', 'nginx', 'nginx']);

    const deployment = await getJson(alice, ['deployment', 'web']);
    const sets = (await getJson(alice, ['replicasets'])).items;
    expect(sets).to.have.length(2);
    for (const rs of sets) {
      expect(rs.metadata.namespace).to.equal('default');
      expect(rs.metadata.name).to.match(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
      expect(rs.metadata.ownerReferences).to.deep.equal([
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: 'web',
          uid: deployment.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    const events = (await getJson(alice, ['events'])).items;
    const scaling = events.filter((e: any) => e.reason === 'ScalingReplicaSet');
    expect(scaling).to.not.be.empty;
    for (const event of scaling)
      expect(event.involvedObject).to.include({ kind: 'Deployment', name: 'web', namespace: 'default' });
    expect(events.some((e: any) => e.reason === 'SuccessfulCreate' && e.involvedObject.kind === 'ReplicaSet')).to.equal(
      true,
    );
    await expectNoPrefixShown();
    expect(await bob.ok(['get', 'deployments,replicasets,pods', '-A', '-o', 'name'])).to.equal('');
  });

  it("a StatefulSet's revisions show and restore the tenant's own PriorityClass: rollout undo does not prefix it twice", async () => {
    await alice.ok(['create', 'priorityclass', 'high', '--value=1000']);
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        replicas: 2,
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { priorityClassName: 'high', containers: [{ name: 'db', image: 'postgres:16' }] },
        },
      },
    };
    await alice.ok(['apply', '-f', '-'], JSON.stringify(sts));
    const status = await alice.run(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/partitioned roll out complete: 2 new pods have been updated...\n$/);
    const [revision] = (await getJson(alice, ['controllerrevisions'])).items;
    expect(revision.data.spec.template.spec.priorityClassName).to.equal('high');

    await alice.ok(['set', 'image', 'statefulset/db', 'db=postgres:17']);
    await alice.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
    expect(await alice.ok(['rollout', 'history', 'statefulset/db', '--revision=1'])).to.match(
      /Priority Class Name:\s+high\n/,
    );
    expect(await alice.ok(['rollout', 'undo', 'statefulset/db'])).to.equal('statefulset.apps/db rolled back\n');
    await alice.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s']);
    await eventually(
      async () => (await getJson(alice, ['pods', '-l', 'app=db'])).items,
      (pods: any[]) =>
        expect(pods.map((p) => [p.metadata.name, p.spec.containers[0].image, p.spec.priorityClassName])).to.deep.equal([
          ['db-0', 'postgres:16', 'high'],
          ['db-1', 'postgres:16', 'high'],
        ]),
    );
    const upstreamSts = await getJson(member, ['statefulset', 'db', '-n', `${PREFIX}default`]);
    expect(upstreamSts.spec.template.spec.priorityClassName).to.equal(`${PREFIX}high`);
    await expectNoPrefixShown();
  });

  it('a DaemonSet runs one pod on each shared node and reports its status to the tenant', async () => {
    if ((await getJson(member, ['nodes'])).items.length === 0) {
      const node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'worker-1' },
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
      };
      await member.ok(['apply', '-f', '-'], JSON.stringify(node));
    }
    const nodes = (await getJson(alice, ['nodes'])).items.map((n: any) => n.metadata.name).sort();
    expect(nodes).to.not.be.empty;
    await alice.ok(['create', 'namespace', 'agents']);
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'agents' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'busybox' }] } },
      },
    };
    await alice.ok(['apply', '-f', '-'], JSON.stringify(ds));
    const status = await alice.run(['rollout', 'status', 'daemonset/agent', '-n', 'agents', '--timeout=60s']);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/daemon set "agent" successfully rolled out\n$/);
    const pods = await readyPods(alice, 'agents', 'app=agent', nodes.length);
    expect(pods.map((p: any) => p.spec.nodeName).sort()).to.deep.equal(nodes);
    expect((await getJson(alice, ['daemonset', 'agent', '-n', 'agents'])).status).to.include({
      desiredNumberScheduled: nodes.length,
      numberReady: nodes.length,
      updatedNumberScheduled: nodes.length,
    });
    const yaml = await alice.ok(['get', 'daemonsets,pods,controllerrevisions,events', '-n', 'agents', '-o', 'yaml']);
    expect(yaml).to.not.include(PREFIX);
    expect(await bob.ok(['get', 'daemonsets,pods', '-A', '-o', 'name'])).to.equal('');
  });

  /** An autoscaling/v1 HPA of Deployment `target`, between 2 and 5 replicas. */
  const autoscaler = (name: string, target: string) =>
    JSON.stringify({
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
        minReplicas: 2,
        maxReplicas: 5,
        targetCPUUtilizationPercentage: 60,
      },
    });

  it("HPAs: a tenant creates and lists its own, and its scaleTargetRef reaches only its own namespace's workloads", async () => {
    for (const tenant of [alice, bob]) await tenant.ok(['create', 'namespace', 'scaling']);
    // Only the other tenant has a Deployment of that name: alice's HPA must not find (nor scale) it.
    await bob.ok(['create', 'deployment', 'api', '--image=nginx', '-n', 'scaling']);
    expect(await alice.ok(['create', '-f', '-', '-n', 'scaling'], autoscaler('api', 'api'))).to.equal(
      'horizontalpodautoscaler.autoscaling/api created\n',
    );
    await eventually(
      async () => (await getJson(alice, ['hpa', 'api', '-n', 'scaling'])).status?.conditions ?? [],
      (conditions: any[]) =>
        expect(conditions.map((c) => [c.type, c.reason, c.message])).to.deep.equal([
          [
            'AbleToScale',
            'FailedGetScale',
            `the HPA controller was unable to get the target's current scale: deployments.apps "api" not found`,
          ],
        ]),
    );
    expect((await getJson(bob, ['deployment', 'api', '-n', 'scaling'])).spec.replicas).to.equal(1);

    // Its own Deployment it scales to minReplicas, as on a cluster of its own.
    await alice.ok(['create', 'deployment', 'api', '--image=nginx', '-n', 'scaling']);
    await eventually(
      () => alice.ok(['get', 'hpa', '-n', 'scaling', '--no-headers']),
      (row) => expect(row).to.match(/^api +Deployment\/api +cpu: <unknown>\/60% +2 +5 +2 +[0-9]+[smh]\n$/),
    );
    expect((await getJson(alice, ['deployment', 'api', '-n', 'scaling'])).spec.replicas).to.equal(2);
    expect((await getJson(bob, ['deployment', 'api', '-n', 'scaling'])).spec.replicas).to.equal(1);

    expect(await alice.ok(['get', 'hpa', '-A', '-o', 'name'])).to.equal('horizontalpodautoscaler.autoscaling/api\n');
    expect(await bob.ok(['get', 'hpa', '-A', '-o', 'name'])).to.equal('');
    const upstream = await getJson(member, ['hpa', 'api', '-n', `${PREFIX}scaling`]);
    expect(upstream.spec.scaleTargetRef).to.deep.equal({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' });
    // v1's view carries the status in annotations: nothing upstream-only shows there either.
    const yaml = await alice.ok(['get', 'hpa,events', '-n', 'scaling', '-o', 'yaml']);
    expect(yaml).to.not.include(PREFIX);
    const v1 = await alice.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/scaling/horizontalpodautoscalers/api']);
    expect(v1).to.not.include(PREFIX);
    expect(JSON.parse(v1).metadata.namespace).to.equal('scaling');
  });

  it('kubectl autoscale works through the gateway (its body is protobuf)', async () => {
    await alice.ok(['create', 'namespace', 'autoscaled']);
    await alice.ok(['create', 'deployment', 'auto', '--image=nginx', '-n', 'autoscaled']);
    expect(await alice.ok(['autoscale', 'deployment', 'auto', '--min=2', '--max=4', '-n', 'autoscaled'])).to.equal(
      'horizontalpodautoscaler.autoscaling/auto autoscaled\n',
    );
    await eventually(
      () => alice.ok(['get', 'hpa', 'auto', '-n', 'autoscaled', '--no-headers']),
      (row) => expect(row).to.match(/^auto +Deployment\/auto +cpu: <unknown>\/80% +2 +4 +2 +[0-9]+[smh]\n$/),
    );
    expect((await getJson(member, ['hpa', 'auto', '-n', `${PREFIX}autoscaled`])).metadata.namespace).to.equal(
      `${PREFIX}autoscaled`,
    );
  });

  it('a Deployment patched just after it is made, while its controllers still update it, is patched (no 409)', async () => {
    // kube-apiserver applies a patch again on a conflict; the gateway's dry run and pinned write
    // (gateway/proxy/checked-write.ts) took four rounds in a row that the controllers overtook.
    const tenant = RestClient.fromKubeconfig(stage.tenants[0].kubeconfig);
    try {
      // Last in the file: the tests above count what the tenant's default namespace holds.
      const deployments = '/apis/apps/v1/namespaces/default/deployments';
      // Three of each: whether a patch meets the controllers' writes is a matter of milliseconds.
      for (const [type, n] of ['application/json-patch+json', 'application/merge-patch+json'].flatMap((t) =>
        [1, 2, 3].map((i) => [t, i] as const),
      )) {
        const name = `fresh-${type.split('/')[1].split('-')[0]}-${n}`;
        const created = await tenant.request('POST', deployments, deployment(name));
        expect(created.status, created.text).to.equal(201);
        // A moment later: its controllers write its status, its ReplicaSet's and its Pod's.
        await stage.member.request('GET', `/apis/apps/v1/namespaces/${PREFIX}default/deployments/${name}`);
        const patch =
          type === 'application/json-patch+json'
            ? [{ op: 'add', path: '/spec/template/metadata/annotations', value: { team: 'a' } }]
            : { spec: { template: { metadata: { annotations: { team: 'a' } } } } };
        const patched = await tenant.request('PATCH', `${deployments}/${name}`, patch, { 'Content-Type': type });
        expect(patched.status, `${type}: ${patched.text}`).to.equal(200);
        expect(patched.body.spec.template.metadata.annotations).to.deep.equal({ team: 'a' });
      }
    } finally {
      tenant.close();
    }
  });
});
