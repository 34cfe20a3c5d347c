/**
 * `/healthz`, `/livez` and `/readyz`, as kube-apiserver answers them: to anyone, without a client
 * certificate (kube grants them to `system:unauthenticated`), since a load balancer's health check
 * and the kubelet's probes present none. `ok` when every check passes (`?verbose` lists them and
 * ends `<endpoint> check passed`); otherwise 500, every check listed, a failed one with its reason
 * withheld, and `<endpoint> check failed`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestUrl } from '../../apiserver/request-info.js';

export interface HealthCheck {
  name: string;
  passes(): boolean;
}

export interface HealthChecks {
  /** Whether this replica should get requests: `/readyz`. */
  readyz: readonly HealthCheck[];
  /** Whether this process works at all (a failing one is restarted): `/livez` and `/healthz`. */
  livez: readonly HealthCheck[];
}

const HEALTH_PATH = /^\/(healthz|livez|readyz)\/*(\?|$)/;

export const PING: HealthCheck = { name: 'ping', passes: () => true };

/** Answers a health endpoint; false for any other request. */
export function serveHealth(req: IncomingMessage, res: ServerResponse, checks: HealthChecks): boolean {
  // Every request passes here: only a health path is parsed.
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !HEALTH_PATH.test(req.url ?? '')) return false;
  const url = requestUrl(req.url);
  const endpoint = url.pathname.replace(/\/+$/, '');
  const list =
    endpoint === '/readyz'
      ? checks.readyz
      : endpoint === '/livez' || endpoint === '/healthz'
        ? checks.livez
        : undefined;
  if (!list) return false;
  const results = list.map((check) => ({ name: check.name, passed: check.passes() }));
  const passed = results.every((result) => result.passed);
  const lines = results.map(({ name, passed }) => (passed ? `[+]${name} ok` : `[-]${name} failed: reason withheld`));
  const verbose = url.searchParams.has('verbose');
  const body =
    passed && !verbose ? 'ok' : `${lines.join('\n')}\n${endpoint.slice(1)} check ${passed ? 'passed' : 'failed'}\n`;
  res.writeHead(passed ? 200 : 500, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
