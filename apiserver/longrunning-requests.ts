import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Gauge, Registry } from 'prom-client';
import { queryBool } from './query-bool.js';
import type { ResourceRequestInfo } from './request-info.js';

/** Subresources kube-apiserver serves as a connection (its `Connecter`s): an upgraded stream or a proxy. */
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);

/**
 * kube-apiserver's `apiserver_longrunning_requests` gauge, on a registry of its own (several
 * servers run in one process in tests): the requests open now that hold their connection for
 * the client's time — watches (verb WATCH), exec, attach, port-forward and proxies (CONNECT), and
 * followed logs (GET) — by kube's labels. A request is counted from when it is authorized until
 * its response or socket closes, however that happens (the end, a timeout, a client hanging up).
 */
export class LongRunningRequests {
  readonly registry = new Registry();
  private readonly gauge = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
    registers: [this.registry],
  });

  /** Counts the request while `closes` (its response, or an upgraded socket) is open, if it is long-running. */
  track(info: ResourceRequestInfo, query: URLSearchParams, closes: ServerResponse | EventEmitter): void {
    const verb = reportedVerb(info, query);
    if (!verb) return;
    const labels = {
      verb,
      group: info.group,
      version: info.version,
      resource: info.resource,
      subresource: info.subresource,
      scope: scopeOf(info),
      component: 'apiserver',
    };
    this.gauge.inc(labels);
    closes.once('close', () => this.gauge.dec(labels));
  }

  /** The exposition for `GET /metrics`. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The `verb` label of a long-running request (kube's cleanVerb), or undefined for one that is not. */
function reportedVerb(info: ResourceRequestInfo, query: URLSearchParams): string | undefined {
  if (CONNECT_SUBRESOURCES.has(info.subresource)) return 'CONNECT';
  if (info.verb === 'watch') return 'WATCH';
  if (info.subresource === 'log' && queryBool(query, 'follow')) return 'GET';
  return undefined;
}

/** kube's CleanScope: `resource` for one named object, `namespace` within one, `cluster` across all. */
function scopeOf(info: ResourceRequestInfo): string {
  if (info.name !== '') return 'resource';
  if (info.namespace !== '') return 'namespace';
  return 'cluster';
}
