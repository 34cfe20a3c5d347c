import { expect } from 'chai';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const NODE = 'devcluster-control-plane';

/** kubectl drain's typed client deletes pods with a protobuf DeleteOptions body. */
describe('devcluster with the real kubectl: kubectl drain --disable-eviction (protobuf DeleteOptions)', function () {
  this.timeout(60_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let kubectl: Kubectl;

  before(async () => {
    const temp = await makeTempDir('kubectl-drain');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    kubectl = await Kubectl.create(cluster.kubeconfigPath);
  });
  after(async () => {
    await kubectl?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  it('deletes the pods it selects and leaves the others', async () => {
    await kubectl.ok(['create', 'namespace', 'drain']);
    await kubectl.ok(['run', 'leaving', '--image=nginx', '-n', 'drain', '--labels=drain=me']);
    await kubectl.ok(['run', 'staying', '--image=nginx', '-n', 'drain']);
    const drained = await kubectl.run([
      'drain',
      NODE,
      '--disable-eviction',
      '--force',
      '--ignore-daemonsets',
      '--pod-selector=drain=me',
      '--grace-period=0',
      '--timeout=30s',
    ]);
    expect(drained.code, drained.stderr).to.equal(0);
    expect(drained.stdout).to.include('pod/leaving deleted');
    expect(await kubectl.ok(['get', 'pods', '-n', 'drain', '-o', 'name'])).to.equal('pod/staying\n');
    await kubectl.ok(['uncordon', NODE]);
  });
});
