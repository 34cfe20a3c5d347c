import type { IncomingMessage } from 'node:http';
import { parseRequestInfo, requestUrl, type RequestInfo } from '../../apiserver/request-info.js';
import type { Authentication } from '../auth/authenticate.js';

/**
 * One request as the pipeline (pipeline.ts) passes it from stage to stage, as kube-apiserver's
 * handler chain passes its RequestInfo and user in the request's context: built once when the
 * request comes in, its URL and request info parsed once, its identity set by the
 * authentication stage. A tenant's request goes on as a TenantRequest (tenant-request.ts), which
 * adds the tenant's context, cluster, credentials upstream and translation.
 */
export interface RequestRecord<Who extends Authentication = Authentication> {
  readonly req: IncomingMessage;
  readonly url: URL;
  /** The path without its trailing slashes. */
  readonly path: string;
  /** kube's request info of the path as the client sent it: its verb is kube's for resources, the method otherwise. */
  readonly info: RequestInfo;
  readonly identity: Who;
}

export function requestRecord(req: IncomingMessage, identity: Authentication): RequestRecord {
  const url = requestUrl(req.url);
  return {
    req,
    url,
    path: trimmedPath(url.pathname),
    info: parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams),
    identity,
  };
}

function trimmedPath(pathname: string): string {
  if (pathname.length < 2 || pathname.charCodeAt(pathname.length - 1) !== 47) return pathname;
  return pathname.replace(/\/+$/, '') || '/';
}
