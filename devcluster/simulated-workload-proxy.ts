/**
 * The `proxy` subresources of pods, services and nodes, served as kube-apiserver serves them but
 * with simulated workloads behind: a pod's echo server (simulated-pod-http.ts) and a node's
 * kubelet (simulated-kubelet.ts). Plain requests arrive already authorized (verb from the method,
 * on `<resource>/proxy`, name as written, port included); upgrades are authorized here the same way.
 */
import type { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer, UserInfo } from '../apiserver/api-server.js';
import { readBody } from '../apiserver/handlers/http-io.js';
import {
  parseRequestInfo,
  requestUrl,
  subresourcePath,
  type RequestInfo,
  type ResourceRequestInfo,
} from '../apiserver/request-info.js';
import { ApiError, statusOf, toApiError } from '../apiserver/status.js';
import { locateProxy, unavailable, type Kubelet, type PodPort } from './proxy-locations.js';
import { kubeletAnswer } from './simulated-kubelet.js';
import {
  acceptsWebSocket,
  podHttpAnswer,
  serveEchoWebSocket,
  type ProxiedRequest,
  type SimulatedAnswer,
} from './simulated-pod-http.js';
import { refuseUpgrade, upgradeKind, writeResponse } from './streaming/upgrade-answers.js';

function isProxyRequest(info: RequestInfo): info is ResourceRequestInfo {
  if (
    !info.isResourceRequest ||
    info.group !== '' ||
    info.version !== 'v1' ||
    info.subresource !== 'proxy' ||
    !info.name
  )
    return false;
  if (info.resource === 'nodes') return info.namespace === '';
  return (info.resource === 'pods' || info.resource === 'services') && info.namespace !== '';
}

/** The request's query exactly as sent, which is what kube hands on. */
function rawQuery(req: IncomingMessage): string {
  const target = req.url ?? '';
  const mark = target.indexOf('?');
  return mark < 0 ? '' : target.slice(mark + 1);
}

export async function handleProxy(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  api: ApiServer,
): Promise<boolean> {
  if (!isProxyRequest(info)) return false;
  const destination = await locateProxy(api, info);
  const url = requestUrl(req.url);
  const path = subresourcePath(url.pathname, info);
  const query = rawQuery(req);
  // kube's redirect of `…/proxy` to `…/proxy/` (kubernetes#4958), before it dials anything.
  if (path === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(301, { Location: `${url.pathname}/${query ? `?${query}` : ''}` }).end();
    return true;
  }
  if (destination.kind === 'refused') throw unavailable(`error trying to reach service: ${destination.error}`);
  const body = (await readBody(req)).toString('utf8');
  const answer = await answerOf(api, destination, { method: req.method ?? 'GET', path: path || '/', query, body });
  res.writeHead(answer.status, answer.headers).end(answer.body);
  return true;
}

/**
 * An upgrade on a proxy path. Returns false for any other path. A pod's echo accepts a WebSocket
 * (serveEchoWebSocket); its web server answers as to a plain request. kube dials the backend itself for an upgrade, so a refused connection is
 * the bare dial error (500), and a backend that answers without switching protocols is an
 * `invalid upgrade response` (500) unless its answer is an error, which is passed on as it is.
 */
export async function handleProxyUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  user: UserInfo,
  api: ApiServer,
  authorize: (user: UserInfo, info: ResourceRequestInfo) => string | null,
): Promise<boolean> {
  const url = requestUrl(req.url);
  const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
  if (!isProxyRequest(info)) return false;
  try {
    const denied = authorize(user, info);
    if (denied)
      throw new ApiError(
        statusOf(403, 'Forbidden', denied, { name: info.name, group: info.group, kind: info.resource }),
      );
    const destination = await locateProxy(api, info);
    if (destination.kind === 'refused') throw failure(destination.error);
    const request: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: subresourcePath(url.pathname, info) || '/',
      query: rawQuery(req),
      body: '',
    };
    if (destination.kind === 'pod' && upgradeKind(req) === 'websocket' && acceptsWebSocket(destination)) {
      serveEchoWebSocket(req, socket, head, destination, request);
      return true;
    }
    const answer = await answerOf(api, destination, request);
    if (answer.status < 400) throw failure(`invalid upgrade response: status code ${answer.status}`);
    writeResponse(socket, answer.status, answer.headers, answer.body);
  } catch (err) {
    refuseUpgrade(socket, toApiError(err).status);
  }
  return true;
}

/** A plain Go error reaching kube's responder: 500 with reason Unknown (""). */
const failure = (message: string) => new ApiError(statusOf(500, '', message));

async function answerOf(
  api: ApiServer,
  destination: PodPort | Kubelet,
  request: ProxiedRequest,
): Promise<SimulatedAnswer> {
  if (destination.kind === 'pod') return podHttpAnswer(destination, request);
  return kubeletAnswer(destination.node, destination.port, request, async () => {
    const { objects } = await api.registryOf('', 'pods')!.objects.list('', {});
    return objects.filter((pod) => pod.spec?.nodeName === destination.node.metadata.name);
  });
}
