/**
 * The real kubectl reading the multi-cluster cache's answers over TLS: a server that answers
 * discovery for pods and sends every pods read to `serveCacheRead`. kubectl pages with
 * `--chunk-size` (limit and the multi-cluster continue token), prints the JSON list it gets
 * instead of a Table, reads one object, shows a 400 as the apiserver's, and watches.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { queryBool } from '../../apiserver/query-bool.js';
import { serveCacheRead } from '../../search/cache-response.js';
import { MultiClusterCache } from '../../search/multi-cluster-cache.js';
import { createCertificateAuthority, renderKubeconfig } from '../../certs/index.js';
import { PODS, pod } from '../support/cached-objects.js';
import { Kubectl, KUBECTL_1_32 } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

const POD_RESOURCES = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'v1',
  resources: [
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'list', 'watch'],
      shortNames: ['po'],
    },
  ],
};

function discovery(port: number): Record<string, unknown> {
  return {
    '/version': { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' },
    '/api': {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }],
    },
    '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
    '/api/v1': POD_RESOURCES,
  };
}

describe('cache: kubectl reads the multi-cluster cache', function () {
  this.timeout(60_000);
  let server: Server;
  let cache: MultiClusterCache;
  let kubectl: Kubectl;
  let removeDir: () => Promise<void>;

  before(async () => {
    cache = new MultiClusterCache();
    cache.updateCache(
      new Map(
        ['member1', 'member2', 'member3'].map((cluster) => [cluster, [{ resource: PODS, namespaces: 'all' as const }]]),
      ),
      [PODS],
    );
    cache
      .storeOf('member1', PODS)!
      .replace([pod('a1', { labels: { app: 'x' } }), pod('a2', { namespace: 'other' })], '11');
    cache.storeOf('member2', PODS)!.replace([], '21');
    cache.storeOf('member3', PODS)!.replace([pod('c1'), pod('c2', { labels: { app: 'x' } }), pod('c3')], '31');

    const ca = await createCertificateAuthority({ commonName: 'cache-ca' });
    const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1'] });
    const client = await ca.issueClientCertificate({ commonName: 'reader' });
    let answers: Record<string, unknown> = {};
    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url!, 'https://cache');
      if (Object.hasOwn(answers, url.pathname)) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answers[url.pathname]));
        return;
      }
      const match = /^\/api\/v1(?:\/namespaces\/([^/]+))?\/pods(?:\/([^/]+))?$/.exec(url.pathname);
      if (!match) return void res.writeHead(404, { 'Content-Type': 'application/json' }).end('{}');
      const stale = await serveCacheRead(req, res, cache, {
        resource: PODS,
        namespace: match[1] ?? '',
        name: match[2],
        query: url.searchParams,
        watch: queryBool(url.searchParams, 'watch'),
      });
      if (stale) res.writeHead(503).end();
    };
    server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
      handle(req, res).catch((err: Error) => res.destroy(err));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    answers = discovery(port);
    const { dir, remove } = await makeTempDir('cache-kubectl');
    removeDir = remove;
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      renderKubeconfig({
        clusterName: 'cache',
        server: `https://127.0.0.1:${port}`,
        caPem: ca.certPem,
        userName: 'reader',
        certPem: client.certPem,
        keyPem: client.keyPem,
        contextName: 'cache',
      }),
    );
    kubectl = await Kubectl.create(kubeconfig, KUBECTL_1_32);
  });

  after(async () => {
    cache.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await kubectl.dispose();
    await removeDir();
  });

  it('pages of 2 over 3 clusters come back as the whole list, clusters in order, each item annotated', async () => {
    const list = JSON.parse(await kubectl.ok(['get', 'pods', '-A', '--chunk-size=2', '-o', 'json']));
    expect(
      list.items.map(
        (item: any) =>
          `${item.metadata.annotations['resource.karmada.io/cached-from-cluster']} ${item.metadata.namespace}/${item.metadata.name}`,
      ),
    ).to.deep.equal([
      'member1 default/a1',
      'member1 other/a2',
      'member3 default/c1',
      'member3 default/c2',
      'member3 default/c3',
    ]);
  });

  it('kubectl get prints the JSON list itself when no Table comes back', async () => {
    const printed = await kubectl.ok(['get', 'pods', '-n', 'default', '--chunk-size=1', '-l', 'app=x']);
    expect(printed.split('\n')[0]).to.match(/^NAME\s/);
    expect(
      printed
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[0]),
    ).to.deep.equal(['a1', 'c2']);
  });

  it('one object, and a bad field selector as the apiserver words it', async () => {
    const object = JSON.parse(await kubectl.ok(['get', 'pod', 'c3', '-n', 'default', '-o', 'json']));
    expect(object.metadata.annotations).to.deep.equal({ 'resource.karmada.io/cached-from-cluster': 'member3' });
    const refused = await kubectl.run(['get', 'pods', '-A', '--field-selector', 'spec.nope=x']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain(
      'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.nope=x": field label not supported: spec.nope',
    );
  });

  it('kubectl get -w sees a pod added in any cluster', async () => {
    const watch = kubectl.start(['get', 'pods', '-n', 'default', '-w', '-o', 'name']);
    try {
      await watch.waitFor(/pod\/c3/);
      cache.storeOf('member2', PODS)!.add(pod('b9', { resourceVersion: '22' }), '22');
      await watch.waitFor(/pod\/b9/);
    } finally {
      await watch.stop();
    }
  });
});
