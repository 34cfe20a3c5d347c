/**
 * The gateway's audit log (`paddock serve --audit-log-path FILE`): one JSON line per event, in
 * Kubernetes' `audit.k8s.io/v1` Event shape at the Metadata level, so the tools that read
 * kube-apiserver's audit log read this one (docs/gateway.md, "Audit log").
 *
 * What is audited: every write (create, update, patch, delete, deletecollection; for requests off
 * the resource paths, any method but GET, HEAD and OPTIONS), by the admin or a tenant; every exec,
 * attach and port-forward session; and every request, reads too, on the gateway's own kinds —
 * Tenants (their kubeconfigs hold tenants' keys), Clusters and their Secrets in `karmada-cluster`,
 * ResourceRegistries — whoever made it (a tenant's is refused, and audited as such). Reads of
 * everything else are not: they are most of the traffic, and the request log and /metrics see them.
 * Requests whose certificate the gateway refused are not audited either (no user to name).
 *
 * Never a body, of the request or of the answer: bodies are tenants' data (their ConfigMaps,
 * Secrets, pod specs), which the operator who reads the audit log has no business reading, and a
 * log that keeps them is a second copy of every Secret to protect. The event says who did what to
 * which object, when, from where and how it ended. `objectRef` is the object as the tenant sees it
 * (the request's own path: no tenant prefix), with the tenant in the annotation `paddock.io/tenant`.
 *
 * One event per request, at the stage ResponseComplete, written when its answer (or its upgraded
 * socket) closes: a watch or an exec session when it ends. `responseStatus` is left out when the
 * client hung up before any answer was sent (the request may still have reached the cluster).
 */
import { requestObjectName } from '../../apiserver/request-object-name.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseRequestInfo, requestUrl, type RequestInfo } from '../../apiserver/request-info.js';
import { CLUSTER_RESOURCE } from '../../clusters/cluster-resource.js';
import { isClusterSecretRequest } from '../../clusters/cluster-secrets.js';
import { RESOURCE_REGISTRY_RESOURCE } from '../../search/resource-registry.js';
import { errorMessage, logger } from '../../log/log.js';
import { TENANT_RESOURCE } from '../../tenants/tenant-resource.js';
import type { Identity } from '../auth/authenticate.js';
import { RotatingFile } from './rotating-file.js';
import { authenticatedGroups, TENANT_KEY } from '../auth/self-subject-review.js';

/** The file and its rotation (rotating-file.ts); `paddock serve`'s flags have the defaults (cli-commands.ts). */
export interface AuditLogOptions {
  /** The file; its backups go beside it. */
  path: string;
  /** The size it is rotated at, in bytes (`--audit-log-maxsize` is in megabytes). */
  maxBytes: number;
  /** How many rotated files are kept (`--audit-log-maxbackup`); 0 keeps all. */
  maxBackups: number;
}

/** The annotations Paddock adds to each event. */
export const TENANT_ANNOTATION = TENANT_KEY;
export const LATENCY_ANNOTATION = 'paddock.io/latency';

/** kube's `audit.k8s.io/v1` Event, as much of it as the Metadata level fills. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: { username: string; groups: string[] };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion?: string;
    subresource?: string;
  };
  responseStatus?: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations: Record<string, string>;
}

const READ_VERBS = new Set(['get', 'list', 'watch', 'head', 'options']);
const SESSION_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);
const OWN_KINDS = [TENANT_RESOURCE, CLUSTER_RESOURCE, RESOURCE_REGISTRY_RESOURCE];

/** Whether a request is audited (above); `upgrade` for an upgraded connection. */
export function isAudited(info: RequestInfo, upgrade: boolean): boolean {
  if (!READ_VERBS.has(info.verb)) return true;
  if (!info.isResourceRequest) return false;
  if (upgrade && SESSION_SUBRESOURCES.has(info.subresource)) return true;
  return (
    isClusterSecretRequest(info) ||
    OWN_KINDS.some((kind) => kind.group === info.group && kind.resource === info.resource)
  );
}

const log = logger('audit log');

export class AuditLog {
  private readonly file: RotatingFile;
  private closed = false;

  constructor(private readonly options: AuditLogOptions) {
    this.file = new RotatingFile(options);
  }

  /** Audits a request, if it is one to audit, when its response closes; `info` is its request info. */
  request(
    req: IncomingMessage,
    res: { once(event: 'close', listener: () => void): unknown; headersSent: boolean; statusCode: number },
    identity: Identity | { refused: unknown },
    info: RequestInfo,
  ): void {
    if ('refused' in identity || !isAudited(info, false)) return;
    this.whenClosed(req, res, identity, info, () => (res.headersSent ? res.statusCode : undefined));
  }

  /** Audits an upgrade (exec, attach, port-forward; the admin's other upgrades that write) when its socket closes. */
  upgrade(
    req: IncomingMessage,
    socket: { once(event: 'close', listener: () => void): unknown },
    identity: Identity | { refused: unknown },
    code: () => number,
  ): void {
    if ('refused' in identity) return;
    const url = requestUrl(req.url);
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    if (!isAudited(info, true)) return;
    this.whenClosed(req, socket, identity, info, code);
  }

  /**
   * Closes the file. An event of a request that closes later (the server's stop cuts what was
   * still open) is still appended: the file is opened again for it.
   */
  close(): void {
    this.closed = true;
    this.file.close();
  }

  private whenClosed(
    req: IncomingMessage,
    closed: { once(event: 'close', listener: () => void): unknown },
    identity: Identity,
    info: RequestInfo,
    code: () => number | undefined,
  ): void {
    const received = microsNow();
    const started = performance.now();
    // Read now: once its socket has closed, a request no longer knows where it came from.
    const sourceIP = sourceIp(req.socket.remoteAddress);
    closed.once('close', () => {
      const event = auditEvent({
        req,
        sourceIP,
        identity,
        info,
        code: code(),
        receivedMicros: received,
        latencyMicros: Math.round((performance.now() - started) * 1000),
      });
      this.write(event);
    });
  }

  private write(event: AuditEvent): void {
    try {
      this.file.write(`${JSON.stringify(event)}\n`);
      if (this.closed) this.file.close();
    } catch (err) {
      log.error('writing an event failed', { path: this.options.path, error: errorMessage(err) });
    }
  }
}

/** One event, as kube-apiserver writes it at the Metadata level. */
export function auditEvent(request: {
  req: IncomingMessage;
  sourceIP: string;
  identity: Identity;
  info: RequestInfo;
  code: number | undefined;
  receivedMicros: number;
  latencyMicros: number;
}): AuditEvent {
  const { req, sourceIP, identity, info, code, receivedMicros, latencyMicros } = request;
  const userAgent = req.headers['user-agent'];
  const objectRef = info.isResourceRequest ? objectRefOf(info, requestObjectName(req)) : undefined;
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    requestURI: req.url ?? '/',
    verb: info.verb,
    user: { username: identity.user, groups: authenticatedGroups(identity) },
    sourceIPs: [sourceIP],
    ...(userAgent ? { userAgent } : {}),
    ...(objectRef ? { objectRef } : {}),
    ...(code !== undefined ? { responseStatus: { metadata: {}, code } } : {}),
    requestReceivedTimestamp: microTime(receivedMicros),
    stageTimestamp: microTime(receivedMicros + latencyMicros),
    annotations: {
      ...(identity.kind === 'tenant' ? { [TENANT_ANNOTATION]: identity.tenant } : {}),
      [LATENCY_ANNOTATION]: goDuration(latencyMicros),
    },
  };
}

/** kube's ObjectReference from the request's path (a create's name from its body); empty fields left out, as kube's `omitempty` does. */
function objectRefOf(
  info: Extract<RequestInfo, { isResourceRequest: true }>,
  /** A create's name, from its body (the path has none). */
  createdName: string | undefined,
): AuditEvent['objectRef'] {
  // kube's request info names a namespace's own namespace (`/api/v1/namespaces/foo` → namespace foo).
  const namespace = info.group === '' && info.resource === 'namespaces' && info.name ? info.name : info.namespace;
  const ref: Record<string, string> = {
    resource: info.resource,
    namespace,
    name: info.name || (info.verb === 'create' ? (createdName ?? '') : ''),
    apiGroup: info.group,
    apiVersion: info.version,
    subresource: info.subresource,
  };
  return Object.fromEntries(Object.entries(ref).filter(([, value]) => value !== ''));
}

/** The client's address (this gateway sits behind TCP balancers, not HTTP proxies: no X-Forwarded-For to trust). */
function sourceIp(address: string | undefined): string {
  if (!address) return '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Microseconds since the epoch: the wall clock's milliseconds, and below them the monotonic clock's. */
function microsNow(): number {
  return Date.now() * 1000 + Math.floor((performance.now() * 1000) % 1000);
}

/** kube's MicroTime in JSON: RFC 3339 in UTC with six fractional digits, `2026-12-01T20:24:14.502114Z`. */
export function microTime(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return `${new Date(ms).toISOString().slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}

/** A duration as Go's `time.Duration.String()` writes it, to the microsecond: `850µs`, `12.3ms`, `1.5s`, `2m3.25s`. */
export function goDuration(micros: number): string {
  if (micros < 1000) return `${micros}µs`;
  if (micros < 1_000_000) return `${trimmed(micros / 1000, 3)}ms`;
  const hours = Math.floor(micros / 3_600_000_000);
  const minutes = Math.floor((micros % 3_600_000_000) / 60_000_000);
  const seconds = trimmed((micros % 60_000_000) / 1_000_000, 6);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

function trimmed(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}
