/**
 * The search cache as a benchmark sets it up, through the gateway's admin API as an admin would:
 * realistic Pods written straight to each member cluster, the Clusters Ready, a ResourceRegistry
 * of the Pods of every cluster applied, and the proxy path answering every Pod from the cache.
 */
import { RestClient } from '../../apiserver/client/rest-client.js';
import { waitUntil } from '../../test/support/eventually.js';
import type { ClustersEnvironment, MemberCluster } from './clusters-environment.js';
import { UpstreamWriter } from './fixtures.js';

/** karmada-search's proxy path for every cluster (the search cache first, then the clusters). */
export const PROXY_PATH = '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy';
/** How long the first lists of a filled cluster may take to reach the cache. */
const CACHE_FILL_TIMEOUT_MS = 120_000;
/** `counts[i]` realistic Pods in `namespace` of member i, made there first; all clusters at once. */
export async function createPodsAcross(env: ClustersEnvironment, namespace: string, counts: number[]): Promise<void> {
  await Promise.all(
    env.members.map(async (member, i) => {
      const writer = new UpstreamWriter(member.admin);
      try {
        await writer.create('/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: namespace },
        });
        await writer.createPods([namespace], counts[i]);
      } finally {
        await writer.close();
      }
    }),
  );
}

/** Waits for every Cluster to be Ready, applies a registry of all clusters' Pods, and waits until the cache holds `total`. */
export async function cachePodsOfAllClusters(env: ClustersEnvironment, total: number): Promise<void> {
  const admin = RestClient.fromKubeconfig(env.gatewayAdminKubeconfig);
  try {
    await waitUntil(
      'every Cluster is Ready',
      async () => {
        const res = await admin.request('GET', '/apis/cluster.karmada.io/v1alpha1/clusters');
        const clusters = (res.body?.items ?? []) as { status?: { conditions?: { type: string; status: string }[] } }[];
        const ready = clusters.filter((c) =>
          c.status?.conditions?.some((k) => k.type === 'Ready' && k.status === 'True'),
        );
        return ready.length === env.members.length;
      },
      { timeout: CACHE_FILL_TIMEOUT_MS, interval: 200 },
    );
    const created = await admin.request('POST', '/apis/search.karmada.io/v1alpha1/resourceregistries', {
      apiVersion: 'search.karmada.io/v1alpha1',
      kind: 'ResourceRegistry',
      metadata: { name: 'pods' },
      spec: {
        targetCluster: { clusterNames: env.members.map((member) => member.name) },
        resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }],
      },
    });
    if (created.status !== 201)
      throw new Error(`applying the ResourceRegistry: ${created.status} ${created.text.slice(0, 300)}`);
    let cached = 0;
    await waitUntil(
      `the search cache holds all ${total} Pods`,
      async () => {
        const res = await admin.request('GET', `${PROXY_PATH}/api/v1/pods?resourceVersion=0`);
        cached = res.status === 200 ? (res.body.items as unknown[]).length : 0;
        return cached === total;
      },
      {
        timeout: CACHE_FILL_TIMEOUT_MS,
        interval: 500,
        message: () => `the search cache holds ${cached} of ${total} Pods`,
      },
    );
  } finally {
    admin.close();
  }
}

/** The cache's multi-cluster resourceVersion now: a watch from it sees every write made after. */
export async function cacheRevision(env: ClustersEnvironment): Promise<string> {
  const admin = RestClient.fromKubeconfig(env.gatewayAdminKubeconfig);
  try {
    const res = await admin.request('GET', `${PROXY_PATH}/api/v1/pods?limit=1`);
    if (res.status !== 200) throw new Error(`listing through the proxy path: ${res.status} ${res.text.slice(0, 300)}`);
    return String(res.body.metadata.resourceVersion);
  } finally {
    admin.close();
  }
}

/** A member cluster's revision of its Pods now, read on the cluster itself. */
export async function clusterRevision(member: MemberCluster): Promise<string> {
  const client = RestClient.fromKubeconfig(member.adminKubeconfig);
  try {
    const res = await client.request('GET', '/api/v1/pods?limit=1');
    if (res.status !== 200) throw new Error(`listing ${member.name}'s pods: ${res.status} ${res.text.slice(0, 300)}`);
    return String(res.body.metadata.resourceVersion);
  } finally {
    client.close();
  }
}
