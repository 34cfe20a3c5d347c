import type { Readable } from 'node:stream';
import type { RestClient } from '../apiserver/client/rest-client.js';

/** A cluster's answer, its body read as it comes or, with `text()`, whole. */
export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & { text(): Promise<string> };
}

/**
 * What clusters/ needs of a connection to a cluster: the probe's requests, the cluster as the
 * gateway itself, and a way to cut it. The cluster roster decides when a connection is made and
 * when it is cut, and makes it through the factory it is given: the connection itself (pools,
 * seats, discovery, the tenants' authorizer and namespace index) is the gateway's
 * (gateway/upstream/upstream-connection.ts), which sits above clusters/ and may use tenants/.
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

/** Makes the connection to a cluster from its kubeconfig; throws when the credentials cannot be used. */
export type ConnectCluster<C extends ClusterConnection> = (name: string, kubeconfig: string) => C;
