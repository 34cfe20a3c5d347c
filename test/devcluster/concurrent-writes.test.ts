import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('devcluster: writes and deletes without a resourceVersion that race each other', function () {
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let api: ApiClient;

  before(async () => {
    const dir = await makeTempDir('concurrent-writes');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
    await remove?.();
  });

  // kube-apiserver retries such a write against the current object until it lands (as the
  // controllers' status writes race every kubectl patch, scale and set image), so none is a 409.
  it('every concurrent merge and strategic merge patch lands, none answered Conflict', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    expect((await api.request('POST', path, { metadata: { name: 'counter' }, data: {} })).status).to.equal(201);
    const writes = Array.from({ length: 24 }, (_, i) =>
      i % 2
        ? api.request(
            'PATCH',
            `${path}/counter`,
            { data: { [`k${i}`]: 'v' } },
            {
              'Content-Type': 'application/merge-patch+json',
            },
          )
        : api.request(
            'PATCH',
            `${path}/counter`,
            { metadata: { labels: { [`l${i}`]: 'v' } } },
            {
              'Content-Type': 'application/strategic-merge-patch+json',
            },
          ),
    );
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status)).to.deep.equal(Array(24).fill(200));
    const { body } = await api.request('GET', `${path}/counter`);
    expect(Object.keys(body.data)).to.have.length(12);
    expect(Object.keys(body.metadata.labels)).to.have.length(12);
  });

  it('a delete racing patches of its object lands (200), never a Conflict', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const names = Array.from({ length: 12 }, (_, i) => `raced-${i}`);
    for (const name of names) await api.request('POST', path, { metadata: { name }, data: {} });
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const deletes = names.map(async (name) => {
      const patches = Array.from({ length: 4 }, (_, i) =>
        api.request('PATCH', `${path}/${name}`, { data: { [`k${i}`]: 'v' } }, merge),
      );
      const deleted = await api.request('DELETE', `${path}/${name}`);
      await Promise.all(patches);
      return deleted.status;
    });
    expect(await Promise.all(deletes)).to.deep.equal(Array(12).fill(200));
    expect((await api.request('GET', path)).body.items.map((i: any) => i.metadata.name)).to.not.include.members(names);
  });
});
