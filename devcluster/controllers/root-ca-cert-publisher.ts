/**
 * kube-controller-manager's `root-ca-cert-publisher`: every Active namespace has the ConfigMap
 * `kube-root-ca.crt` whose `ca.crt` is the cluster's CA (what a pod's kube-api-access volume
 * projects as `ca.crt`). Deleted, it is created again; its data changed, it is written back, and
 * the description annotation is set again when missing or emptied. Other annotations, labels and
 * `binaryData` are left as they are, as kube leaves them.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ApiServer } from '../../apiserver/api-server.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import type { Store } from '../../store/index.js';
import { NamespaceObjectLoop } from './namespace-object-loop.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const ROOT_CA_KEY = 'ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** kube 1.32's text, word for word (pkg/controller/certificates/rootcacertpublisher). */
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the ' +
  'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export function rootCaCertPublisher(api: ApiServer, store: Store, caPem: string): NamespaceObjectLoop {
  const data = { [ROOT_CA_KEY]: caPem };
  return new NamespaceObjectLoop(api, store, {
    controller: 'root-ca-cert-publisher',
    resource: 'configmaps',
    name: ROOT_CA_CONFIGMAP,
    fresh: () => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
      data,
    }),
    repair: (current: ApiObject) => {
      if (isDeepStrictEqual(current.data, data) && current.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return null;
      const annotations = { ...(current.metadata.annotations ?? {}), [DESCRIPTION_ANNOTATION]: DESCRIPTION };
      return { ...current, metadata: { ...current.metadata, annotations }, data };
    },
  });
}
