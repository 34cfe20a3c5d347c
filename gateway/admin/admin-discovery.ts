import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceCatalog } from '../../apiserver/catalog.js';
import {
  acceptsAggregatedDiscovery,
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  type AggregatedDiscoveryVersion,
} from '../../apiserver/discovery/aggregated.js';
import { apiGroupList } from '../../apiserver/discovery/legacy.js';
import { sendJson, sendStatus } from '../../apiserver/handlers/http-io.js';
import { pathNotFound } from '../../apiserver/status.js';
import { openapiV3Index } from '../../apiserver/openapi/v3.js';
import type { ClusterMember } from '../../clusters/cluster-roster.js';
import { ADMIN_GROUPS } from '../../translate/context.js';
import { defaultClusterUnavailable } from '../upstream/upstream-failure.js';

/**
 * How long the admin's discovery waits for the default cluster before it answers without it: a
 * cluster that hangs rather than refuses must not hold every kubectl command of the admin.
 */
const DISCOVERY_WAIT_MS = 3_000;

/** The form of a discovery document: aggregated in one of its versions, or legacy JSON. */
type Form = AggregatedDiscoveryVersion | 'legacy';

const ACCEPT_OF: Record<Form, string> = {
  v2: aggregatedDiscoveryContentType('v2'),
  v2beta1: aggregatedDiscoveryContentType('v2beta1'),
  legacy: 'application/json',
};

/**
 * The admin's discovery (`/api`, `/apis`, each group and group version the default cluster
 * serves, `/openapi/v3`) that no member cluster can take down. The gateway's own groups are always
 * there; the default cluster's come from its answer, or, when it cannot answer (down, hanging,
 * failing), from the last good copy this replica read, and are left out when there is none. A
 * failover is when the admin needs kubectl most (kube-aggregator likewise keeps serving the rest
 * when one APIService is down). The copy is served as it was, not marked Stale: client-go turns a
 * Stale group version into an error kubectl prints on every command, while a request to one of
 * its resources answers 503 with Retry-After anyway.
 */
export class AdminDiscovery {
  /** The default cluster's last good documents, by cluster, form and path. */
  private readonly copies = new Map<string, unknown>();

  constructor(private readonly catalog: ResourceCatalog) {}

  /** Whether `pathname` is a discovery document served here rather than passed through. */
  serves(method: string, pathname: string): boolean {
    if (method !== 'GET') return false;
    return pathname === '/openapi/v3' || /^\/(api(\/[^/]+)?|apis(\/[^/]+){0,2})$/.test(pathname);
  }

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    cluster: ClusterMember | undefined,
  ): Promise<void> {
    if (pathname === '/openapi/v3') return this.openApiIndex(req, res, cluster);
    const root = pathname === '/api' || pathname === '/apis';
    const form: Form = (root && acceptsAggregatedDiscovery(req.headers.accept ?? '')) || 'legacy';
    const theirs = await this.read(cluster, pathname, form);
    const contentType = form === 'legacy' ? 'application/json' : ACCEPT_OF[form];
    const headers = { 'Content-Type': contentType, Vary: 'Accept' };
    if (!root) {
      if (theirs === GONE) return sendStatus(req, res, pathNotFound());
      if (theirs === undefined) return sendStatus(req, res, defaultClusterUnavailable(cluster?.name));
      return sendJson(req, res, 200, theirs, headers);
    }
    sendJson(req, res, 200, this.root(pathname === '/api' ? 'api' : 'apis', form, theirs), headers);
  }

  /** `/api` or `/apis` in `form`: the cluster's groups (when it has any to give), then the gateway's. */
  private root(which: 'api' | 'apis', form: Form, theirs: any): unknown {
    // The named groups the gateway answers itself: its own, and whoami's authentication.k8s.io,
    // which the cluster's copy of the group (a superset) replaces when there is one.
    const own = which === 'apis' ? this.catalog.resources().filter((r) => r.group !== '') : [];
    if (form !== 'legacy') {
      const mine = aggregatedDiscovery(own, which, form);
      const items = (theirs?.items ?? []) as { metadata?: { name?: string } }[];
      const names = new Set(items.map((g) => g.metadata?.name));
      return { ...mine, items: [...items, ...mine.items.filter((g) => !names.has(g.metadata.name))] };
    }
    // A legacy `/api` without the cluster lists no version: client-go reads that as no core group.
    if (which === 'api') return theirs ?? { kind: 'APIVersions', versions: [], serverAddressByClientCIDRs: [] };
    const mine = apiGroupList(own);
    const groups = (theirs?.groups ?? []) as { name: string }[];
    const names = new Set(groups.map((g) => g.name));
    return { ...mine, groups: [...groups, ...mine.groups.filter((g) => !names.has(g.name))] };
  }

  /** `/openapi/v3`: the default cluster's documents, and the gateway's for its own groups. */
  private async openApiIndex(req: IncomingMessage, res: ServerResponse, cluster: ClusterMember | undefined) {
    const theirs = (await this.read(cluster, '/openapi/v3', 'legacy')) as { paths?: Record<string, unknown> };
    const mine = openapiV3Index(this.catalog.resources()).paths;
    const paths: Record<string, unknown> = { ...(theirs?.paths ?? {}) };
    for (const [key, entry] of Object.entries(mine)) if (ADMIN_GROUPS.has(key.split('/')[1])) paths[key] = entry;
    sendJson(req, res, 200, { paths }, { 'Cache-Control': 'no-cache, private' });
  }

  /**
   * The cluster's document at `path` in `form`: read now and kept, or the copy kept last time
   * when the cluster does not answer in time or answers an error other than 404 (a group version
   * that is gone is forgotten, and answered GONE). Undefined when there is neither.
   */
  private async read(cluster: ClusterMember | undefined, path: string, form: Form): Promise<any> {
    if (!cluster) return undefined;
    const key = `${cluster.name}\n${form}\n${path}`;
    const answer = await withinWait(fetchJson(cluster, path, ACCEPT_OF[form]));
    if (answer === GONE) {
      this.copies.delete(key);
      return GONE;
    }
    if (answer !== undefined) this.copies.set(key, answer);
    return this.copies.get(key);
  }
}

/** The cluster's answer that a document is not there (404). */
const GONE = Symbol('gone');

/** The cluster's JSON at `path`; GONE for a 404, undefined when it could not be had. */
async function fetchJson(cluster: ClusterMember, path: string, accept: string): Promise<unknown> {
  try {
    const res = await cluster.connection.request('GET', path, { accept }, undefined, DISCOVERY_WAIT_MS);
    const text = await res.body.text();
    if (res.status === 404) return GONE;
    return res.status === 200 ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** `answer`, or undefined once DISCOVERY_WAIT_MS have passed (the request goes on and ends by its own timeout). */
async function withinWait<T>(answer: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), DISCOVERY_WAIT_MS)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
