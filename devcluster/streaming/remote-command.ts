/**
 * pods/exec and pods/attach over the remotecommand protocols kubectl speaks:
 *
 * - WebSocket, subprotocol v5.channel.k8s.io (kubectl 1.30+) or v4.channel.k8s.io: binary messages
 *   whose first byte is the channel (0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize). v5 adds
 *   `[255, channel]`, the client's half-close of a channel. The server ends with the exit Status on
 *   channel 3 and a normal close.
 * - SPDY/3.1 with X-Stream-Protocol-Version v5/v4.channel.k8s.io (kubectl's fallback): the client
 *   opens one stream per channel, named by its `streamType` header; each ends with FIN.
 *
 * The Status on the error channel is what kubectl turns into its exit code. See
 * simulated-commands.ts for what runs.
 */
import type { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { ApiError, badRequest } from '../../apiserver/status.js';
import { resolveContainer, type Container } from './pod-containers.js';
import { queryBool } from '../../apiserver/query-bool.js';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import type { ContainerFilesystems } from '../container-files/container-filesystems.js';
import type { ProcessIo } from './process-io.js';
import { attachProcess, runCommand } from './simulated-commands.js';
import type { SpdySession, SpdyStream } from './spdy-session.js';
import { acceptSpdy, acceptWebSocket } from './upgrade.js';
import { chooseProtocol, offeredProtocols, refuseProtocols, refuseUpgrade, upgradeKind } from './upgrade-answers.js';
import { sendOnChannel } from './websocket-channels.js';
import { detach } from '../../apiserver/process-faults.js';

const V5 = 'v5.channel.k8s.io';
const V4 = 'v4.channel.k8s.io';
/** v1–v3 send plain-text errors instead of a Status; kubectl 1.32 always offers v5 and v4. */
const PROTOCOLS = [V5, V4] as const;

/** WebSocket channel numbers (k8s.io/apimachinery/pkg/util/remotecommand). */
const Channel = { Stdin: 0, Stdout: 1, Stderr: 2, Error: 3, Close: 255 } as const;

/** How long the client gets to open all its SPDY streams (the kubelet's streamCreationTimeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;
/**
 * After the last frame the client closes the connection itself, once it has read everything;
 * closing first could drop frames spdystream has queued but not delivered. This is the backstop.
 */
const CLIENT_CLOSE_GRACE_MS = 10_000;
/**
 * On a WebSocket, the process starts this long after the upgrade. kube-apiserver answers the
 * upgrade before it dials the kubelet, so a real process's first output comes a round trip and a
 * runtime's exec later. kubectl before 1.33 registers its channels only after the upgrade
 * returns and drops a message for one not yet registered ("Unknown stream id 1, discarding
 * message", kubernetes#131189): a process that answered at once lost its output under load.
 */
const WEBSOCKET_PROCESS_START_MS = 100;

interface RemoteCommandRequest {
  mode: 'exec' | 'attach';
  pod: ApiObject;
  /** Where the container's files are kept. */
  filesystems: ContainerFilesystems;
  container: Container;
  command: string[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** The exit Status as the kubelet writes it (a metav1.Status without kind/apiVersion). */
type ExitStatus = Record<string, unknown>;

/** pods/exec and pods/attach: an upgrade request; runs the simulated command over the negotiated protocol. */
export function serveRemoteCommand(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  pod: ApiObject,
  query: URLSearchParams,
  mode: 'exec' | 'attach',
  filesystems: ContainerFilesystems,
): void {
  let request: RemoteCommandRequest;
  try {
    request = { ...parseRequest(pod, query, mode), pod, filesystems };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    refuseUpgrade(socket, err.status);
    return;
  }
  const kind = upgradeKind(req);
  if (!kind) {
    refuseUpgrade(socket, badRequest('Upgrade request required').status);
    return;
  }
  const offered = offeredProtocols(req, kind);
  const protocol = chooseProtocol(offered, PROTOCOLS);
  if (!protocol) {
    refuseProtocols(socket, kind, offered, PROTOCOLS);
    return;
  }
  if (kind === 'websocket')
    acceptWebSocket(req, socket, head, protocol, (ws) => streamOverWebSocket(ws, protocol, request));
  else streamOverSpdy(acceptSpdy(socket, head, protocol), request);
}

function parseRequest(
  pod: Record<string, any>,
  query: URLSearchParams,
  mode: 'exec' | 'attach',
): Omit<RemoteCommandRequest, 'pod' | 'filesystems'> {
  const container = resolveContainer(pod, query.get('container'));
  const command = mode === 'exec' ? query.getAll('command') : [];
  if (mode === 'exec' && command.length === 0) throw badRequest('you must specify at least 1 command');
  const request = {
    mode,
    container,
    command,
    stdin: queryBool(query, 'stdin'),
    stdout: queryBool(query, 'stdout'),
    stderr: queryBool(query, 'stderr'),
    tty: queryBool(query, 'tty'),
  };
  if (!request.stdin && !request.stdout && !request.stderr)
    throw badRequest('you must specify at least 1 of stdin, stdout, stderr');
  return request;
}

async function run(request: RemoteCommandRequest, io: ProcessIo): Promise<ExitStatus> {
  if (request.mode === 'attach') {
    await attachProcess(io);
    return { metadata: {}, status: 'Success' };
  }
  const fs = await request.filesystems.of(request.pod, request.container);
  const code = await runCommand(request.command, { pod: request.pod, container: request.container, fs }, io);
  if (code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${request.command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

function streamOverWebSocket(ws: WebSocket, protocol: string, request: RemoteCommandRequest): void {
  const abort = new AbortController();
  const stdin = request.stdin ? new PassThrough() : null;
  ws.on('message', (data: Buffer) => {
    if (data[0] === Channel.Stdin) stdin?.write(data.subarray(1));
    else if (protocol === V5 && data[0] === Channel.Close && data[1] === Channel.Stdin) stdin?.end();
    // Resize messages (channel 4) have no terminal to resize.
  });
  ws.on('error', () => ws.terminate());
  ws.on('close', () => {
    stdin?.end();
    abort.abort();
  });
  const send = (channel: number, data: string | Buffer) => sendOnChannel(ws, channel, data);
  // A terminal has one output: stderr goes where stdout goes.
  const [stderrChannel, stderrWanted] = request.tty
    ? [Channel.Stdout, request.stdout]
    : [Channel.Stderr, request.stderr];
  const io: ProcessIo = {
    stdin,
    stdout: (data) => {
      if (request.stdout) send(Channel.Stdout, data);
    },
    stderr: (data) => {
      if (stderrWanted) send(stderrChannel, data);
    },
    signal: abort.signal,
  };
  const start = setTimeout(
    () =>
      detach(
        run(request, io).then((status) => {
          send(Channel.Error, JSON.stringify(status));
          if (ws.readyState === WebSocket.OPEN) ws.close(1000);
        }),
        'exec over WebSocket',
      ),
    WEBSOCKET_PROCESS_START_MS,
  );
  ws.on('close', () => clearTimeout(start));
}

/** The streams kubectl opens for a request, as the kubelet expects them. */
function expectedStreamTypes(request: RemoteCommandRequest): string[] {
  const types = ['error'];
  if (request.stdin) types.push('stdin');
  if (request.stdout) types.push('stdout');
  if (request.stderr && !request.tty) types.push('stderr');
  if (request.tty) types.push('resize');
  return types;
}

function streamOverSpdy(session: SpdySession, request: RemoteCommandRequest): void {
  const expected = expectedStreamTypes(request);
  const streams = new Map<string, SpdyStream>();
  const abort = new AbortController();
  const creationTimeout = setTimeout(() => session.destroy(), STREAM_CREATION_TIMEOUT_MS);
  session.once('close', () => {
    clearTimeout(creationTimeout);
    abort.abort();
  });
  session.on('stream', (stream) => {
    const type = stream.headers.streamtype ?? '';
    if (!expected.includes(type) || streams.has(type)) {
      stream.reset();
      return;
    }
    // A stream dies with its connection; the session's close is what stops the command.
    stream.on('error', () => {});
    streams.set(type, stream);
    if (type === 'resize') stream.resume();
    if (streams.size === expected.length) {
      clearTimeout(creationTimeout);
      detach(runOverSpdyStreams(session, streams, request, abort.signal), 'exec over SPDY');
    }
  });
}

async function runOverSpdyStreams(
  session: SpdySession,
  streams: Map<string, SpdyStream>,
  request: RemoteCommandRequest,
  signal: AbortSignal,
): Promise<void> {
  const stdout = streams.get('stdout');
  const stderr = request.tty ? stdout : streams.get('stderr');
  const status = await run(request, {
    stdin: streams.get('stdin') ?? null,
    stdout: (data) => stdout?.write(data),
    stderr: (data) => stderr?.write(data),
    signal,
  });
  if (session.isClosed) return;
  for (const [type, stream] of streams) {
    if (type === 'error') stream.end(JSON.stringify(status));
    else stream.end();
  }
  const backstop = setTimeout(() => session.close(), CLIENT_CLOSE_GRACE_MS);
  session.once('close', () => clearTimeout(backstop));
}
