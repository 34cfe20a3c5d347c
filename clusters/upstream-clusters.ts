import type { RestClient } from '../apiserver/client/rest-client.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import type { PodApi } from '../translate/context.js';

/** An upstream Kubernetes cluster the gateway places tenants on. */
export interface UpstreamCluster {
  name: string;
  labels: Record<string, string>;
  client: RestClient;
  /** The Cluster object as last seen: what placement reads (labels, location, taints, Ready). */
  cluster: ApiObject;
  /** Where the tenants' pods on the cluster reach the gateway, once it says (translate/kinds/pod-api.ts). */
  podApi?(): PodApi | undefined;
}
