/** Endpoints: NAME ENDPOINTS AGE. */
import { ageColumn, column, nameColumn } from './columns.js';
import type { Printer } from './printer.js';
import { age } from './timestamps.js';

const SHOWN = 3;

/** net.JoinHostPort: IPv6 addresses go in brackets. */
const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/** The first three `ip:port` pairs (bare IPs for a subset without ports), then `+ N more...`. */
function formatEndpoints(subsets: any[] | undefined): string {
  if (!subsets?.length) return '<none>';
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses: any[] = subset.addresses ?? [];
    const ports: any[] = subset.ports ?? [];
    // A headless service may have no ports at all.
    const pairs =
      ports.length === 0
        ? addresses.map((a) => a.ip)
        : ports.flatMap((p) => addresses.map((a) => hostPort(a.ip, p.port)));
    count += pairs.length;
    shown.push(...pairs.slice(0, SHOWN - shown.length));
  }
  const text = shown.join(',');
  return count > SHOWN ? `${text} + ${count - SHOWN} more...` : text;
}

export const endpointsPrinter: Printer = {
  columns: [nameColumn, column('Endpoints', 'string'), ageColumn],
  cells: (ep, now) => [ep.metadata?.name ?? '', formatEndpoints(ep.subsets), age(ep, now)],
};
