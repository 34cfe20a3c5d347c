import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { everyPodState, getJson, isReady, readyPods, watchPods } from '../support/workloads.js';

const SAFE_HASH = /^[bcdfghjklmnpqrstvwxz2456789]+$/;

describe('devcluster workload controllers with the real kubectl: Deployment, ReplicaSet, StatefulSet, DaemonSet', function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let admin: Kubectl;
  let api: ApiClient;

  before(async () => {
    const dir = await makeTempDir('workloads');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await Kubectl.create(cluster.kubeconfigPath);
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await admin?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  const ns = (name: string) => ['-n', name];

  it('kubectl create deployment reaches 1/1: a ReplicaSet <deployment>-<pod-template-hash> owning one pod, rollout status succeeds', async () => {
    await admin.ok(['create', 'namespace', 'd1']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx', ...ns('d1')]);
    const status = await admin.run(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d1')]);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/deployment "web" successfully rolled out\n$/);
    expect(await admin.ok(['get', 'deployment', 'web', '--no-headers', ...ns('d1')])).to.match(/^web\s+1\/1\s+1\s+1\s/);

    const deployment = await getJson(admin, ['deployment', 'web', ...ns('d1')]);
    const [rs] = (await getJson(admin, ['replicasets', ...ns('d1')])).items;
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(hash).to.match(SAFE_HASH);
    expect(rs.metadata.name).to.equal(`web-${hash}`);
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
    expect(rs.metadata.annotations).to.include({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '1',
      'deployment.kubernetes.io/max-replicas': '2',
    });
    expect(rs.spec.selector.matchLabels).to.deep.equal({ app: 'web', 'pod-template-hash': hash });
    expect(deployment.metadata.annotations['deployment.kubernetes.io/revision']).to.equal('1');
    expect(deployment.status).to.include({
      observedGeneration: deployment.metadata.generation,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    });
    const conditions = Object.fromEntries(deployment.status.conditions.map((c: any) => [c.type, c]));
    expect(conditions.Available).to.include({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(conditions.Progressing).to.include({
      status: 'True',
      reason: 'NewReplicaSetAvailable',
      message: `ReplicaSet "web-${hash}" has successfully progressed.`,
    });

    const [pod] = (await getJson(admin, ['pods', ...ns('d1')])).items;
    expect(pod.metadata.name).to.match(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect(pod.metadata.generateName).to.equal(`web-${hash}-`);
    expect(pod.metadata.labels).to.deep.equal({ app: 'web', 'pod-template-hash': hash });
    expect(pod.metadata.ownerReferences).to.have.length(1);
    expect(pod.metadata.ownerReferences[0]).to.include({
      kind: 'ReplicaSet',
      name: rs.metadata.name,
      controller: true,
    });

    const events = await admin.ok([
      'get',
      'events',
      ...ns('d1'),
      '-o',
      'custom-columns=R:.reason,M:.message',
      '--no-headers',
    ]);
    expect(events).to.match(new RegExp(`ScalingReplicaSet\\s+Scaled up replica set web-${hash} from 0 to 1`));
    expect(events).to.match(new RegExp(`SuccessfulCreate\\s+Created pod: ${pod.metadata.name}`));
  });

  it('kubectl scale --replicas=3 gives three ready pods and a Deployment reporting them', async () => {
    await admin.ok(['create', 'namespace', 'd2']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx', ...ns('d2')]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d2')]);
    expect(await admin.ok(['scale', 'deployment/web', '--replicas=3', ...ns('d2')])).to.equal(
      'deployment.apps/web scaled\n',
    );
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d2')]);
    await readyPods(admin, 'd2', 'app=web', 3);
    const deployment = await getJson(admin, ['deployment', 'web', ...ns('d2')]);
    expect(deployment.status).to.include({ replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3 });
    const sets = (await getJson(admin, ['replicasets', ...ns('d2')])).items;
    expect(sets).to.have.length(1);
    expect(sets[0].spec.replicas).to.equal(3);
    expect(sets[0].metadata.annotations['deployment.kubernetes.io/desired-replicas']).to.equal('3');
    const events = await admin.ok(['get', 'events', ...ns('d2'), '--field-selector=reason=ScalingReplicaSet']);
    expect(events).to.contain(`Scaled up replica set ${sets[0].metadata.name} from 1 to 3`);
  });

  for (const { maxSurge, maxUnavailable } of [
    { maxSurge: 1, maxUnavailable: 0 },
    { maxSurge: 0, maxUnavailable: 1 },
    { maxSurge: '50%', maxUnavailable: '25%' },
  ]) {
    it(`kubectl set image rolls out a new ReplicaSet within maxSurge ${maxSurge} and maxUnavailable ${maxUnavailable} in every state observed`, async () => {
      const namespace = `roll-${String(maxSurge).replace('%', 'p')}-${String(maxUnavailable).replace('%', 'p')}`;
      await admin.ok(['create', 'namespace', namespace]);
      await admin.ok(['create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=4', ...ns(namespace)]);
      await admin.ok([
        'patch',
        'deployment/web',
        '--type=merge',
        `-p=${JSON.stringify({ spec: { strategy: { rollingUpdate: { maxSurge, maxUnavailable } } } })}`,
        ...ns(namespace),
      ]);
      await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns(namespace)]);
      await readyPods(admin, namespace, 'app=web', 4);
      // 4 replicas: 50% surge rounds up to 2, 25% unavailable rounds down to 1.
      const surge = typeof maxSurge === 'number' ? maxSurge : 2;
      const unavailable = typeof maxUnavailable === 'number' ? maxUnavailable : 1;
      const watch = watchPods(api, namespace, 'app=web');
      try {
        await watch.waitFor((events) => events.length >= 4);
        await admin.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27', ...ns(namespace)]);
        const status = await admin.run(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns(namespace)]);
        expect(status.code, status.stderr).to.equal(0);
        expect(status.stdout).to.match(/deployment "web" successfully rolled out\n$/);
        await watch.waitFor((events) => {
          const images = new Map<string, string>();
          for (const e of events)
            if (e.type === 'DELETED') images.delete(e.object.metadata.name);
            else images.set(e.object.metadata.name, e.object.spec.containers[0].image);
          return [...images.values()].join() === 'nginx:1.27,nginx:1.27,nginx:1.27,nginx:1.27';
        });
      } finally {
        watch.close();
      }
      let sawNew = false;
      const states = everyPodState(watch, 4, (live, ready) => {
        expect(live.length, 'pods at once').to.be.at.most(4 + surge);
        expect(ready.length, 'ready pods at once').to.be.at.least(4 - unavailable);
        sawNew ||= live.some((p) => p.spec.containers[0].image === 'nginx:1.27');
      });
      expect(sawNew).to.equal(true);
      expect(states).to.be.greaterThan(8);
      const sets = (await getJson(admin, ['replicasets', ...ns(namespace)])).items;
      expect(sets.map((rs: any) => [rs.spec.template.spec.containers[0].image, rs.spec.replicas]).sort()).to.deep.equal(
        [
          ['nginx:1.26', 0],
          ['nginx:1.27', 4],
        ],
      );
    });
  }

  it('rollout history lists the revisions and rollout undo brings the previous template back on its old ReplicaSet', async () => {
    await admin.ok(['create', 'namespace', 'd3']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=2', ...ns('d3')]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d3')]);
    const first = (await getJson(admin, ['replicasets', ...ns('d3')])).items[0].metadata.name;
    await admin.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27', ...ns('d3')]);
    await admin.ok(['annotate', 'deployment/web', 'kubernetes.io/change-cause=to 1.27', ...ns('d3')]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d3')]);
    expect(await admin.ok(['rollout', 'history', 'deployment/web', ...ns('d3')])).to.equal(
      'deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         to 1.27\n\n',
    );
    expect(await admin.ok(['rollout', 'history', 'deployment/web', '--revision=1', ...ns('d3')])).to.contain(
      'Image:\tnginx:1.26',
    );

    expect(await admin.ok(['rollout', 'undo', 'deployment/web', ...ns('d3')])).to.equal(
      'deployment.apps/web rolled back\n',
    );
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d3')]);
    const deployment = await getJson(admin, ['deployment', 'web', ...ns('d3')]);
    expect(deployment.spec.template.spec.containers[0].image).to.equal('nginx:1.26');
    expect(deployment.metadata.annotations['deployment.kubernetes.io/revision']).to.equal('3');
    const sets = (await getJson(admin, ['replicasets', ...ns('d3')])).items;
    expect(sets).to.have.length(2);
    const back = sets.find((rs: any) => rs.metadata.name === first);
    expect(back.spec.replicas).to.equal(2);
    expect(back.metadata.annotations).to.include({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
    });
    await readyPods(admin, 'd3', `pod-template-hash=${back.metadata.labels['pod-template-hash']}`, 2);
    expect(await admin.ok(['rollout', 'history', 'deployment/web', ...ns('d3')])).to.match(
      /\n2 +to 1\.27\n3 +<none>\n/,
    );
    expect(await admin.ok(['rollout', 'undo', 'deployment/web', '--to-revision=3', ...ns('d3')])).to.equal(
      'deployment.apps/web skipped rollback (current template already matches revision 3)\n',
    );
  });

  it('revisionHistoryLimit deletes the oldest empty ReplicaSets', async () => {
    await admin.ok(['create', 'namespace', 'd4']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx:1', ...ns('d4')]);
    await admin.ok(['patch', 'deployment/web', '--type=merge', '-p={"spec":{"revisionHistoryLimit":1}}', ...ns('d4')]);
    for (const tag of ['2', '3', '4']) {
      await admin.ok(['set', 'image', 'deployment/web', `nginx=nginx:${tag}`, ...ns('d4')]);
      await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d4')]);
    }
    await eventually(
      async () => (await getJson(admin, ['replicasets', ...ns('d4')])).items,
      (sets: any[]) =>
        expect(sets.map((rs) => rs.spec.template.spec.containers[0].image).sort()).to.deep.equal([
          'nginx:3',
          'nginx:4',
        ]),
    );
  });

  it('rollout pause holds a template change (only scaling goes on) until rollout resume', async () => {
    await admin.ok(['create', 'namespace', 'd5']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx:1.26', ...ns('d5')]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d5')]);
    expect(await admin.ok(['rollout', 'pause', 'deployment/web', ...ns('d5')])).to.equal(
      'deployment.apps/web paused\n',
    );
    await admin.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27', ...ns('d5')]);
    await admin.ok(['scale', 'deployment/web', '--replicas=2', ...ns('d5')]);
    await readyPods(admin, 'd5', 'app=web', 2);
    await eventually(
      () => getJson(admin, ['deployment', 'web', ...ns('d5')]),
      (d: any) => {
        expect(d.status.observedGeneration).to.equal(d.metadata.generation);
        const progressing = d.status.conditions.find((c: any) => c.type === 'Progressing');
        expect(progressing).to.include({
          status: 'Unknown',
          reason: 'DeploymentPaused',
          message: 'Deployment is paused',
        });
      },
    );
    const sets = (await getJson(admin, ['replicasets', ...ns('d5')])).items;
    expect(sets.map((rs: any) => rs.spec.template.spec.containers[0].image)).to.deep.equal(['nginx:1.26']);
    const pods = (await getJson(admin, ['pods', ...ns('d5')])).items;
    expect(pods.map((p: any) => p.spec.containers[0].image)).to.deep.equal(['nginx:1.26', 'nginx:1.26']);

    await admin.ok(['rollout', 'resume', 'deployment/web', ...ns('d5')]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d5')]);
    const after = await readyPods(admin, 'd5', 'app=web', 2);
    expect(after.map((p: any) => p.spec.containers[0].image)).to.deep.equal(['nginx:1.27', 'nginx:1.27']);
  });

  it('Recreate removes every old pod before the new ReplicaSet creates one', async () => {
    await admin.ok(['create', 'namespace', 'd6']);
    await admin.ok(['create', 'deployment', 'web', '--image=nginx:1.26', '--replicas=3', ...ns('d6')]);
    await admin.ok([
      'patch',
      'deployment/web',
      '--type=merge',
      '-p={"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}',
      ...ns('d6'),
    ]);
    await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d6')]);
    await readyPods(admin, 'd6', 'app=web', 3);
    const watch = watchPods(api, 'd6', 'app=web');
    try {
      await watch.waitFor((events) => events.length >= 3);
      await admin.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27', ...ns('d6')]);
      await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns('d6')]);
      await readyPods(admin, 'd6', 'app=web', 3);
      await watch.waitFor((events) => events.filter((e) => e.type === 'DELETED').length >= 3);
    } finally {
      watch.close();
    }
    everyPodState(watch, 3, (live) => {
      const images = new Set(live.map((p) => p.spec.containers[0].image));
      expect([...images], 'old and new pods at once').to.have.length.at.most(1);
    });
  });

  it('a ReplicaSet adopts a matching orphan, counts pods by their Ready condition and scales down the not-ready first', async () => {
    await admin.ok(['create', 'namespace', 'r1']);
    await admin.ok(['run', 'stray', '--image=busybox', '--labels=app=cache', ...ns('r1')]);
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'cache' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'cache' } },
        template: { metadata: { labels: { app: 'cache' } }, spec: { containers: [{ name: 'c', image: 'redis' }] } },
      },
    };
    await admin.ok(['apply', '-f', '-', ...ns('r1')], JSON.stringify(rs));
    const pods = await readyPods(admin, 'r1', 'app=cache', 3);
    const stray = pods.find((p) => p.metadata.name === 'stray');
    expect(stray.metadata.ownerReferences?.[0]).to.include({ kind: 'ReplicaSet', name: 'cache', controller: true });
    await eventually(
      () => getJson(admin, ['replicaset', 'cache', ...ns('r1')]),
      (got: any) =>
        expect(got.status).to.deep.equal({
          replicas: 3,
          fullyLabeledReplicas: 3,
          readyReplicas: 3,
          availableReplicas: 3,
          observedGeneration: 1,
        }),
    );

    const victim = pods.find((p) => p.metadata.name !== 'stray');
    const notReady = {
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] },
    };
    await admin.ok([
      'patch',
      'pod',
      victim.metadata.name,
      '--subresource=status',
      '--type=strategic',
      `-p=${JSON.stringify(notReady)}`,
      ...ns('r1'),
    ]);
    await eventually(
      () => getJson(admin, ['replicaset', 'cache', ...ns('r1')]),
      (got: any) => expect(got.status).to.include({ replicas: 3, readyReplicas: 2, availableReplicas: 2 }),
    );
    await admin.ok(['scale', 'replicaset/cache', '--replicas=2', ...ns('r1')]);
    await eventually(
      async () => (await getJson(admin, ['pods', ...ns('r1')])).items,
      (items: any[]) => {
        expect(items.map((p) => p.metadata.name))
          .to.have.length(2)
          .and.not.include(victim.metadata.name);
        expect(items.every(isReady)).to.equal(true);
      },
    );
    const events = await admin.ok(['get', 'events', ...ns('r1'), '--field-selector=reason=SuccessfulDelete']);
    expect(events).to.contain(`Deleted pod: ${victim.metadata.name}`);
  });

  for (const cascade of ['background', 'foreground']) {
    it(`kubectl delete deployment (--cascade=${cascade}) removes its ReplicaSets and pods`, async () => {
      const namespace = `gc-${cascade}`;
      await admin.ok(['create', 'namespace', namespace]);
      await admin.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', ...ns(namespace)]);
      await admin.ok(['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns(namespace)]);
      await admin.ok(['delete', 'deployment', 'web', `--cascade=${cascade}`, ...ns(namespace)]);
      await eventually(
        () => admin.ok(['get', 'deployments,replicasets,pods', '-o', 'name', ...ns(namespace)]),
        (names: string) => expect(names).to.equal(''),
      );
    });
  }

  it('a StatefulSet creates <sts>-0..2 in order with their claims, rolls out a new revision, and undoes it from its ControllerRevisions', async () => {
    await admin.ok(['create', 'namespace', 's1']);
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        replicas: 3,
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16' }] } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    };
    const watch = watchPods(api, 's1', 'app=db');
    try {
      await admin.ok(['apply', '-f', '-', ...ns('s1')], JSON.stringify(sts));
      const status = await admin.run(['rollout', 'status', 'statefulset/db', '--timeout=60s', ...ns('s1')]);
      expect(status.code, status.stderr).to.equal(0);
      expect(status.stdout).to.match(/partitioned roll out complete: 3 new pods have been updated...\n$/);
      await watch.waitFor((events) => new Set(events.map((e) => e.object.metadata.name)).size === 3);
    } finally {
      watch.close();
    }
    // OrderedReady: a pod is created only once every lower ordinal is Running and Ready.
    everyPodState(watch, 0, (live) => {
      const ordinals = live.map((p) => Number(p.metadata.name.slice(3))).sort();
      for (const ordinal of ordinals)
        if (ordinal > 0)
          expect(
            live.find((p) => p.metadata.name === `db-${ordinal - 1}`),
            `db-${ordinal - 1}`,
          ).to.satisfy(isReady);
    });

    const first = await getJson(admin, ['statefulset', 'db', ...ns('s1')]);
    const [revision] = (await getJson(admin, ['controllerrevisions', ...ns('s1')])).items;
    expect(revision.metadata.name).to.match(/^db-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(revision.revision).to.equal(1);
    expect(revision.metadata.ownerReferences[0]).to.include({ kind: 'StatefulSet', name: 'db', controller: true });
    expect(first.status).to.include({
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: revision.metadata.name,
      updateRevision: revision.metadata.name,
      observedGeneration: first.metadata.generation,
    });
    const pods = (await getJson(admin, ['pods', ...ns('s1')])).items;
    expect(pods.map((p: any) => p.metadata.name)).to.deep.equal(['db-0', 'db-1', 'db-2']);
    expect(pods[1].metadata.labels).to.deep.equal({
      app: 'db',
      'controller-revision-hash': revision.metadata.name,
      'statefulset.kubernetes.io/pod-name': 'db-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    expect(pods[1].spec).to.include({ hostname: 'db-1', subdomain: 'db' });
    expect(pods[1].spec.volumes).to.deep.include({ name: 'data', persistentVolumeClaim: { claimName: 'data-db-1' } });
    expect(await admin.ok(['get', 'pvc', '-o', 'name', ...ns('s1')])).to.equal(
      'persistentvolumeclaim/data-db-0\npersistentvolumeclaim/data-db-1\npersistentvolumeclaim/data-db-2\n',
    );

    await admin.ok(['set', 'image', 'statefulset/db', 'db=postgres:17', ...ns('s1')]);
    await admin.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s', ...ns('s1')]);
    await eventually(
      () => getJson(admin, ['statefulset', 'db', ...ns('s1')]),
      (got: any) => {
        expect(got.status.updateRevision).to.not.equal(revision.metadata.name);
        expect(got.status.currentRevision).to.equal(got.status.updateRevision);
        expect(got.status).to.include({ updatedReplicas: 3, readyReplicas: 3 });
      },
    );
    const updated = (await getJson(admin, ['pods', ...ns('s1')])).items;
    expect(updated.map((p: any) => p.spec.containers[0].image)).to.deep.equal([
      'postgres:17',
      'postgres:17',
      'postgres:17',
    ]);
    expect(await admin.ok(['rollout', 'history', 'statefulset/db', ...ns('s1')])).to.equal(
      'statefulset.apps/db \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );

    expect(await admin.ok(['rollout', 'undo', 'statefulset/db', ...ns('s1')])).to.equal(
      'statefulset.apps/db rolled back\n',
    );
    await admin.ok(['rollout', 'status', 'statefulset/db', '--timeout=60s', ...ns('s1')]);
    await eventually(
      async () => (await getJson(admin, ['pods', ...ns('s1')])).items,
      (items: any[]) =>
        expect(
          items.map((p) => [p.spec.containers[0].image, p.metadata.labels['controller-revision-hash']]),
        ).to.deep.equal(Array(3).fill(['postgres:16', revision.metadata.name])),
    );
    const revisions = (await getJson(admin, ['controllerrevisions', ...ns('s1')])).items;
    expect(revisions.find((r: any) => r.metadata.name === revision.metadata.name).revision).to.equal(3);
  });

  it('a StatefulSet with a partition updates only the ordinals at or above it', async () => {
    await admin.ok(['create', 'namespace', 's2']);
    await admin.ok(['create', 'service', 'clusterip', 'web', '--clusterip=None', ...ns('s2')]);
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'web' },
      spec: {
        serviceName: 'web',
        replicas: 3,
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] },
        },
      },
    };
    await admin.ok(['apply', '-f', '-', ...ns('s2')], JSON.stringify(sts));
    await readyPods(admin, 's2', 'app=web', 3);
    await admin.ok(['set', 'image', 'statefulset/web', 'web=nginx:1.27', ...ns('s2')]);
    const status = await admin.run(['rollout', 'status', 'statefulset/web', '--timeout=60s', ...ns('s2')]);
    expect(status.stdout).to.match(/partitioned roll out complete: 1 new pods have been updated...\n$/);
    await eventually(
      async () => (await getJson(admin, ['pods', ...ns('s2')])).items,
      (items: any[]) =>
        expect(items.map((p) => [p.metadata.name, p.spec.containers[0].image])).to.deep.equal([
          ['web-0', 'nginx:1.26'],
          ['web-1', 'nginx:1.26'],
          ['web-2', 'nginx:1.27'],
        ]),
    );
    const got = await getJson(admin, ['statefulset', 'web', ...ns('s2')]);
    expect(got.status).to.include({ currentReplicas: 2, updatedReplicas: 1, readyReplicas: 3 });
    expect(got.status.currentRevision).to.not.equal(got.status.updateRevision);
  });

  it('a StatefulSet with OnDelete keeps its pods until they are deleted, then makes them of the new revision', async () => {
    await admin.ok(['create', 'namespace', 's3']);
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'kv' },
      spec: {
        serviceName: 'kv',
        replicas: 2,
        updateStrategy: { type: 'OnDelete' },
        selector: { matchLabels: { app: 'kv' } },
        template: { metadata: { labels: { app: 'kv' } }, spec: { containers: [{ name: 'kv', image: 'redis:7.0' }] } },
      },
    };
    await admin.ok(['apply', '-f', '-', ...ns('s3')], JSON.stringify(sts));
    await readyPods(admin, 's3', 'app=kv', 2);
    const status = await admin.run(['rollout', 'status', 'statefulset/kv', ...ns('s3')]);
    expect([status.code, status.stderr]).to.deep.equal([
      1,
      'error: rollout status is only available for RollingUpdate strategy type\n',
    ]);
    await admin.ok(['set', 'image', 'statefulset/kv', 'kv=redis:7.2', ...ns('s3')]);
    await eventually(
      () => getJson(admin, ['statefulset', 'kv', ...ns('s3')]),
      (got: any) => {
        expect(got.status.observedGeneration).to.equal(2);
        expect(got.status.updateRevision).to.not.equal(got.status.currentRevision);
        expect(got.status).to.include({ replicas: 2, currentReplicas: 2, readyReplicas: 2 });
      },
    );
    const images = async () =>
      (await getJson(admin, ['pods', ...ns('s3')])).items.map((p: any) => [
        p.metadata.name,
        p.spec.containers[0].image,
      ]);
    expect(await images()).to.deep.equal([
      ['kv-0', 'redis:7.0'],
      ['kv-1', 'redis:7.0'],
    ]);
    await admin.ok(['delete', 'pod', 'kv-1', ...ns('s3')]);
    await eventually(images, (got) =>
      expect(got).to.deep.equal([
        ['kv-0', 'redis:7.0'],
        ['kv-1', 'redis:7.2'],
      ]),
    );
  });

  it('a DaemonSet runs one pod on each node, rolls out a new template and undoes it from its ControllerRevisions', async () => {
    let nodes = (await getJson(admin, ['nodes'])).items;
    if (nodes.length === 0) {
      const node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'worker-1', labels: { 'kubernetes.io/hostname': 'worker-1' } },
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] },
      };
      await admin.ok(['apply', '-f', '-'], JSON.stringify(node));
      nodes = (await getJson(admin, ['nodes'])).items;
    }
    const nodeNames = nodes.map((n: any) => n.metadata.name).sort();
    await admin.ok(['create', 'namespace', 'ds1']);
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] },
        },
      },
    };
    await admin.ok(['apply', '-f', '-', ...ns('ds1')], JSON.stringify(ds));
    const status = await admin.run(['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns('ds1')]);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/daemon set "agent" successfully rolled out\n$/);
    const pods = await readyPods(admin, 'ds1', 'app=agent', nodeNames.length);
    expect(pods.map((p: any) => p.spec.nodeName).sort()).to.deep.equal(nodeNames);
    const [revision] = (await getJson(admin, ['controllerrevisions', ...ns('ds1')])).items;
    const hash = revision.metadata.labels['controller-revision-hash'];
    expect(revision.metadata.name).to.equal(`agent-${hash}`);
    for (const pod of pods) {
      expect(pod.metadata.generateName).to.equal('agent-');
      expect(pod.metadata.labels).to.include({
        app: 'agent',
        'controller-revision-hash': hash,
        'pod-template-generation': '1',
      });
      expect(
        pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
      ).to.deep.equal([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec.nodeName] }] }]);
      expect(pod.spec.tolerations).to.deep.include({
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
      });
    }
    const got = await getJson(admin, ['daemonset', 'agent', ...ns('ds1')]);
    expect(got.status).to.include({
      desiredNumberScheduled: nodeNames.length,
      currentNumberScheduled: nodeNames.length,
      numberReady: nodeNames.length,
      numberAvailable: nodeNames.length,
      updatedNumberScheduled: nodeNames.length,
      numberMisscheduled: 0,
      observedGeneration: 1,
    });

    await admin.ok(['set', 'image', 'daemonset/agent', 'agent=busybox:1.37', ...ns('ds1')]);
    await admin.ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns('ds1')]);
    await eventually(
      async () => (await getJson(admin, ['pods', ...ns('ds1')])).items,
      (items: any[]) =>
        expect(items.map((p) => p.spec.containers[0].image)).to.deep.equal(
          Array(nodeNames.length).fill('busybox:1.37'),
        ),
    );
    expect(await admin.ok(['rollout', 'history', 'daemonset/agent', ...ns('ds1')])).to.equal(
      'daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );
    expect(await admin.ok(['rollout', 'undo', 'daemonset/agent', ...ns('ds1')])).to.equal(
      'daemonset.apps/agent rolled back\n',
    );
    await admin.ok(['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns('ds1')]);
    await eventually(
      async () => (await getJson(admin, ['pods', ...ns('ds1')])).items,
      (items: any[]) =>
        expect(
          items.map((p) => [p.spec.containers[0].image, p.metadata.labels['controller-revision-hash']]),
        ).to.deep.equal(Array(nodeNames.length).fill(['busybox:1.36', hash])),
    );
  });

  for (const [resource, kind] of [
    ['statefulset', 'StatefulSet'],
    ['daemonset', 'DaemonSet'],
  ] as const) {
    it(`a ${kind}'s ControllerRevisions carry its annotations, so rollout history shows each CHANGE-CAUSE`, async () => {
      const namespace = `cause-${resource}`;
      await admin.ok(['create', 'namespace', namespace]);
      const manifest = {
        apiVersion: 'apps/v1',
        kind,
        metadata: { name: 'app', annotations: { 'kubernetes.io/change-cause': 'first', team: 'a' } },
        spec: {
          ...(kind === 'StatefulSet' ? { serviceName: 'app', replicas: 1 } : {}),
          selector: { matchLabels: { app: 'cause' } },
          template: {
            metadata: { labels: { app: 'cause' } },
            spec: { containers: [{ name: 'app', image: 'nginx:1.26' }] },
          },
        },
      };
      await admin.ok(['create', '-f', '-', ...ns(namespace)], JSON.stringify(manifest));
      await admin.ok(['rollout', 'status', `${resource}/app`, '--timeout=60s', ...ns(namespace)]);
      // kubectl's --record writes the command line into the change-cause with the new template.
      await admin.ok(['set', 'image', `${resource}/app`, 'app=nginx:1.27', '--record', ...ns(namespace)]);
      await admin.ok(['rollout', 'status', `${resource}/app`, '--timeout=60s', ...ns(namespace)]);
      await admin.ok([
        'annotate',
        '--overwrite',
        `${resource}/app`,
        'kubernetes.io/change-cause=to 1.28',
        ...ns(namespace),
      ]);
      await admin.ok(['set', 'image', `${resource}/app`, 'app=nginx:1.28', ...ns(namespace)]);
      await admin.ok(['rollout', 'status', `${resource}/app`, '--timeout=60s', ...ns(namespace)]);
      const history = await admin.ok(['rollout', 'history', `${resource}/app`, ...ns(namespace)]);
      expect(history).to.equal(
        `${resource}.apps/app \nREVISION  CHANGE-CAUSE\n1         first\n` +
          `2         kubectl set image ${resource}/app app=nginx:1.27 --record=true --namespace=${namespace}\n` +
          '3         to 1.28\n\n',
      );
      const revisions = (await getJson(admin, ['controllerrevisions', ...ns(namespace)])).items;
      const first = revisions.find((r: any) => r.revision === 1);
      expect(first.metadata.annotations).to.deep.equal({ 'kubernetes.io/change-cause': 'first', team: 'a' });

      // A rollback gives the old revision the next number and leaves its annotations as they were.
      await admin.ok(['rollout', 'undo', `${resource}/app`, '--to-revision=1', ...ns(namespace)]);
      await admin.ok(['rollout', 'status', `${resource}/app`, '--timeout=60s', ...ns(namespace)]);
      expect(await admin.ok(['rollout', 'history', `${resource}/app`, ...ns(namespace)])).to.match(
        /\n3 +to 1\.28\n4 +first\n\n$/,
      );
    });
  }
});
