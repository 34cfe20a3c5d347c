import { expect } from 'chai';
import { DELETED_NAMESPACE_GRACE_MS } from '../../gateway/proxy/cross-namespace-watch.js';
import { ApiClient } from '../support/api-client.js';
import { sleep, waitUntil } from '../support/eventually.js';
import { startStage, type Stage } from '../support/stage.js';

describe('gateway: a watch across namespaces when a namespace is deleted and made again under its name', function () {
  this.timeout(60_000);
  let stage: Stage;
  let tenant: ApiClient;

  before(async () => {
    stage = await startStage('recreated');
    tenant = await ApiClient.load((await stage.tenant('recrea')).kubeconfigPath);
  });
  after(async () => {
    tenant?.close();
    await stage?.stop();
  });

  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  it("keeps delivering the new namespace's events once the old one's grace period is over, each event once", async () => {
    expect((await tenant.request('POST', '/api/v1/namespaces', { metadata: { name: 'blue' } })).status).to.equal(201);
    const watch = tenant.watch('/api/v1/configmaps?watch=1');
    const added = (name: string) =>
      watch.events.filter((e) => e.type === 'ADDED' && e.object.metadata.name === name).length;
    try {
      await waitUntil('the watch is up', () => watch.status === 200);
      const path = '/api/v1/namespaces/blue/configmaps';
      expect((await tenant.request('POST', path, configMap('first'))).status).to.equal(201);
      await watch.waitFor(() => added('first') === 1);

      expect((await tenant.request('DELETE', '/api/v1/namespaces/blue')).status).to.equal(200);
      await waitUntil(
        'blue is gone',
        async () => (await tenant.request('GET', '/api/v1/namespaces/blue')).status === 404,
      );
      expect((await tenant.request('POST', '/api/v1/namespaces', { metadata: { name: 'blue' } })).status).to.equal(201);
      expect((await tenant.request('POST', path, configMap('second'))).status).to.equal(201);
      await watch.waitFor(() => added('second') === 1);
      // Past the grace period in which the deleted namespace's feed stays open.
      await sleep(DELETED_NAMESPACE_GRACE_MS + 500);
      expect((await tenant.request('POST', path, configMap('third'))).status).to.equal(201);
      await watch.waitFor(() => added('third') === 1);
      expect(watch.ended).to.equal(false);
      expect(['first', 'second', 'third'].map(added)).to.deep.equal([1, 1, 1]);
    } finally {
      watch.close();
    }
  });
});
