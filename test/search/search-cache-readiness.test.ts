/**
 * `/readyz` and the search cache: a replica whose cache has not listed what a ResourceRegistry
 * asks for is not ready — until the lists arrive, or until `--cache-sync-timeout` has passed.
 * The cluster sits behind a TCP relay the test stalls, as a cluster too slow to answer a list.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { startGateway, type Gateway } from '../../gateway/server/gateway.js';
import { anonymousRequest } from '../support/anonymous-request.js';
import { ApiClient } from '../support/api-client.js';
import { waitUntil } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';
import { TcpRelay } from '../support/tcp-relay.js';

const REGISTRY = {
  apiVersion: 'search.karmada.io/v1alpha1',
  kind: 'ResourceRegistry',
  metadata: { name: 'configmaps' },
  spec: { targetCluster: {}, resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
};

describe('cache: /readyz waits for the search cache', function () {
  this.timeout(90_000);
  let remove: () => Promise<void>;
  let member: DevCluster;
  let relay: TcpRelay;
  const gateways: Gateway[] = [];
  const clients: ApiClient[] = [];

  before(async () => {
    const temp = await makeTempDir('search-readiness');
    remove = temp.remove;
    member = await startDevCluster({ name: 'member1', listen: '127.0.0.1:0', dataDir: `${temp.dir}/member1` });
    relay = new TcpRelay(Number(new URL(member.url).port));
    await relay.start();
    const kubeconfig = (await readFile(member.kubeconfigPath, 'utf8')).replace(
      /server: .*/,
      `server: https://127.0.0.1:${relay.port}`,
    );
    // Probed once Ready, then not again for a minute: the stall below tells on the cache alone.
    for (const [name, cacheSyncTimeoutMs] of [
      ['patient', 600_000],
      ['hasty', 2_000],
    ] as const) {
      const gateway = await startGateway({
        listen: '127.0.0.1:0',
        dataDir: `${temp.dir}/${name}`,
        upstreams: [{ name: 'member1', kubeconfig }],
        clusterStatusUpdateFrequencyMs: 60_000,
        cacheSyncTimeoutMs,
        // What is cached here is the ResourceRegistry's alone; tenant-cache-reads.test.ts has the tenants' stores.
        tenantCache: '',
      });
      gateways.push(gateway);
      clients.push(await ApiClient.load(gateway.adminKubeconfigPath));
    }
    for (const client of clients)
      await waitUntil('member1 is Ready', async () => {
        const res = await client.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
        return res.body?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
      });
  });

  after(async () => {
    relay?.resume();
    for (const client of clients) client.close();
    for (const gateway of gateways) await gateway.stop();
    await relay?.stop();
    await member?.stop();
    await remove?.();
  });

  it('is ready with nothing to cache, not ready while a list hangs (unless its --cache-sync-timeout passed), ready once it arrives', async () => {
    const [patient, hasty] = clients;
    const readyz = async (client: ApiClient) => {
      const res = await client.request('GET', '/readyz');
      return `${res.status} ${res.text}`;
    };
    expect(await readyz(patient)).to.equal('200 ok');
    relay.stall();
    for (const client of clients) {
      const res = await client.request('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', REGISTRY);
      expect(res.status, res.text).to.equal(201);
    }
    await waitUntil('the patient replica says it is not ready', async () => (await readyz(patient)).startsWith('500'));
    expect(await readyz(patient)).to.equal(
      '500 [+]ping ok\n[-]search-cache-synced failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
    );
    // A probe without a client certificate (a kubelet's, a load balancer's) is told the same.
    expect(await anonymousRequest(gateways[0].url, '/readyz')).to.deep.equal({
      status: 500,
      text: '[+]ping ok\n[-]search-cache-synced failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
    });
    // The same hanging list in a replica whose --cache-sync-timeout (2 s) runs out: ready anyway, as Karmada's hook gives up.
    await waitUntil('the hasty replica stops waiting', async () => (await readyz(hasty)) === '200 ok');
    expect(await readyz(patient), 'the patient one still waits').to.match(/^500 /);
    relay.resume();
    relay.dropConnections();
    await waitUntil('the list arrives and the replica is ready', async () => (await readyz(patient)) === '200 ok', {
      timeout: 30_000,
    });
    expect(await anonymousRequest(gateways[0].url, '/readyz')).to.deep.equal({ status: 200, text: 'ok' });
  });

  it("a starting replica is not ready before every cluster's first probe, rather than ready, then not, once the stores of the last one appear", async () => {
    // A second cluster whose answers come late: the replica starts (on the first) with its status unprobed.
    const slow = new TcpRelay(Number(new URL(member.url).port));
    await slow.start();
    slow.hold();
    const temp = await makeTempDir('search-readiness-start');
    let starting: Gateway | undefined;
    try {
      const kubeconfig = await readFile(member.kubeconfigPath, 'utf8');
      starting = await startGateway({
        listen: '127.0.0.1:0',
        dataDir: `${temp.dir}/starting`,
        upstreams: [
          { name: 'member1', kubeconfig },
          { name: 'member2', kubeconfig: kubeconfig.replace(/server: .*/, `server: https://127.0.0.1:${slow.port}`) },
        ],
        cacheSyncTimeoutMs: 600_000,
      });
      const client = await ApiClient.load(starting.adminKubeconfigPath);
      clients.push(client);
      // The tenants' reads are cached (the default): a cluster's stores are planned once its probe lists its APIs.
      const seen: number[] = [];
      const readyz = async () => {
        const { status } = await anonymousRequest(starting!.url, '/readyz');
        if (seen.at(-1) !== status) seen.push(status);
        return status;
      };
      await waitUntil('member1 is probed', async () => {
        await readyz();
        const res = await client.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1');
        return res.body?.status?.conditions?.some((c: any) => c.type === 'Ready');
      });
      // Past member1's lists (a moment for them), still short of member2's probe timeout (5 s).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await readyz(), 'member2 was never probed: nothing of it is planned yet').to.equal(500);
      slow.release();
      await waitUntil('the replica is ready', async () => (await readyz()) === 200, { timeout: 30_000 });
      expect(seen, 'not ready until it is, once').to.deep.equal([500, 200]);
    } finally {
      slow.release();
      await starting?.stop();
      await slow.stop();
      await temp.remove();
    }
  });
});
