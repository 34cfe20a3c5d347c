import type { ApiObject } from '../apiserver/registry/object-store.js';
import { parseServerCredentials, renderKubeconfig } from '../certs/index.js';
import { SECRET_CA_BUNDLE, SECRET_TLS_CERT, SECRET_TLS_KEY, SECRET_TOKEN, secretValue } from './cluster-secrets.js';

/**
 * How the gateway reaches a registered cluster: the kubeconfig rendered from the Cluster's
 * `spec.apiEndpoint` and its Secret — the CA bundle (or `insecureSkipTLSVerification`), and a
 * client certificate and key or Karmada's bearer `token` — which the gateway's upstream
 * connections are built from; or why it cannot be reached yet.
 */
export function clusterKubeconfig(
  cluster: ApiObject,
  secret: ApiObject | undefined,
): { kubeconfig: string } | { problem: string } {
  const name = String(cluster.metadata.name);
  const server = cluster.spec?.apiEndpoint;
  if (typeof server !== 'string' || server === '') return { problem: 'the cluster has no spec.apiEndpoint' };
  const ref = cluster.spec?.secretRef;
  if (!ref?.name) return { problem: 'the cluster has no spec.secretRef' };
  if (!secret) return { problem: `secret ${ref.namespace}/${ref.name} does not exist` };
  const caPem = secretValue(secret, SECRET_CA_BUNDLE);
  const insecureSkipTlsVerify = cluster.spec?.insecureSkipTLSVerification === true;
  if (!caPem && !insecureSkipTlsVerify)
    return { problem: `secret ${ref.namespace}/${ref.name} has no ${SECRET_CA_BUNDLE}` };
  const certPem = secretValue(secret, SECRET_TLS_CERT);
  const keyPem = secretValue(secret, SECRET_TLS_KEY);
  const token = secretValue(secret, SECRET_TOKEN);
  if (!(certPem && keyPem) && !token)
    return {
      problem: `secret ${ref.namespace}/${ref.name} has neither ${SECRET_TOKEN} nor ${SECRET_TLS_CERT} and ${SECRET_TLS_KEY}`,
    };
  return {
    kubeconfig: renderKubeconfig({
      clusterName: name,
      server,
      ...(insecureSkipTlsVerify ? { insecureSkipTlsVerify } : { caPem }),
      userName: name,
      ...(certPem && keyPem ? { certPem, keyPem } : { token }),
      contextName: name,
    }),
  };
}

/** A kubeconfig's endpoint and its credentials as a cluster Secret's data (base64 values). */
export function registrationFromKubeconfig(text: string): {
  apiEndpoint: string;
  insecureSkipTLSVerification: boolean;
  data: Record<string, string>;
} {
  const parsed = parseServerCredentials(text);
  const base64 = (value: string) => Buffer.from(value).toString('base64');
  const data: Record<string, string> = {};
  if (parsed.caPem) data[SECRET_CA_BUNDLE] = base64(parsed.caPem);
  if (parsed.certPem) data[SECRET_TLS_CERT] = base64(parsed.certPem);
  if (parsed.keyPem) data[SECRET_TLS_KEY] = base64(parsed.keyPem);
  if (parsed.token) data[SECRET_TOKEN] = base64(parsed.token);
  return { apiEndpoint: parsed.server, insecureSkipTLSVerification: parsed.insecureSkipTlsVerify === true, data };
}
