/**
 * `HOST:PORT`, an IPv6 host in brackets: how `--listen` and `--advertise-address` are written,
 * and what a URL or a pod's `tcp://` variable holds. Pure, so translate/ reads it too.
 */

/** A host (an IP or a DNS name, without brackets) and a port. */
export interface HostPort {
  host: string;
  port: number;
}

/** The host (without brackets) and port of `HOST:PORT`; undefined for any other text. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text);
  return match ? { host: match[1] ?? match[2], port: Number(match[3]) } : undefined;
}

/** `host:port`, an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
