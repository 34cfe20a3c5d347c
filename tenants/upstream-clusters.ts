import type { RestClient } from '../apiserver/client/rest-client.js';

/** An upstream Kubernetes cluster the gateway places tenants on. */
export interface UpstreamCluster {
  name: string;
  labels: Record<string, string>;
  client: RestClient;
}
