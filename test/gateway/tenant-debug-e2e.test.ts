import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import type { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

type Pod = Record<string, any>;

/**
 * `kubectl debug` through the gateway: a tenant adds ephemeral containers to its own pods
 * (pods/ephemeralcontainers, translated like the pod) and copies pods (a protobuf Pod create,
 * rewritten in place), and cannot reach another tenant's pods either way.
 */
describe("gateway: a tenant's kubectl debug (pods/ephemeralcontainers, --copy-to)", function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let namespaces = 0;

  before(async () => {
    stage = await startTwoTenants('tenant-debug', ['dbgaaa', 'dbgbbb']);
  });
  after(async () => {
    await stage?.stop();
  });

  const owner = () => stage.tenants[0].kubectl;
  const other = () => stage.tenants[1].kubectl;
  const OVERRIDES = JSON.stringify({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });

  /** A fresh namespace of the first tenant with a running pod `mypod` (container `app`). */
  async function runningPod(): Promise<string> {
    const namespace = `shop${++namespaces}`;
    await owner().ok(['create', 'namespace', namespace]);
    await owner().ok(['run', 'mypod', '--image=nginx:1.27', '-n', namespace, '--overrides', OVERRIDES]);
    await owner().ok(['wait', '--for=condition=Ready', 'pod/mypod', '-n', namespace, '--timeout=20s']);
    return namespace;
  }
  /** The pod as stored upstream, under the tenant's prefix. */
  const upstreamPod = async (namespace: string, name = 'mypod'): Promise<Pod> => {
    const answer = await stage.member.request('GET', `/api/v1/namespaces/dbgaaa-${namespace}/pods/${name}`);
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as Pod;
  };

  /** `kubectl debug mypod` by a tenant, adding a busybox container named `container`. */
  const debug = (tenant: Kubectl, namespace: string, container: string, args: string[], input?: string) =>
    tenant.run(
      ['debug', 'mypod', '-n', namespace, '--profile=general', '--image=busybox', '-c', container, ...args],
      input,
    );

  it('adds an ephemeral container to its pod, which runs, and reads its logs and attaches to it', async () => {
    const namespace = await runningPod();
    const added = await debug(owner(), namespace, 'dbg', ['--', 'echo', 'hi']);
    expect(added.code, added.stderr).to.equal(0);
    const seen = await waitUntil('the tenant sees its ephemeral container running', async () => {
      const pod = JSON.parse(await owner().ok(['get', 'pod', 'mypod', '-n', namespace, '-o', 'json'])) as Pod;
      return pod.status.ephemeralContainerStatuses?.[0]?.state?.running && pod;
    });
    expect(seen.metadata.namespace).to.equal(namespace);
    expect(seen.spec.ephemeralContainers.map((c: Pod) => c.name)).to.deep.equal(['dbg']);
    expect((await upstreamPod(namespace)).spec.ephemeralContainers.map((c: Pod) => c.name)).to.deep.equal(['dbg']);
    expect(await owner().ok(['logs', 'mypod', '-c', 'dbg', '-n', namespace])).to.equal(
      'mypod dbg started\nmypod dbg image busybox\nmypod dbg ready\n',
    );

    const attached = await debug(owner(), namespace, 'shell', ['-i', '--', 'sh'], 'through the gateway\n');
    expect(attached.code, attached.stderr).to.equal(0);
    expect(attached.stdout).to.equal('through the gateway\n');
    expect(await owner().ok(['exec', 'mypod', '-c', 'shell', '-n', namespace, '--', 'hostname'])).to.equal('mypod\n');
  });

  it('copies its pod with a debug container: the protobuf Pod lands in its own namespace upstream', async () => {
    const namespace = await runningPod();
    const copied = await debug(owner(), namespace, 'dbg', ['--copy-to=mypod-copy', '--', 'echo', 'hi']);
    expect(copied.code, copied.stderr).to.equal(0);
    await owner().ok(['wait', '--for=condition=Ready', 'pod/mypod-copy', '-n', namespace, '--timeout=20s']);
    const copy = await upstreamPod(namespace, 'mypod-copy');
    expect(copy.metadata.namespace).to.equal(`dbgaaa-${namespace}`);
    expect(copy.spec.containers.map((c: Pod) => [c.name, c.image])).to.deep.equal([
      ['app', 'nginx:1.27'],
      ['dbg', 'busybox'],
    ]);
  });

  describe("another tenant's pod (adversarial)", () => {
    let namespace: string;
    let victim: Pod;
    let dir: { dir: string; remove: () => Promise<void> };
    before(async () => {
      namespace = await runningPod();
      victim = await upstreamPod(namespace);
      dir = await makeTempDir('tenant-debug');
    });
    after(async () => {
      await dir?.remove();
    });

    /** The victim upstream is as it was: no ephemeral container, nothing else changed. */
    async function untouched(): Promise<void> {
      const now = await upstreamPod(namespace);
      expect(now.spec.ephemeralContainers).to.equal(undefined);
      expect(now.metadata.resourceVersion).to.equal(victim.metadata.resourceVersion);
    }

    it('kubectl debug naming the victim by its namespace upstream reaches only its own (absent) namespace', async () => {
      for (const ns of [namespace, `dbgaaa-${namespace}`]) {
        const result = await debug(other(), ns, 'evil', ['--', 'sh']);
        expect(result.code, ns).to.equal(1);
        expect(result.stderr, ns).to.match(/(namespaces "[^"]+"|pods "mypod") not found/);
      }
      await untouched();
    });

    it('raw PATCH and PUT of pods/ephemeralcontainers at the victim, by path or by the body, change nothing', async () => {
      const kubeconfigPath = `${dir.dir}/other.kubeconfig`;
      await writeFile(kubeconfigPath, stage.tenants[1].kubeconfig, { mode: 0o600 });
      const client = await ApiClient.load(kubeconfigPath);
      try {
        const evil = { ephemeralContainers: [{ name: 'evil', image: 'busybox', command: ['sh'] }] };
        for (const ns of [namespace, `dbgaaa-${namespace}`]) {
          const path = `/api/v1/namespaces/${ns}/pods/mypod/ephemeralcontainers`;
          const patched = await client.request(
            'PATCH',
            path,
            { spec: evil },
            {
              'Content-Type': 'application/strategic-merge-patch+json',
            },
          );
          expect(patched.status, `${ns}: ${patched.text}`).to.be.oneOf([403, 404]);
          const put = await client.request('PUT', path, {
            ...victim,
            metadata: { name: 'mypod', namespace: `dbgaaa-${namespace}` },
            spec: { ...victim.spec, ...evil },
          });
          expect(put.status, `${ns}: ${put.text}`).to.be.oneOf([400, 403, 404]);
        }
        // Its own pod of the same name, with the victim's namespace in the body: refused, not redirected.
        await other().ok(['create', 'namespace', namespace]);
        await other().ok(['run', 'mypod', '--image=nginx:1.27', '-n', namespace, '--overrides', OVERRIDES]);
        const own = `/api/v1/namespaces/${namespace}/pods/mypod/ephemeralcontainers`;
        const current = (await client.request('GET', own)).body as Pod;
        const redirected = await client.request('PUT', own, {
          ...current,
          metadata: { ...current.metadata, namespace: `dbgaaa-${namespace}` },
          spec: { ...current.spec, ...evil },
        });
        expect(redirected.status, redirected.text).to.equal(400);
      } finally {
        client.close();
      }
      await untouched();
    });
  });
});
