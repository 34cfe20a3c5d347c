import type { RestClient } from '../apiserver/client/rest-client.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';

/** An upstream Kubernetes cluster the gateway places tenants on. */
export interface UpstreamCluster {
  name: string;
  labels: Record<string, string>;
  client: RestClient;
  /** The Cluster object as last seen: what placement reads (labels, location, taints, Ready). */
  cluster: ApiObject;
}
