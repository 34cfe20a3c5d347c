import { parse, stringify } from 'yaml';

export interface KubeconfigOptions {
  clusterName: string;
  /** https://host:port */
  server: string;
  /** The CA the server is checked against; none only with `insecureSkipTlsVerify`. */
  caPem?: string;
  userName: string;
  /** A client certificate and its key, or (for a cluster that takes one) a bearer `token`. */
  certPem?: string;
  keyPem?: string;
  token?: string;
  /** The server's certificate is not checked (Karmada's insecureSkipTLSVerification); no CA is then needed. */
  insecureSkipTlsVerify?: boolean;
  contextName: string;
  namespace?: string;
}

/** The current context of a kubeconfig, with its cluster and client-certificate user resolved. */
export interface ParsedKubeconfig {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  /** Name of the context's user entry. */
  user: string;
  /** Name of the current context. */
  context: string;
  namespace?: string;
}

/** How a client reaches a server: its address, the CA it trusts, and a client certificate or a bearer token. */
export interface ServerCredentials {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  insecureSkipTlsVerify?: boolean;
}

/** A kubeconfig with one cluster, user and context, credentials inline so the file stands alone. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const { certPem, keyPem, token, ...rest } = options;
  const user: Record<string, string> = {};
  if (certPem) user['client-certificate-data'] = base64(certPem);
  if (keyPem) user['client-key-data'] = base64(keyPem);
  if (token) user.token = token;
  return stringify(kubeconfigDocument({ ...rest, user }));
}

/** What `kubeconfigDocument` lays out: a kubeconfig's options with its user entry as written. */
export type KubeconfigDocumentOptions = Omit<KubeconfigOptions, 'certPem' | 'keyPem' | 'token'> & {
  user: Record<string, string>;
};

/** The object a kubeconfig's YAML is written from, in the order kubectl writes its fields. */
export function kubeconfigDocument(options: KubeconfigDocumentOptions): Record<string, unknown> {
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.caPem) cluster['certificate-authority-data'] = base64(options.caPem);
  if (options.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: options.clusterName, cluster }],
    users: [{ name: options.userName, user: options.user }],
    contexts: [
      {
        name: options.contextName,
        context: {
          cluster: options.clusterName,
          user: options.userName,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
        },
      },
    ],
    'current-context': options.contextName,
    preferences: {},
  };
}

function base64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

interface NamedEntry {
  name?: unknown;
  [field: string]: unknown;
}

/**
 * Reads the current context's server and inline (`-data`) credentials. File references
 * (`certificate-authority`, `client-certificate`, `client-key`) and token or exec users are not
 * supported and are reported as errors naming the missing field.
 */
export function parseKubeconfig(text: string): ParsedKubeconfig {
  const { context, contextEntry, clusterName, cluster, user, userEntry } = currentContext(text);
  const namespace = contextEntry.namespace;
  return {
    server: stringField(cluster, 'server', `cluster ${clusterName}`),
    caPem: pemField(cluster, 'certificate-authority-data', `cluster ${clusterName}`),
    certPem: pemField(userEntry, 'client-certificate-data', `user ${user}`),
    keyPem: pemField(userEntry, 'client-key-data', `user ${user}`),
    user,
    context,
    ...(typeof namespace === 'string' && namespace !== '' ? { namespace } : {}),
  };
}

/**
 * The current context's server and credentials, as a client of that server needs them: like
 * `parseKubeconfig`, but the user may carry a bearer `token` instead of a client certificate, and
 * the cluster `insecure-skip-tls-verify` instead of a CA.
 */
export function parseServerCredentials(text: string): ServerCredentials {
  const { clusterName, cluster, user, userEntry } = currentContext(text);
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  const token = typeof userEntry.token === 'string' && userEntry.token !== '' ? userEntry.token : undefined;
  const credentials: ServerCredentials = {
    server: stringField(cluster, 'server', `cluster ${clusterName}`),
    ...(insecure && !cluster['certificate-authority-data']
      ? { insecureSkipTlsVerify: true }
      : { caPem: pemField(cluster, 'certificate-authority-data', `cluster ${clusterName}`) }),
  };
  if (token && !userEntry['client-certificate-data']) return { ...credentials, token };
  return {
    ...credentials,
    certPem: pemField(userEntry, 'client-certificate-data', `user ${user}`),
    keyPem: pemField(userEntry, 'client-key-data', `user ${user}`),
    ...(token ? { token } : {}),
  };
}

/** The current context's entries: the context itself, its cluster's and its user's. */
function currentContext(text: string) {
  const config = (parse(text) ?? {}) as Record<string, unknown>;
  const context = config['current-context'];
  if (typeof context !== 'string' || context === '') throw new Error('kubeconfig has no current-context');
  const contextEntry = entry(config, 'contexts', context, 'context');
  const clusterName = stringField(contextEntry, 'cluster', `context ${context}`);
  const user = stringField(contextEntry, 'user', `context ${context}`);
  return {
    context,
    contextEntry,
    clusterName,
    cluster: entry(config, 'clusters', clusterName, 'cluster'),
    user,
    userEntry: entry(config, 'users', user, 'user'),
  };
}

/** The inner object of the named entry in a list such as `clusters: [{name, cluster: {...}}]`. */
function entry(config: Record<string, unknown>, list: string, name: string, inner: string): Record<string, unknown> {
  const entries = config[list];
  const found = Array.isArray(entries) ? (entries as NamedEntry[]).find((e) => e?.name === name) : undefined;
  const value = found?.[inner];
  if (!value || typeof value !== 'object') throw new Error(`kubeconfig has no ${inner} named ${JSON.stringify(name)}`);
  return value as Record<string, unknown>;
}

function stringField(object: Record<string, unknown>, field: string, where: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value === '') throw new Error(`kubeconfig ${where} has no ${field}`);
  return value;
}

function pemField(object: Record<string, unknown>, field: string, where: string): string {
  return Buffer.from(stringField(object, field, where), 'base64').toString('utf8');
}
