import { parseServerCredentials } from '../certs/index.js';

/**
 * Where and how an upgraded request (exec, attach, port-forward, a WebSocket on `proxy`) reaches a
 * cluster: its own TLS connection rather than a pooled one, since the socket is handed over once
 * the cluster switches protocols (gateway/proxy/upgrade-proxy.ts).
 */
export interface UpgradeTarget {
  server: URL;
  tls: { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean };
  /** The cluster's bearer token, when it is reached with one. */
  token?: string;
}

export function upgradeTarget(kubeconfig: string): UpgradeTarget {
  const parsed = parseServerCredentials(kubeconfig);
  return {
    server: new URL(parsed.server),
    tls: {
      ca: parsed.caPem,
      cert: parsed.certPem,
      key: parsed.keyPem,
      rejectUnauthorized: !parsed.insecureSkipTlsVerify,
    },
    ...(parsed.token ? { token: parsed.token } : {}),
  };
}
