import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';
import { getJson, readyPods } from '../support/workloads.js';

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
});
