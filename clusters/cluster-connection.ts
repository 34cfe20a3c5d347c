import type { Readable } from 'node:stream';
import type { RestClient } from '../apiserver/client/rest-client.js';

/** A cluster's answer, its body read as it comes or, with `text()`, whole. */
export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & { text(): Promise<string> };
}

/**
 * What the probe needs of a connection to a cluster (cluster-probe.ts, api-enablements.ts): its
 * requests, the cluster as the gateway itself, and a way to cut it. The connection the roster
 * keeps (upstream-connection.ts) is one; naming the little the probe uses keeps the probe's
 * behaviour readable apart from pools, seats and discovery.
 */
export interface ClusterConnection {
  /** The cluster as the gateway itself, no impersonation. */
  readonly admin: RestClient;
  request(
    method: string,
    path: string,
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
    timeoutMs?: number,
  ): Promise<UpstreamResponse>;
  /** Close at once, cutting whatever is open: the cluster was removed or its credentials changed. */
  destroy(): Promise<void>;
}
