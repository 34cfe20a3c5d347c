import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { clusterReadyStatus } from '../../clusters/cluster-resource.js';
import { parseTaintToAdd, parseTaintToRemove } from '../../clusters/taint-argument.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { CLUSTER_VERBS } from '../../cmd/cli-commands.js';
import { clusterCommand } from '../../cmd/cluster-cli.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { createActiveTenant } from '../support/tenants.js';
import { runCli } from '../support/run-cli.js';

const MEMBER1 = '/apis/cluster.karmada.io/v1alpha1/clusters/member1';

const run = runCli;

/** The usage error `paddock` prints for `command`: the mistake, then where its help is. */
const usage = (message: string, command: string) => ({
  code: 2,
  stdout: '',
  stderr: `paddock: ${message}\nSee 'paddock ${command} --help' for usage.\n`,
});

describe('gateway: the taint argument of `paddock cluster taint|untaint`', () => {
  it("reads kubectl taint's KEY[=VALUE]:EFFECT to add, and refuses what a cluster cannot take", () => {
    const cases: [string, ReturnType<typeof parseTaintToAdd>][] = [
      ['maintenance=true:NoExecute', { taint: { key: 'maintenance', value: 'true', effect: 'NoExecute' } }],
      ['example.com/dedicated:NoSchedule', { taint: { key: 'example.com/dedicated', effect: 'NoSchedule' } }],
      ['empty=:NoSchedule', { taint: { key: 'empty', value: '', effect: 'NoSchedule' } }],
      ['maintenance', { error: 'invalid taint spec: maintenance, a taint to add is KEY[=VALUE]:EFFECT' }],
      ['maintenance=true', { error: 'invalid taint spec: maintenance=true, a taint to add is KEY[=VALUE]:EFFECT' }],
      [
        'maintenance:Sometimes',
        { error: "invalid taint effect: Sometimes, a cluster's taint is NoSchedule or NoExecute" },
      ],
      [
        'maintenance:PreferNoSchedule',
        { error: "invalid taint effect: PreferNoSchedule, a cluster's taint is NoSchedule or NoExecute" },
      ],
      ['maintenance:', { error: "invalid taint effect: , a cluster's taint is NoSchedule or NoExecute" }],
      ['a:b:NoSchedule', { error: 'invalid taint spec: a:b:NoSchedule' }],
      ['a=b=c:NoSchedule', { error: 'invalid taint spec: a=b=c:NoSchedule' }],
    ];
    for (const [argument, expected] of cases) expect(parseTaintToAdd(argument), argument).to.deep.equal(expected);
    const refusedWithReasons: [string, RegExp][] = [
      ['=v:NoSchedule', /^invalid taint spec: =v:NoSchedule, name part must be non-empty/],
      ['bad key:NoSchedule', /^invalid taint spec: bad key:NoSchedule, name part must consist of alphanumeric/],
      ['a/b/c:NoExecute', /^invalid taint spec: a\/b\/c:NoExecute, a qualified name must consist of/],
      ['k=not valid:NoSchedule', /^invalid taint spec: k=not valid:NoSchedule, a valid label must be/],
      [`k=${'v'.repeat(64)}:NoSchedule`, /, must be no more than 63 characters/],
    ];
    for (const [argument, message] of refusedWithReasons) {
      const parsed = parseTaintToAdd(argument);
      expect(parsed, argument).to.have.property('error').that.matches(message);
    }
  });

  it('reads KEY[:EFFECT] to remove, without a value', () => {
    const cases: [string, ReturnType<typeof parseTaintToRemove>][] = [
      ['maintenance', { taint: { key: 'maintenance' } }],
      ['maintenance:NoExecute', { taint: { key: 'maintenance', effect: 'NoExecute' } }],
      ['maintenance=true', { error: 'invalid taint spec: maintenance=true, a taint to remove is KEY[:EFFECT]' }],
      [
        'maintenance:PreferNoSchedule',
        { error: "invalid taint effect: PreferNoSchedule, a cluster's taint is NoSchedule or NoExecute" },
      ],
      ['a:b:NoSchedule', { error: 'invalid taint spec: a:b:NoSchedule' }],
    ];
    for (const [argument, expected] of cases) expect(parseTaintToRemove(argument), argument).to.deep.equal(expected);
    expect(parseTaintToRemove(':NoSchedule'))
      .to.have.property('error')
      .that.matches(/^invalid taint spec: :NoSchedule, name part must be non-empty/);
  });
});

describe('gateway: `paddock cluster list|taint|untaint` (a devcluster, one gateway)', function () {
  this.timeout(120_000);
  let upstream: DevCluster;
  let gateway: Gateway;
  let admin: ApiClient;
  let work: { dir: string; remove(): Promise<void> };
  let kubeconfig: string;

  /** member1's taints that these tests add: the status controller's own (cluster.karmada.io/…) left out. */
  const ownTaints = async (): Promise<any[]> =>
    ((await admin.request('GET', MEMBER1)).body.spec.taints ?? []).filter(
      (t: { key: string }) => !t.key.startsWith('cluster.karmada.io/'),
    );
  const paddock = (...args: string[]) => run(['cluster', ...args, '--kubeconfig', kubeconfig]);

  before(async () => {
    work = await makeTempDir('cluster-cli');
    upstream = await startDevCluster({ listen: '127.0.0.1:0', dataDir: `${work.dir}/upstream` });
    gateway = await startGateway({
      listen: '127.0.0.1:0',
      dataDir: `${work.dir}/gateway`,
      upstreams: [{ name: 'member1', kubeconfig: await readFile(upstream.kubeconfigPath, 'utf8') }],
    });
    kubeconfig = gateway.adminKubeconfigPath;
    admin = await ApiClient.load(kubeconfig);
    await createActiveTenant(admin, 'clu001', work.dir);
    await waitUntil(
      'member1 Ready',
      async () => clusterReadyStatus((await admin.request('GET', MEMBER1)).body) === 'True',
    );
  });

  after(async () => {
    admin?.close();
    await gateway?.stop();
    await upstream?.stop();
    await work?.remove();
  });

  it('lists each cluster with its version, Ready, taints and how many tenants live on it', async () => {
    const version: string = (await admin.request('GET', MEMBER1)).body.status.kubernetesVersion;
    expect(version).to.match(/^v1\.\d+\.\d+/);
    const listed = await run(['cluster', 'list', '--data-dir', `${work.dir}/gateway`]);
    expect(listed.stderr).to.equal('');
    expect(listed.code).to.equal(0);
    const [header, ...rows] = listed.stdout.trimEnd().split('\n');
    expect(header).to.match(/^NAME {3,}VERSION {3,}READY {3}TAINTS {3,}TENANTS {3}AGE$/);
    expect(rows).to.have.length(1);
    const [name, listedVersion, ready, , tenants, age] = rows[0].split(/ {3,}/);
    expect({ name, listedVersion, ready, tenants }).to.deep.equal({
      name: 'member1',
      listedVersion: version,
      ready: 'True',
      tenants: '1',
    });
    expect(age).to.match(/^\d+s$/);
  });

  it('adds a taint stamped with timeAdded now, and shows it in the list', async () => {
    const before = Date.now();
    expect(await paddock('taint', 'member1', 'maintenance=true:NoSchedule')).to.deep.equal({
      code: 0,
      stdout: 'cluster/member1 tainted\n',
      stderr: '',
    });
    const after = Date.now();
    const [taint, ...others] = await ownTaints();
    expect(others).to.deep.equal([]);
    expect(taint).to.deep.include({ key: 'maintenance', value: 'true', effect: 'NoSchedule' });
    expect(Object.keys(taint).sort()).to.deep.equal(['effect', 'key', 'timeAdded', 'value']);
    expect(taint.timeAdded).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(taint.timeAdded)).to.be.within(before - 1000, after);

    expect((await paddock('taint', 'member1', 'dedicated:NoExecute')).code).to.equal(0);
    const listed = await paddock('list');
    expect(listed.code).to.equal(0);
    expect(listed.stdout.split('\n')[1]).to.match(/ maintenance=true:NoSchedule,dedicated:NoExecute /);
  });

  it('replaces a taint of the same key and effect only with --overwrite; another effect is another taint', async () => {
    expect(await paddock('taint', 'member1', 'maintenance=false:NoSchedule')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr:
        'paddock: cluster member1 already has maintenance taint(s) with same effect(s) and --overwrite is false\n',
    });
    const [kept] = await ownTaints();
    expect(kept).to.deep.include({ key: 'maintenance', value: 'true', effect: 'NoSchedule' });

    expect(await paddock('taint', 'member1', 'maintenance=false:NoSchedule', '--overwrite')).to.deep.equal({
      code: 0,
      stdout: 'cluster/member1 tainted\n',
      stderr: '',
    });
    expect((await paddock('taint', 'member1', 'maintenance:NoExecute')).code).to.equal(0);
    const taints = await ownTaints();
    expect(taints.map(({ timeAdded: _, ...rest }) => rest)).to.deep.equal([
      { key: 'maintenance', value: 'false', effect: 'NoSchedule' },
      { key: 'dedicated', effect: 'NoExecute' },
      { key: 'maintenance', effect: 'NoExecute' },
    ]);
    expect(Date.parse(taints[0].timeAdded)).to.be.at.least(Date.parse(kept.timeAdded));
  });

  it('removes the taints of a key and effect, or of a key; a taint that is not there is an error', async () => {
    expect(await paddock('untaint', 'member1', 'maintenance:NoExecute')).to.deep.equal({
      code: 0,
      stdout: 'cluster/member1 untainted\n',
      stderr: '',
    });
    expect((await ownTaints()).map((t) => `${t.key}:${t.effect}`)).to.deep.equal([
      'maintenance:NoSchedule',
      'dedicated:NoExecute',
    ]);
    expect(await paddock('untaint', 'member1', 'maintenance:NoExecute')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'paddock: taint "maintenance:NoExecute" not found\n',
    });
    expect((await paddock('untaint', 'member1', 'maintenance')).code).to.equal(0);
    expect((await paddock('untaint', 'member1', 'dedicated')).code).to.equal(0);
    expect(await ownTaints()).to.deep.equal([]);
    expect(await paddock('untaint', 'member1', 'maintenance')).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'paddock: taint "maintenance" not found\n',
    });
  });

  it('keeps every taint of writers racing on one cluster (a lost race is made again on the fresh cluster)', async () => {
    const keys = ['race-a', 'race-b', 'race-c', 'race-d'];
    const printed: string[] = [];
    const codes = await Promise.all(
      keys.map((key) =>
        clusterCommand(['taint', 'member1', `${key}:NoSchedule`, '--kubeconfig', kubeconfig], (line) =>
          printed.push(line),
        ),
      ),
    );
    expect(codes).to.deep.equal([0, 0, 0, 0]);
    expect(printed).to.deep.equal(keys.map(() => 'cluster/member1 tainted'));
    expect((await ownTaints()).map((t) => t.key).sort()).to.deep.equal(keys);
    for (const key of keys) expect((await paddock('untaint', 'member1', key)).code).to.equal(0);
    expect(await ownTaints()).to.deep.equal([]);
  });

  it("answers an unknown cluster with the API's message, exit 1", async () => {
    const notFound = {
      code: 1,
      stdout: '',
      stderr: 'paddock: clusters.cluster.karmada.io "nope" not found\n',
    };
    expect(await paddock('taint', 'nope', 'maintenance:NoSchedule')).to.deep.equal(notFound);
    expect(await paddock('untaint', 'nope', 'maintenance')).to.deep.equal(notFound);
  });

  it('refuses a malformed command before it reads the kubeconfig: what is wrong, where the help is, exit 2', async () => {
    const missing = `${work.dir}/no-such.kubeconfig`;
    const cases: [string[], ReturnType<typeof usage>][] = [
      [
        ['taint', 'member1', 'maintenance:PreferNoSchedule'],
        usage("invalid taint effect: PreferNoSchedule, a cluster's taint is NoSchedule or NoExecute", 'cluster taint'),
      ],
      [
        ['taint', 'member1', 'maintenance'],
        usage('invalid taint spec: maintenance, a taint to add is KEY[=VALUE]:EFFECT', 'cluster taint'),
      ],
      [
        ['untaint', 'member1', 'maintenance=true'],
        usage('invalid taint spec: maintenance=true, a taint to remove is KEY[:EFFECT]', 'cluster untaint'),
      ],
      [['taint', 'member1'], usage('cluster taint needs KEY[=VALUE]:EFFECT', 'cluster taint')],
      [['untaint'], usage('cluster untaint needs NAME KEY[:EFFECT]', 'cluster untaint')],
      [['list', 'member1'], usage('unexpected argument "member1" for cluster list', 'cluster list')],
      [['list', '--overwrite'], usage('unknown flag: --overwrite', 'cluster list')],
      [['frob'], usage('unknown cluster command "frob": list, taint, untaint', 'cluster')],
    ];
    const results = await Promise.all(cases.map(([args]) => run(['cluster', ...args, '--kubeconfig', missing])));
    for (const [i, [args, expected]] of cases.entries()) expect(results[i], args.join(' ')).to.deep.equal(expected);
    expect(await run(['help', 'cluster', 'frob'])).to.deep.equal(
      usage('no help for "cluster frob": unknown cluster command', 'cluster'),
    );
  });

  it('prints its help: the commands, and each one with its arguments and flags', async () => {
    const help = await run(['cluster', '--help']);
    expect(help.code).to.equal(0);
    for (const verb of Object.keys(CLUSTER_VERBS)) expect(help.stdout).to.match(new RegExp(`^  ${verb} +\\S`, 'm'));
    expect((await run(['--help'])).stdout).to.match(/^ {2}cluster +Administer clusters: list, taint, untaint\.$/m);
    for (const args of [
      ['cluster', 'taint', '--help'],
      ['help', 'cluster', 'taint'],
    ]) {
      const taint = await run(args);
      expect(taint.code, args.join(' ')).to.equal(0);
      expect(taint.stdout).to.match(/^Usage:\n {2}paddock cluster taint NAME KEY\[=VALUE\]:EFFECT \[flags\]$/m);
      expect(taint.stdout).to.match(/^ {6}--overwrite +Replace a taint with the same key and effect/m);
      expect(taint.stdout).to.match(/^ {6}--data-dir DIR +The data directory of `paddock serve`/m);
      expect(taint.stdout).to.contain('<data-dir>/admin.kubeconfig, is used. (default .paddock)');
      expect(taint.stdout).to.match(/^ {6}--kubeconfig FILE /m);
    }
    const untaint = await run(['cluster', 'untaint', '-h']);
    expect(untaint.stdout).to.match(/^ {2}paddock cluster untaint NAME KEY\[:EFFECT\] \[flags\]$/m);
    expect(untaint.stdout).not.to.contain('--overwrite');
  });
});
