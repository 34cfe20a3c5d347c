import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const NODE = 'devcluster-control-plane';

type Event = { reason: string; message: string; source: { component: string }; involvedObject: { fieldPath?: string } };

describe('devcluster with the real kubectl: the node, the scheduler and kubelet, Jobs and CronJobs', function () {
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let kubectl: Kubectl;
  /** How far the CronJob controller's clock runs ahead of the real one. */
  let cronJobSkewMs = 0;

  before(async () => {
    const temp = await makeTempDir('nodes-pods-jobs');
    remove = temp.remove;
    cluster = await startDevCluster({
      listen: '127.0.0.1:0',
      dataDir: temp.dir,
      cronJobClock: () => new Date(Date.now() + cronJobSkewMs),
    });
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
    await kubectl.ok(['create', 'namespace', 'work']);
  });
  after(async () => {
    await kubectl?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  const json = async (args: string[]) => JSON.parse(await kubectl.ok([...args, '-o', 'json']));
  const eventsOf = async (name: string): Promise<Event[]> =>
    (await json(['get', 'events', '-n', 'work', '--field-selector', `involvedObject.name=${name}`])).items;
  const reasons = (events: Event[]) => events.map((e) => e.reason);
  const waitForEvents = (name: string, wanted: string[]) =>
    waitUntil(`events ${wanted.join(', ')} of ${name}`, async () => {
      const events = await eventsOf(name);
      return wanted.every((reason) => reasons(events).includes(reason)) && events;
    });

  it('has one Ready node, registered as a kubelet registers it, with its Lease renewed', async () => {
    expect(await kubectl.ok(['get', 'nodes', '-o', 'name'])).to.equal(`node/${NODE}\n`);
    const node = await json(['get', 'node', NODE]);
    expect(node.metadata.labels).to.include({
      'kubernetes.io/hostname': NODE,
      'kubernetes.io/os': 'linux',
      'node-role.kubernetes.io/control-plane': '',
    });
    const conditions = Object.fromEntries(
      node.status.conditions.map((c: { type: string; status: string; reason: string }) => [
        c.type,
        [c.status, c.reason],
      ]),
    );
    expect(conditions).to.deep.equal({
      MemoryPressure: ['False', 'KubeletHasSufficientMemory'],
      DiskPressure: ['False', 'KubeletHasNoDiskPressure'],
      PIDPressure: ['False', 'KubeletHasSufficientPID'],
      Ready: ['True', 'KubeletReady'],
    });
    expect(node.status.nodeInfo).to.include({ kubeletVersion: 'v1.32.0', operatingSystem: 'linux' });
    expect(node.status.allocatable).to.include({ pods: '110' });
    const table = await kubectl.ok(['get', 'nodes']);
    expect(table).to.match(new RegExp(`^${NODE}\\s+Ready\\s+control-plane\\s+\\S+\\s+v1\\.32\\.0\\n`, 'm'));
    const lease = await json(['get', 'lease', NODE, '-n', 'kube-node-lease']);
    expect(lease.spec).to.include({ holderIdentity: NODE, leaseDurationSeconds: 40 });
    expect(await kubectl.ok(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`])).to.equal('ok');
  });

  it('binds a new pod to the node and runs it: Ready, with IPs, and the Events kube records', async () => {
    await kubectl.ok(['run', 'web', '--image=nginx:1.27', '-n', 'work']);
    await kubectl.ok(['wait', '--for=condition=Ready', 'pod/web', '-n', 'work', '--timeout=20s']);
    const pod = await json(['get', 'pod', 'web', '-n', 'work']);
    expect(pod.spec.nodeName).to.equal(NODE);
    expect(pod.status.phase).to.equal('Running');
    expect(pod.status.hostIP).to.equal('10.0.0.1');
    expect(pod.status.podIP).to.match(/^10\.244\.\d+\.\d+$/);
    expect(pod.status.containerStatuses[0]).to.include({
      name: 'web',
      image: 'docker.io/library/nginx:1.27',
      ready: true,
    });

    const events = await waitForEvents('web', ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']);
    expect(reasons(events)).to.deep.equal(['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']);
    const [scheduled, pulling, pulled, created, started] = events;
    expect([scheduled.source.component, scheduled.message]).to.deep.equal([
      'default-scheduler',
      `Successfully assigned work/web to ${NODE}`,
    ]);
    expect(pulling.message).to.equal('Pulling image "nginx:1.27"');
    expect(pulled.message).to.match(
      /^Successfully pulled image "nginx:1\.27" in [\d.]+m?s \([\d.]+m?s including waiting\)\. Image size: \d+ bytes\.$/,
    );
    expect(created.message).to.equal('Created container: web');
    expect(started.message).to.equal('Started container web');
    for (const event of [pulling, pulled, created, started]) {
      expect(event.source.component).to.equal('kubelet');
      expect(event.involvedObject.fieldPath).to.equal('spec.containers{web}');
    }

    const described = await kubectl.ok(['describe', 'pod', 'web', '-n', 'work']);
    expect(described).to.match(new RegExp(`^Node:\\s+${NODE}/10\\.0\\.0\\.1$`, 'm'));
    expect(described).to.match(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned work\/web to/);
    expect(described).to.match(/Normal\s+Created\s+\S+\s+kubelet\s+Created container: web/);
    expect(described).to.match(/Normal\s+Started\s+\S+\s+kubelet\s+Started container web/);
    const listed = await kubectl.ok(['get', 'events', '-n', 'work', '--field-selector', 'involvedObject.name=web']);
    expect(listed).to.match(/Normal\s+Pulled\s+pod\/web\s+Successfully pulled image "nginx:1\.27"/);
  });

  it('does not pull an IfNotPresent image twice, and records no Scheduled for a pod that names its node', async () => {
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pinned' },
        spec: { nodeName: NODE, containers: [{ name: 'app', image: 'nginx:1.27' }] },
      }),
    );
    const events = await waitForEvents('pinned', ['Started']);
    expect(reasons(events)).to.deep.equal(['Pulled', 'Created', 'Started']);
    expect(events[0].message).to.equal('Container image "nginx:1.27" already present on machine');
  });

  it('runs a pod with restartPolicy Never to completion, and kills a running pod when it is deleted', async () => {
    await kubectl.ok(['run', 'once', '--image=busybox', '--restart=Never', '-n', 'work', '--', 'true']);
    await kubectl.ok(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/once', '-n', 'work', '--timeout=20s']);
    const pod = await json(['get', 'pod', 'once', '-n', 'work']);
    expect(pod.status.containerStatuses[0].state.terminated).to.include({ exitCode: 0, reason: 'Completed' });
    const ready = pod.status.conditions.find((c: { type: string }) => c.type === 'Ready');
    expect(ready).to.include({ status: 'False', reason: 'PodCompleted' });
    expect(await kubectl.ok(['get', 'pod', 'once', '-n', 'work', '--no-headers'])).to.match(
      /^once\s+0\/1\s+Completed\s+0\s/,
    );

    await kubectl.ok(['delete', 'pod', 'web', '-n', 'work']);
    const killing = (await waitForEvents('web', ['Killing'])).find((e) => e.reason === 'Killing')!;
    expect([killing.message, killing.involvedObject.fieldPath]).to.deep.equal([
      'Stopping container web',
      'spec.containers{web}',
    ]);
  });

  it('runs a Job to completion: kubectl wait --for=condition=complete returns, status and Events as 1.32', async () => {
    await kubectl.ok(['create', 'job', 'pi', '--image=busybox', '-n', 'work', '--', 'true']);
    await kubectl.ok(['wait', '--for=condition=complete', 'job/pi', '-n', 'work', '--timeout=30s']);
    const job = await json(['get', 'job', 'pi', '-n', 'work']);
    expect(
      job.status.conditions.map((c: { type: string; status: string; reason: string; message: string }) => [
        c.type,
        c.status,
        c.reason,
        c.message,
      ]),
    ).to.deep.equal([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    expect(job.status).to.include({ succeeded: 1, ready: 0, terminating: 0 });
    expect(job.status).to.have.keys([
      'conditions',
      'startTime',
      'completionTime',
      'succeeded',
      'terminating',
      'uncountedTerminatedPods',
      'ready',
    ]);
    const uid = job.metadata.uid;
    expect(job.spec.selector).to.deep.equal({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });

    const pods = (await json(['get', 'pods', '-n', 'work', '-l', 'job-name=pi'])).items;
    expect(pods).to.have.length(1);
    const [pod] = pods;
    expect(pod.metadata.name).to.match(/^pi-[a-z0-9]{5}$/);
    expect(pod.metadata.labels).to.include({
      'batch.kubernetes.io/job-name': 'pi',
      'batch.kubernetes.io/controller-uid': uid,
      'job-name': 'pi',
      'controller-uid': uid,
    });
    expect(pod.metadata.ownerReferences).to.deep.equal([
      { apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(pod.metadata.finalizers ?? [], 'the tracking finalizer is released once counted').to.deep.equal([]);
    expect(pod.status.phase).to.equal('Succeeded');

    const events = await waitForEvents('pi', ['SuccessfulCreate', 'Completed']);
    expect(events.map((e) => [e.source.component, e.reason, e.message])).to.deep.equal([
      ['job-controller', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`],
      ['job-controller', 'Completed', 'Job completed'],
    ]);
    expect(await kubectl.ok(['get', 'job', 'pi', '-n', 'work', '--no-headers'])).to.match(/^pi\s+Complete\s+1\/1\s/);
  });

  it('runs an Indexed Job with parallelism, one pod per completion index', async () => {
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'indexed' },
        spec: {
          completions: 3,
          parallelism: 2,
          completionMode: 'Indexed',
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } },
        },
      }),
    );
    await kubectl.ok(['wait', '--for=condition=complete', 'job/indexed', '-n', 'work', '--timeout=30s']);
    const job = await json(['get', 'job', 'indexed', '-n', 'work']);
    expect(job.status).to.include({ succeeded: 3, completedIndexes: '0-2' });
    const pods = (await json(['get', 'pods', '-n', 'work', '-l', 'job-name=indexed'])).items;
    const indexes = pods
      .map((p: { metadata: { annotations: Record<string, string> } }) =>
        Number(p.metadata.annotations['batch.kubernetes.io/job-completion-index']),
      )
      .sort();
    expect(indexes).to.deep.equal([0, 1, 2]);
    for (const pod of pods) {
      const index = pod.metadata.labels['batch.kubernetes.io/job-completion-index'];
      expect(pod.metadata.name).to.match(new RegExp(`^indexed-${index}-[a-z0-9]{5}$`));
      expect(pod.spec.hostname).to.equal(`indexed-${index}`);
    }
  });

  it('holds a suspended Job, runs it when resumed, and deletes it after ttlSecondsAfterFinished', async () => {
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'held' },
        spec: {
          suspend: true,
          ttlSecondsAfterFinished: 0,
          template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'work', image: 'busybox' }] } },
        },
      }),
    );
    await kubectl.ok(['wait', '--for=condition=suspended', 'job/held', '-n', 'work', '--timeout=20s']);
    expect(await kubectl.ok(['get', 'pods', '-n', 'work', '-l', 'job-name=held', '-o', 'name'])).to.equal('');
    await kubectl.ok(['patch', 'job', 'held', '-n', 'work', '-p', '{"spec":{"suspend":false}}']);
    await kubectl.ok(['wait', '--for=delete', 'job/held', '-n', 'work', '--timeout=30s']);
    const events = await waitForEvents('held', ['Suspended', 'Resumed', 'Completed']);
    expect(reasons(events)).to.include.members(['Suspended', 'Resumed', 'SuccessfulCreate', 'Completed']);
  });

  it("releases the tracking finalizer of a Job's pods orphaned by deleting the Job", async () => {
    await kubectl.ok(['create', 'job', 'left', '--image=busybox', '-n', 'work', '--', 'true']);
    await waitUntil('the Job to have a pod', async () =>
      (await kubectl.ok(['get', 'pods', '-n', 'work', '-l', 'job-name=left', '-o', 'name'])).trim(),
    );
    await kubectl.ok(['delete', 'job', 'left', '-n', 'work', '--cascade=orphan']);
    const pod = await waitUntil('the orphan released', async () => {
      const [orphan] = (await json(['get', 'pods', '-n', 'work', '-l', 'job-name=left'])).items;
      return !orphan.metadata.ownerReferences && !orphan.metadata.finalizers?.length && orphan;
    });
    await kubectl.ok(['delete', 'pod', pod.metadata.name, '-n', 'work', '--timeout=20s']);
  });

  it('fails a pod whose command exits non-zero, and a Job whose pods fail past backoffLimit', async () => {
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'broken' },
        spec: {
          backoffLimit: 1,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'work', image: 'busybox', command: ['sh', '-c', 'exit 3'] }],
            },
          },
        },
      }),
    );
    await kubectl.ok(['wait', '--for=condition=failed', 'job/broken', '-n', 'work', '--timeout=30s']);
    const job = await json(['get', 'job', 'broken', '-n', 'work']);
    expect(job.status).to.include({ failed: 2 });
    expect(job.status).to.not.have.property('succeeded');
    const byType = Object.fromEntries(
      job.status.conditions.map((c: { type: string; reason: string }) => [c.type, c.reason]),
    );
    expect(byType).to.deep.equal({ FailureTarget: 'BackoffLimitExceeded', Failed: 'BackoffLimitExceeded' });
    const pods = (await json(['get', 'pods', '-n', 'work', '-l', 'job-name=broken'])).items;
    expect(pods.map((p: { status: { phase: string } }) => p.status.phase)).to.deep.equal(['Failed', 'Failed']);
    expect(pods[0].status.containerStatuses[0].state.terminated).to.include({ exitCode: 3, reason: 'Error' });
    const events = await waitForEvents('broken', ['BackoffLimitExceeded']);
    const exceeded = events.find((e) => e.reason === 'BackoffLimitExceeded')!;
    expect(exceeded.message).to.equal('Job has reached the specified backoff limit');
  });

  it('fails a Job that outlives activeDeadlineSeconds', async () => {
    // Ten completions one after another take at least ten pod runs, far past a 1 s deadline.
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'late' },
        spec: {
          completions: 10,
          activeDeadlineSeconds: 1,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } },
        },
      }),
    );
    await kubectl.ok(['wait', '--for=condition=failed', 'job/late', '-n', 'work', '--timeout=30s']);
    const job = await json(['get', 'job', 'late', '-n', 'work']);
    const byType = Object.fromEntries(
      job.status.conditions.map((c: { type: string; reason: string }) => [c.type, c.reason]),
    );
    expect(byType).to.deep.equal({ FailureTarget: 'DeadlineExceeded', Failed: 'DeadlineExceeded' });
    expect(job.status.succeeded ?? 0).to.be.below(10);
    const events = await waitForEvents('late', ['DeadlineExceeded']);
    expect(events.find((e) => e.reason === 'DeadlineExceeded')!.message).to.equal(
      'Job was active longer than specified deadline',
    );
  });

  it('starts the Job of a CronJob at its scheduled time, in its time zone, and kubectl create job --from works', async () => {
    // The controller's clock is set past the next whole hour in Kolkata (UTC+05:30): `@hourly` is due.
    const now = Date.now();
    const nextHalfHourUtc = Math.ceil((now - 30 * 60_000) / 3_600_000) * 3_600_000 + 30 * 60_000;
    cronJobSkewMs = nextHalfHourUtc + 1_000 - now;
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'tick' },
        spec: {
          schedule: '@hourly',
          timeZone: 'Asia/Kolkata',
          jobTemplate: {
            metadata: { labels: { from: 'tick' } },
            spec: {
              template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'tick', image: 'busybox' }] } },
            },
          },
        },
      }),
    );
    const jobName = `tick-${nextHalfHourUtc / 60_000}`;
    await waitUntil(
      `job ${jobName}`,
      async () => (await kubectl.run(['get', 'job', jobName, '-n', 'work'])).code === 0,
    );
    const job = await json(['get', 'job', jobName, '-n', 'work']);
    const cronJob = await json(['get', 'cronjob', 'tick', '-n', 'work']);
    const local = new Date(nextHalfHourUtc + 5.5 * 3_600_000).toISOString().replace(/\.000Z$/, '+05:30');
    expect(job.metadata.annotations).to.deep.equal({ 'batch.kubernetes.io/cronjob-scheduled-timestamp': local });
    expect(job.metadata.labels).to.include({ from: 'tick' });
    expect(job.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        name: 'tick',
        uid: cronJob.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    await kubectl.ok(['wait', '--for=condition=complete', `job/${jobName}`, '-n', 'work', '--timeout=30s']);
    const done = await waitUntil('the CronJob to see its Job complete', async () => {
      const current = await json(['get', 'cronjob', 'tick', '-n', 'work']);
      return current.status.lastSuccessfulTime && !current.status.active && current;
    });
    expect(done.status.lastScheduleTime).to.equal(new Date(nextHalfHourUtc).toISOString().replace(/\.000Z$/, 'Z'));
    const events = await waitForEvents('tick', ['SuccessfulCreate', 'SawCompletedJob']);
    expect(events.map((e) => [e.source.component, e.reason, e.message])).to.deep.equal([
      ['cronjob-controller', 'SuccessfulCreate', `Created job ${jobName}`],
      ['cronjob-controller', 'SawCompletedJob', `Saw completed job: ${jobName}, status: Complete`],
    ]);

    expect(await kubectl.ok(['create', 'job', 'by-hand', '--from=cronjob/tick', '-n', 'work'])).to.equal(
      'job.batch/by-hand created\n',
    );
    await kubectl.ok(['wait', '--for=condition=complete', 'job/by-hand', '-n', 'work', '--timeout=30s']);
  });

  it('keeps concurrencyPolicy (Forbid skips, Replace replaces) and the history limits', async () => {
    const cronJob = (name: string, spec: Record<string, unknown>, jobSpec: Record<string, unknown> = {}) =>
      JSON.stringify({
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name },
        spec: {
          schedule: '* * * * *',
          ...spec,
          jobTemplate: {
            spec: {
              ...jobSpec,
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
            },
          },
        },
      });
    const statusOf = async (name: string) => (await json(['get', 'cronjob', name, '-n', 'work'])).status;
    const nudge = (name: string, value: number) =>
      kubectl.ok(['annotate', 'cronjob', name, '-n', 'work', '--overwrite', `nudge=${value}`]);
    // Two or three minutes ahead: one scheduled time since creation, then the next.
    cronJobSkewMs = 120_000;
    // A suspended Job stays active: the next scheduled time finds it running.
    await kubectl.ok(
      ['apply', '-n', 'work', '-f', '-'],
      cronJob('forbid', { concurrencyPolicy: 'Forbid' }, { suspend: true }),
    );
    await kubectl.ok(['apply', '-n', 'work', '-f', '-'], cronJob('hist', { successfulJobsHistoryLimit: 1 }));
    const [first] = await waitUntil('the first Job of forbid', async () => (await statusOf('forbid'))?.active);
    const firstDone = await waitUntil('the first Job of hist to complete', async () => {
      const status = await statusOf('hist');
      return status?.lastSuccessfulTime && !status.active && status.lastScheduleTime;
    });

    cronJobSkewMs = 180_000;
    await nudge('forbid', 1);
    await waitForEvents('forbid', ['JobAlreadyActive']);
    expect((await statusOf('forbid')).active.map((ref: { name: string }) => ref.name)).to.deep.equal([first.name]);
    await kubectl.ok(['patch', 'cronjob', 'forbid', '-n', 'work', '-p', '{"spec":{"concurrencyPolicy":"Replace"}}']);
    const [second] = await waitUntil('the Job that replaces the first', async () => {
      const active = (await statusOf('forbid')).active;
      return active?.[0]?.name !== first.name && active;
    });
    const replaced = await waitForEvents('forbid', ['SuccessfulDelete']);
    expect(
      replaced.filter((e) => /^(SuccessfulCreate|SuccessfulDelete)$/.test(e.reason)).map((e) => e.message),
    ).to.deep.equal([`Created job ${first.name}`, `Deleted job ${first.name}`, `Created job ${second.name}`]);

    await nudge('hist', 1);
    await waitUntil('the second Job of hist to complete', async () => {
      const status = await statusOf('hist');
      return status.lastScheduleTime !== firstDone && status.lastSuccessfulTime && !status.active;
    });
    const firstJob = `hist-${Date.parse(firstDone) / 60_000}`;
    await waitUntil('the older Job deleted', async () =>
      (await kubectl.run(['get', 'job', firstJob, '-n', 'work'])).stderr.includes('NotFound'),
    );
    // A minute may turn between the waits and run one Job more: the history keeps the newest.
    const deleted = await waitUntil(`the event of ${firstJob}'s deletion`, async () => {
      const messages = (await eventsOf('hist')).filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message);
      return messages.includes(`Deleted job ${firstJob}`) && messages;
    });
    const minuteOf = (name: string) => Number(name.slice(name.lastIndexOf('-') + 1));
    const jobs = (await kubectl.ok(['get', 'jobs', '-n', 'work', '-o', 'name'])).split('\n');
    const newest = Math.max(...jobs.filter((job) => job.startsWith('job.batch/hist-')).map(minuteOf));
    expect(
      deleted.filter((message) => minuteOf(message) >= newest),
      `newest hist-${newest}`,
    ).to.deep.equal([]);
  });

  it('warns about a schedule kube cannot parse, and starts nothing', async () => {
    await kubectl.ok(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=0 0 * * * *', '-n', 'work']);
    const [event] = await waitForEvents('bad', ['UnparseableSchedule']);
    expect([event.source.component, event.message]).to.deep.equal([
      'cronjob-controller',
      'unparseable schedule: "0 0 * * * *" : expected exactly 5 fields, found 6: [0 0 * * * *]',
    ]);
    expect(await kubectl.ok(['get', 'jobs', '-n', 'work', '-o', 'name'])).to.not.match(/\/bad-/);
  });
});
