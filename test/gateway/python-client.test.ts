/**
 * Kubernetes' official Python client (Debian's python3-kubernetes, installed by scripts/test.sh)
 * as a tenant's program would use it: a second client nobody here wrote, with its own reading of
 * the wire — `watch=True` with a capital T, a delete answer decoded as a V1Status.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ApiClient } from '../support/api-client.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

const PYTHON = '/usr/bin/python3';
/** The script stays in the source tree; the compiled test runs from dist/test/gateway. */
const SCRIPT = fileURLToPath(new URL('../../../test/support/python-client.py', import.meta.url));

interface PythonRun {
  listed: string[];
  created: { name: string; namespace: string };
  read: { uid: boolean; data: Record<string, string> };
  patched: Record<string, string>;
  selected: [string, string][];
  deleted: { status: string; name: string; kind: string; uid: boolean };
  events: [string, string][];
}

async function runPython(kubeconfig: string, namespace: string, name: string, label: string): Promise<PythonRun> {
  const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT, kubeconfig, namespace, name, label], {
    timeout: 90_000,
    env: { PATH: process.env.PATH, HOME: '/nonexistent' },
  });
  return JSON.parse(stdout) as PythonRun;
}

/** What every run must show, whichever server it talks to. */
function expectTheWholeStory(run: PythonRun, namespace: string, name: string): void {
  expect(run.created).to.deep.equal({ name, namespace });
  expect(run.read).to.deep.equal({ uid: true, data: { colour: 'blue' } });
  expect(run.patched).to.deep.equal({ colour: 'green' });
  expect(run.deleted).to.deep.equal({ status: 'Success', name, kind: 'configmaps', uid: true });
  expect(run.events.filter(([, object]) => object === name).map(([type]) => type)).to.deep.equal([
    'ADDED',
    'MODIFIED',
    'DELETED',
  ]);
}

describe('gateway: the official Python client through a tenant kubeconfig', function () {
  let stage: TwoTenants;

  before(async () => {
    stage = await startTwoTenants('python-client', ['alice1', 'bobby2']);
    const [alice, bob] = stage.tenants.map((t) => t.kubectl);
    await alice.ok(['create', 'namespace', 'other']);
    await alice.ok(['create', 'configmap', 'kept', '-n', 'other']);
    await alice.ok(['label', 'configmap', 'kept', '-n', 'other', 'suite=py']);
    await bob.ok(['create', 'configmap', 'neighbour']);
    await bob.ok(['label', 'configmap', 'neighbour', 'suite=py']);
  });
  after(async () => {
    await stage?.stop();
  });

  it('works against the devcluster directly: its watch=True is a watch', async () => {
    const run = await runPython(stage.upstream.kubeconfigPath, 'default', 'direct', 'direct');
    expectTheWholeStory(run, 'default', 'direct');
    expect(run.selected).to.deep.equal([['default', 'direct']]);
  });

  it('lists, creates, reads, patches, selects across namespaces, watches and deletes as a tenant', async () => {
    const run = await runPython(stage.tenants[0].kubectl.kubeconfig, 'default', 'settings', 'py');
    expectTheWholeStory(run, 'default', 'settings');
    expect(run.listed).to.not.include('settings');
    // Across the tenant's namespaces, and only the tenant's: bobby2's labelled ConfigMap stays out.
    expect(run.selected).to.have.deep.members([
      ['default', 'settings'],
      ['other', 'kept'],
    ]);
    expect(JSON.stringify(run)).to.not.match(/alice1|bobby2/);
  });

  it("fans a watch across the tenant's namespaces out for Python's spelling: watch=True&allowWatchBookmarks=True", async () => {
    const alice = await ApiClient.load(stage.tenants[0].kubectl.kubeconfig);
    const watch = alice.watch('/api/v1/configmaps?watch=True&allowWatchBookmarks=True&labelSelector=suite%3Dpy');
    try {
      await watch.waitFor((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'kept'));
      await stage.tenants[0].kubectl.ok(
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'later', namespace: 'other', labels: { suite: 'py' } },
        }),
      );
      await watch.waitFor((events) => events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'later'));
      expect(watch.status).to.equal(200);
      expect(watch.ended).to.equal(false);
      expect(watch.events.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`)).to.not.include(
        'default/neighbour',
      );
    } finally {
      watch.close();
      alice.close();
    }
  });
});
