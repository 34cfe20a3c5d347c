/**
 * The server end of a SPDY/3.1 connection as kube's streaming servers use it: the client opens
 * every stream (one per stdin/stdout/…, or per forwarded connection), the server replies to each
 * at once and then only moves bytes. Like Go's spdystream (kubectl's side) there is no flow
 * control: WINDOW_UPDATE and SETTINGS are read and ignored, none are sent.
 */
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import {
  GoAwayStatus,
  RstStatus,
  SpdyFrameDecoder,
  SpdyFrameEncoder,
  SpdyProtocolError,
  type SpdyFrame,
  type SpdyHeaders,
} from './spdy-frames.js';

const EMPTY = Buffer.alloc(0);

/**
 * A stream the client opened. Its readable side is what the client sends (ending at the client's
 * FIN); writing sends DATA frames and `end()` sends FIN.
 */
export class SpdyStream extends Duplex {
  private finishedByClient = false;

  constructor(
    readonly id: number,
    /** The SYN_STREAM headers, names lower-cased (`streamtype`, `port`, `requestid`). */
    readonly headers: SpdyHeaders,
    private readonly sendData: (data: Buffer, fin: boolean) => Promise<void>,
    private readonly sendReset: () => void,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.sendData(chunk, false).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sendData(EMPTY, true).then(() => callback(), callback);
  }

  /** Abandons the stream, telling the client with RST_STREAM. */
  reset(): void {
    if (this.destroyed) return;
    this.sendReset();
    this.destroy();
  }

  /** What the session received for this stream. */
  deliver(data: Buffer, fin: boolean): void {
    if (this.finishedByClient || this.destroyed) return;
    if (data.length > 0) this.push(data);
    if (fin) {
      this.finishedByClient = true;
      this.push(null);
    }
  }
}

export class SpdySession extends EventEmitter<{ stream: [SpdyStream]; close: [] }> {
  private readonly decoder = new SpdyFrameDecoder();
  private readonly encoder = new SpdyFrameEncoder();
  private readonly streams = new Map<number, SpdyStream>();
  /** Frames are handled one at a time because header blocks decompress asynchronously, in order. */
  private inbound: Promise<void> = Promise.resolve();
  /** Frames go out one at a time so a SYN_REPLY always precedes its stream's DATA. */
  private outbound: Promise<void> = Promise.resolve();
  private lastStreamId = 0;
  /** Set by either side's GOAWAY: no new streams. */
  private goingAway = false;
  private closing = false;

  /** `head`: bytes that arrived with the upgrade request, before the session existed. */
  constructor(
    private readonly transport: Duplex,
    head: Buffer = EMPTY,
  ) {
    super();
    transport.on('data', (bytes: Buffer) => this.receive(bytes));
    transport.on('end', () => transport.destroy());
    transport.on('error', () => transport.destroy());
    transport.once('close', () => this.closed());
    if (head.length > 0) this.receive(head);
  }

  get isClosed(): boolean {
    return this.transport.destroyed;
  }

  /** Says goodbye (GOAWAY) after everything queued, then ends the connection. */
  close(): void {
    if (this.closing || this.isClosed) return;
    this.closing = true;
    this.goingAway = true;
    const end = () => this.transport.end();
    this.send(() => this.encoder.goAway(this.lastStreamId, GoAwayStatus.Ok)).then(end, end);
  }

  destroy(): void {
    this.transport.destroy();
  }

  private receive(bytes: Buffer): void {
    for (const frame of this.decoder.split(bytes)) {
      this.inbound = this.inbound.then(async () => {
        if (!this.isClosed) this.handle(await this.decoder.decode(frame));
      });
    }
    this.inbound = this.inbound.catch((err: unknown) => this.fail(err));
  }

  private handle(frame: SpdyFrame): void {
    switch (frame.type) {
      case 'synStream':
        this.open(frame.streamId, frame.headers, frame.fin);
        return;
      case 'data': {
        const stream = this.streams.get(frame.streamId);
        if (stream) stream.deliver(frame.data, frame.fin);
        else this.sendControl(() => this.encoder.rstStream(frame.streamId, RstStatus.InvalidStream));
        return;
      }
      case 'rstStream':
        this.streams.get(frame.streamId)?.destroy();
        return;
      case 'ping':
        // Odd ids are the client's pings, to be echoed; even ones would answer ours, and we send none.
        if (frame.id % 2 === 1) this.sendControl(() => this.encoder.ping(frame.id));
        return;
      case 'goAway':
        this.goingAway = true;
        return;
      case 'ignored':
        return;
    }
  }

  private open(id: number, headers: SpdyHeaders, fin: boolean): void {
    if (this.goingAway || id <= this.lastStreamId || id % 2 === 0) {
      this.sendControl(() =>
        this.encoder.rstStream(id, id % 2 === 0 ? RstStatus.ProtocolError : RstStatus.RefusedStream),
      );
      return;
    }
    this.lastStreamId = id;
    const stream = new SpdyStream(
      id,
      headers,
      (data, dataFin) => this.send(() => this.encoder.data(id, data, dataFin)),
      () => this.sendControl(() => this.encoder.rstStream(id, RstStatus.Cancel)),
    );
    this.streams.set(id, stream);
    stream.once('close', () => this.streams.delete(id));
    this.sendControl(() => this.encoder.synReply(id));
    if (fin) stream.deliver(EMPTY, true);
    if (!this.emit('stream', stream)) stream.reset();
  }

  private send(encode: () => Buffer | Buffer[] | Promise<Buffer>): Promise<void> {
    const sent = this.outbound.then(async () => {
      if (this.isClosed) throw new Error('the SPDY connection is closed');
      const encoded = await encode();
      const bytes = Array.isArray(encoded) ? Buffer.concat(encoded) : encoded;
      await new Promise<void>((resolve, reject) =>
        this.transport.write(bytes, (err) => (err ? reject(err) : resolve())),
      );
    });
    this.outbound = sent.catch(() => {});
    return sent;
  }

  /** A frame nothing waits on; if the connection is gone, no one is left to read it. */
  private sendControl(encode: () => Buffer | Promise<Buffer>): void {
    this.send(encode).catch(() => {});
  }

  private fail(err: unknown): void {
    if (err instanceof SpdyProtocolError && !this.isClosed) {
      this.goingAway = true;
      const destroy = () => this.transport.destroy();
      this.send(() => this.encoder.goAway(this.lastStreamId, GoAwayStatus.ProtocolError)).then(destroy, destroy);
      return;
    }
    this.transport.destroy();
  }

  private closed(): void {
    for (const stream of this.streams.values()) stream.destroy();
    this.streams.clear();
    this.emit('close');
  }
}
