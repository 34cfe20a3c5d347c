import { parseKubeconfig } from '../../certs/index.js';

/** Where a load goes and as whom: an HTTPS origin, its CA, a client certificate, extra headers. */
export interface Target {
  origin: string;
  ca: string;
  cert: string;
  key: string;
  headers: Record<string, string>;
}

export function targetOf(kubeconfig: string, headers: Record<string, string> = {}): Target {
  const parsed = parseKubeconfig(kubeconfig);
  return { origin: new URL(parsed.server).origin, ca: parsed.caPem, cert: parsed.certPem, key: parsed.keyPem, headers };
}
