/**
 * Objects deleted while their controller acts on them: kube's controllers take NotFound as done
 * (the object is gone, nothing is left to do), so neither should the devcluster's report a fault.
 * Each round scales a workload and deletes it at once, so the controller's writes (status, scaling
 * its ReplicaSets, creating pods) race the deletion and the garbage collector.
 */
import { expect } from 'chai';
import { processFaults } from '../../apiserver/process-faults.js';
import { expectStatus } from '../../apiserver/client/rest-client.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROUNDS = 25;

async function faultCount(): Promise<number> {
  return (await processFaults.get()).values.reduce((sum, value) => sum + value.value, 0);
}

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

/** A workload of `kind` (apps/v1) named `name`, 2 replicas. */
function workload(kind: string, name: string): Record<string, unknown> {
  const spec: Record<string, unknown> = { selector: { matchLabels: { app: name } }, template: template(name) };
  if (kind !== 'DaemonSet') spec.replicas = 2;
  if (kind === 'StatefulSet') spec.podManagementPolicy = 'Parallel';
  return { apiVersion: 'apps/v1', kind, metadata: { name }, spec };
}

describe('devcluster controllers: objects deleted while their controller acts', function () {
  this.timeout(180_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let api: ApiClient;

  before(async () => {
    const dir = await makeTempDir('deletion-races');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
    await remove?.();
  });

  for (const [kind, resource] of [
    ['Deployment', 'deployments'],
    ['ReplicaSet', 'replicasets'],
    ['StatefulSet', 'statefulsets'],
    ['DaemonSet', 'daemonsets'],
  ] as const) {
    it(`${kind}s scaled and deleted at once, ${ROUNDS} times: no fault reported`, async () => {
      const ns = `race-${resource}`;
      expectStatus(
        await api.request('POST', '/api/v1/namespaces', { metadata: { name: ns } }),
        'create namespace',
        201,
      );
      const base = `/apis/apps/v1/namespaces/${ns}/${resource}`;
      const before = await faultCount();
      for (let round = 0; round < ROUNDS; round++) {
        const name = `w${round}`;
        expectStatus(await api.request('POST', base, workload(kind, name)), `create ${name}`, 201);
        const scaled =
          kind === 'DaemonSet'
            ? { spec: { template: { metadata: { labels: { app: name, round: String(round) } } } } }
            : { spec: { replicas: 3 } };
        await api.request('PATCH', `${base}/${name}`, scaled, { 'Content-Type': 'application/merge-patch+json' });
        expectStatus(
          await api.request('DELETE', `${base}/${name}`, { propagationPolicy: 'Background' }),
          `delete ${name}`,
          200,
        );
      }
      // A last one that must come up: each controller works its keys in order, so once it is
      // ready every earlier key has had its turn (and its fault, if any, is counted).
      expectStatus(await api.request('POST', base, workload(kind, 'last')), 'create last', 201);
      await eventually(
        async () => (await api.request('GET', `/api/v1/namespaces/${ns}/pods`)).body.items,
        (pods: any[]) => {
          const live = pods.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.labels.app);
          expect(live.length, JSON.stringify(live)).to.be.greaterThan(0);
          expect(live.every((app) => app === 'last')).to.equal(true, JSON.stringify(live));
        },
        60_000,
      );
      expect(await faultCount(), 'faults reported by the controllers').to.equal(before);
    });
  }
});
