import { parse } from 'yaml';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { parseKubeconfig, renderKubeconfig } from '../certs/index.js';
import { SECRET_CA_BUNDLE, SECRET_TLS_CERT, SECRET_TLS_KEY, SECRET_TOKEN, secretValue } from './cluster-secrets.js';

/**
 * How the gateway reaches a registered cluster: the kubeconfig rendered from the Cluster's
 * `spec.apiEndpoint` and its Secret (CA bundle, client certificate and key), which is what
 * the gateway's upstream connections are built from; or why it cannot be reached yet.
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
  const certPem = secretValue(secret, SECRET_TLS_CERT);
  const keyPem = secretValue(secret, SECRET_TLS_KEY);
  if (!caPem) return { problem: `secret ${ref.namespace}/${ref.name} has no ${SECRET_CA_BUNDLE}` };
  if (!certPem || !keyPem) {
    const token = secretValue(secret, SECRET_TOKEN);
    return {
      problem: token
        ? `secret ${ref.namespace}/${ref.name} holds a token: the gateway reaches clusters with a client certificate (${SECRET_TLS_CERT}, ${SECRET_TLS_KEY})`
        : `secret ${ref.namespace}/${ref.name} has no ${SECRET_TLS_CERT} and ${SECRET_TLS_KEY}`,
    };
  }
  return {
    kubeconfig: renderKubeconfig({
      clusterName: name,
      server,
      caPem,
      userName: name,
      certPem,
      keyPem,
      contextName: name,
    }),
  };
}

/** A kubeconfig's endpoint and its credentials as a cluster Secret's data (base64 values). */
export function registrationFromKubeconfig(text: string): { apiEndpoint: string; data: Record<string, string> } {
  const parsed = parseKubeconfig(text);
  const base64 = (value: string) => Buffer.from(value).toString('base64');
  const data: Record<string, string> = {
    [SECRET_CA_BUNDLE]: base64(parsed.caPem),
    [SECRET_TLS_CERT]: base64(parsed.certPem),
    [SECRET_TLS_KEY]: base64(parsed.keyPem),
  };
  const token = userToken(text, parsed.user);
  if (token) data[SECRET_TOKEN] = base64(token);
  return { apiEndpoint: parsed.server, data };
}

/** The context user's bearer token, when the kubeconfig carries one beside its certificate. */
function userToken(text: string, user: string): string | undefined {
  const users = (parse(text) as { users?: { name?: string; user?: { token?: unknown } }[] }).users ?? [];
  const token = users.find((u) => u.name === user)?.user?.token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}
