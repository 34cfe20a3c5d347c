import { expect } from 'chai';
import { waitUntil } from '../support/eventually.js';
import { Kubectl } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const NODE = 'devcluster-control-plane';

type Event = {
  reason: string;
  message: string;
  metadata: { namespace: string };
  involvedObject: { namespace: string; name: string; kind: string };
};

describe("gateway: a tenant's pods, Jobs and CronJobs run, and their Events are in the tenant's words", function () {
  let alice: Kubectl;
  let bob: Kubectl;
  let member: Kubectl;
  let cronJobSkewMs = 0;
  let stage: TwoTenants;

  before(async () => {
    stage = await startTwoTenants('runs', ['alice3', 'bobby3'], {
      cronJobClock: () => new Date(Date.now() + cronJobSkewMs),
    });
    [alice, bob] = stage.tenants.map((t) => t.kubectl);
    member = await Kubectl.create(stage.upstream.kubeconfigPath);
  });
  after(async () => {
    await member?.dispose();
    await stage?.stop();
  });

  const eventsOf = async (kubectl: Kubectl, name: string): Promise<Event[]> =>
    JSON.parse(await kubectl.ok(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json']))
      .items;
  const waitForEvents = (kubectl: Kubectl, name: string, wanted: string[]) =>
    waitUntil(`events ${wanted.join(', ')} of ${name}`, async () => {
      const events = await eventsOf(kubectl, name);
      return wanted.every((reason) => events.some((e) => e.reason === reason)) && events;
    });

  it('shows the shared node as it is', async () => {
    expect(await alice.ok(['get', 'nodes', '-o', 'name'])).to.equal(`node/${NODE}\n`);
    const ready = await alice.ok([
      'get',
      'node',
      NODE,
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Ready")].status}',
    ]);
    expect(ready).to.equal('True');
  });

  it("runs a tenant's pod on the node; the Scheduled message names the tenant's own namespace", async () => {
    await alice.ok(['run', 'web', '--image=nginx:1.27']);
    await alice.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=20s']);
    expect(await alice.ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.nodeName}'])).to.equal(NODE);

    const events = await waitForEvents(alice, 'web', ['Scheduled', 'Pulled', 'Created', 'Started']);
    const scheduled = events.find((e) => e.reason === 'Scheduled')!;
    expect(scheduled.message).to.equal(`Successfully assigned default/web to ${NODE}`);
    expect(scheduled.metadata.namespace).to.equal('default');
    expect(scheduled.involvedObject).to.include({ kind: 'Pod', namespace: 'default', name: 'web' });
    // Upstream the same event names the prefixed namespace: the gateway is what converts it.
    const upstreamMessage = await member.ok([
      'get',
      'events',
      '-n',
      'alice3-default',
      '--field-selector',
      'reason=Scheduled,involvedObject.name=web',
      '-o',
      'jsonpath={.items[0].message}',
    ]);
    expect(upstreamMessage).to.equal(`Successfully assigned alice3-default/web to ${NODE}`);

    const described = await alice.ok(['describe', 'pod', 'web']);
    expect(described).to.match(new RegExp(`^Node:\\s+${NODE}/10\\.0\\.0\\.1$`, 'm'));
    expect(described).to.match(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned default\/web to/);
    expect(described).to.match(/Normal\s+Started\s+\S+\s+kubelet\s+Started container web/);
    expect(described).to.not.contain('alice3');
    const listed = await alice.ok(['get', 'events']);
    expect(listed).to.match(/Normal\s+Scheduled\s+pod\/web\s+Successfully assigned default\/web to/);
    expect(listed).to.not.contain('alice3');

    expect(await bob.ok(['get', 'events', '-A', '-o', 'name'])).to.not.match(/web\./);
  });

  it('runs a Job to completion and a CronJob creates its Job, through the gateway', async () => {
    await alice.ok(['create', 'job', 'pi', '--image=busybox', '--', 'true']);
    await alice.ok(['wait', '--for=condition=complete', 'job/pi', '--timeout=30s']);
    const events = await waitForEvents(alice, 'pi', ['SuccessfulCreate', 'Completed']);
    expect(events.find((e) => e.reason === 'SuccessfulCreate')!.message).to.match(/^Created pod: pi-[a-z0-9]{5}$/);

    cronJobSkewMs = 120_000;
    await alice.ok(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'true']);
    const jobName = await waitUntil('the CronJob to create a Job', async () => {
      const names = await alice.ok(['get', 'jobs', '-o', 'name']);
      return /job\.batch\/(tick-\d+)/.exec(names)?.[1];
    });
    await alice.ok(['wait', '--for=condition=complete', `job/${jobName}`, '--timeout=30s']);
    const created = await waitForEvents(alice, 'tick', ['SuccessfulCreate']);
    expect(created[0].message).to.equal(`Created job ${jobName}`);
    expect(created[0].involvedObject).to.include({ kind: 'CronJob', namespace: 'default', name: 'tick' });
  });
});
