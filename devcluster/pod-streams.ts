import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiServer, UserInfo } from '../apiserver/api-server.js';
import { parseRequestInfo, requestUrl, type ResourceRequestInfo } from '../apiserver/request-info.js';
import { ApiError, notFound, pathNotFound, statusOf, toApiError } from '../apiserver/status.js';
import type { ContainerFilesystems } from './container-files/container-filesystems.js';
import { podPortListener } from './simulated-pod-http.js';
import { servePodLog } from './streaming/pod-log.js';
import { refuseUpgrade } from './streaming/upgrade-answers.js';

const UPGRADED = new Set(['exec', 'attach', 'portforward']);

/** `pods/log`: a plain GET, answered as a stream of text (devcluster/streaming/README.md). */
export async function handlePodLog(
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  api: ApiServer,
): Promise<boolean> {
  if (info.group !== '' || info.resource !== 'pods' || info.subresource !== 'log' || info.verb !== 'get') return false;
  const pod = await api.registryOf('', 'pods')!.get(info.namespace, info.name);
  servePodLog(req, res, pod, requestUrl(req.url).searchParams);
  return true;
}

/**
 * An upgrade request (exec, attach, portforward over WebSocket or SPDY): authenticated and
 * authorized like any request — kube requires `create` on `pods/<subresource>` whether the
 * upgrade comes as a POST (SPDY) or a GET (WebSocket) — then handed to the streaming handler.
 */
export async function handlePodUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  user: UserInfo,
  api: ApiServer,
  authorize: (user: UserInfo, info: ResourceRequestInfo) => string | null,
  filesystems: ContainerFilesystems,
): Promise<void> {
  try {
    const url = requestUrl(req.url);
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    if (
      !info.isResourceRequest ||
      info.group !== '' ||
      info.resource !== 'pods' ||
      !UPGRADED.has(info.subresource) ||
      !info.name
    )
      throw pathNotFound();
    const asCreate: ResourceRequestInfo = { ...info, verb: 'create' };
    const denied = authorize(user, asCreate);
    if (denied) throw new ApiError(statusOf(403, 'Forbidden', denied, { name: info.name, kind: 'pods' }));
    const pod = await api
      .registryOf('', 'pods')!
      .get(info.namespace, info.name)
      .catch((err: unknown) => {
        throw err instanceof ApiError && err.code === 404 ? notFound({ group: '', resource: 'pods' }, info.name) : err;
      });
    // The streaming modules load with the first stream: with ws, spdy-transport and tar-stream they
    // were 0.4 of the 1 CPU-s the devcluster took to load.
    if (info.subresource === 'portforward') {
      const { servePortForward } = await import('./streaming/port-forward.js');
      servePortForward(req, socket, head, url.searchParams, podPortListener(pod));
    } else {
      const { serveRemoteCommand } = await import('./streaming/remote-command.js');
      serveRemoteCommand(req, socket, head, pod, url.searchParams, info.subresource as 'exec' | 'attach', filesystems);
    }
  } catch (err) {
    refuseUpgrade(socket, toApiError(err).status);
  }
}
