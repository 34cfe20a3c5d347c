/**
 * SPDY/3 framing (draft-mbelshe-httpbis-spdy-00, as Go's spdystream speaks it for kubectl's
 * `SPDY/3.1` upgrades): splitting bytes into frames, decoding the frames a server receives and
 * encoding the ones it sends. Name/value header blocks share one zlib stream per direction for
 * the whole connection, seeded with SPDY's dictionary, so blocks must be (de)compressed in order.
 */
import { Buffer } from 'node:buffer';
import zlib from 'node:zlib';
import spdyTransport from 'spdy-transport';

const SPDY_VERSION = 3;
const FRAME_HEADER_BYTES = 8;
/** The 24-bit length field's limit. */
const MAX_FRAME_PAYLOAD = 0xffffff;
const FLAG_FIN = 0x01;

/** The control frames this server reads or writes; SETTINGS (4) and WINDOW_UPDATE (9) it skips. */
const FrameType = { SynStream: 1, SynReply: 2, RstStream: 3, Ping: 6, GoAway: 7, Headers: 8 } as const;

/** RST_STREAM and GOAWAY status codes used here. */
export const RstStatus = { ProtocolError: 1, InvalidStream: 2, RefusedStream: 3, Cancel: 5 } as const;
export const GoAwayStatus = { Ok: 0, ProtocolError: 1 } as const;

export type SpdyHeaders = Readonly<Record<string, string>>;

export type SpdyFrame =
  | { type: 'data'; streamId: number; fin: boolean; data: Buffer }
  | { type: 'synStream'; streamId: number; fin: boolean; headers: SpdyHeaders }
  | { type: 'rstStream'; streamId: number; status: number }
  | { type: 'ping'; id: number }
  | { type: 'goAway'; lastGoodStreamId: number }
  /** SETTINGS, WINDOW_UPDATE, HEADERS and unknown types: nothing this server acts on. */
  | { type: 'ignored' };

export class SpdyProtocolError extends Error {}

const dictionary = spdyTransport.protocol.spdy.dictionary[3];

/** Runs one block through a long-lived zlib stream; its sync flush makes the output complete. */
function runThrough(stream: zlib.Deflate | zlib.Inflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const output: Buffer[] = [];
    const collect = (chunk: Buffer) => output.push(chunk);
    const settle = (err: Error | null | undefined) => {
      stream.off('data', collect);
      stream.off('error', settle);
      if (err) reject(new SpdyProtocolError(`bad header block: ${err.message}`));
      else resolve(Buffer.concat(output));
    };
    stream.on('data', collect);
    // A corrupt block fails through 'error' alone: the write's callback is then never called.
    stream.on('error', settle);
    stream.write(input, settle);
  });
}

/** Splits received bytes into frames and decodes them; `decode` must be called in frame order. */
export class SpdyFrameDecoder {
  private pending: Buffer = Buffer.alloc(0);
  private readonly inflate = zlib.createInflate({ dictionary, flush: zlib.constants.Z_SYNC_FLUSH });

  /** The complete frames in the bytes received so far; a partial frame waits for more bytes. */
  split(bytes: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    const frames: Buffer[] = [];
    while (this.pending.length >= FRAME_HEADER_BYTES) {
      const size = FRAME_HEADER_BYTES + this.pending.readUIntBE(5, 3);
      if (this.pending.length < size) break;
      frames.push(this.pending.subarray(0, size));
      this.pending = this.pending.subarray(size);
    }
    return frames;
  }

  async decode(frame: Buffer): Promise<SpdyFrame> {
    const flags = frame[4];
    const body = frame.subarray(FRAME_HEADER_BYTES);
    if ((frame[0] & 0x80) === 0) {
      return { type: 'data', streamId: frame.readUInt32BE(0) & 0x7fffffff, fin: (flags & FLAG_FIN) !== 0, data: body };
    }
    const version = frame.readUInt16BE(0) & 0x7fff;
    if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
    const type = frame.readUInt16BE(2);
    switch (type) {
      case FrameType.SynStream:
        requireLength(body, 10, 'SYN_STREAM');
        return {
          type: 'synStream',
          streamId: body.readUInt32BE(0) & 0x7fffffff,
          fin: (flags & FLAG_FIN) !== 0,
          headers: parseHeaderBlock(await runThrough(this.inflate, body.subarray(10))),
        };
      case FrameType.Headers:
        requireLength(body, 4, 'HEADERS');
        // Decompressed only to keep the shared zlib stream in step with the sender's.
        await runThrough(this.inflate, body.subarray(4));
        return { type: 'ignored' };
      case FrameType.RstStream:
        requireLength(body, 8, 'RST_STREAM');
        return { type: 'rstStream', streamId: body.readUInt32BE(0) & 0x7fffffff, status: body.readUInt32BE(4) };
      case FrameType.Ping:
        requireLength(body, 4, 'PING');
        return { type: 'ping', id: body.readUInt32BE(0) };
      case FrameType.GoAway:
        requireLength(body, 4, 'GOAWAY');
        return { type: 'goAway', lastGoodStreamId: body.readUInt32BE(0) & 0x7fffffff };
      case FrameType.SynReply:
        // Only a server's streams get replies, and this server opens none.
        throw new SpdyProtocolError('SYN_REPLY for a stream the server did not open');
      default:
        return { type: 'ignored' };
    }
  }
}

function requireLength(body: Buffer, bytes: number, frame: string): void {
  if (body.length < bytes) throw new SpdyProtocolError(`${frame} frame too short`);
}

/** A name/value block: a count, then length-prefixed names and values (NUL separates repeats). */
function parseHeaderBlock(block: Buffer): SpdyHeaders {
  let offset = 0;
  const readString = () => {
    if (offset + 4 > block.length) throw new SpdyProtocolError('truncated header block');
    const length = block.readUInt32BE(offset);
    offset += 4;
    if (offset + length > block.length) throw new SpdyProtocolError('truncated header block');
    const text = block.toString('utf8', offset, offset + length);
    offset += length;
    return text;
  };
  if (block.length < 4) throw new SpdyProtocolError('truncated header block');
  const count = block.readUInt32BE(0);
  offset = 4;
  const headers: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = readString().toLowerCase();
    headers[name] = readString().split('\0').join(', ');
  }
  return headers;
}

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(FRAME_HEADER_BYTES);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  // Flags and the 24-bit length share one 32-bit word.
  head.writeUInt32BE(body.length, 4);
  head[4] = flags;
  return Buffer.concat([head, body]);
}

function uint32s(...values: number[]): Buffer {
  const buffer = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => buffer.writeUInt32BE(value >>> 0, 4 * i));
  return buffer;
}

/** Encodes the frames a server sends; `synReply` must be called in the order frames are sent. */
export class SpdyFrameEncoder {
  private readonly deflate = zlib.createDeflate({ dictionary, flush: zlib.constants.Z_SYNC_FLUSH });

  /** Accepts a stream the client opened; kube's servers reply with no headers. */
  async synReply(streamId: number): Promise<Buffer> {
    const emptyBlock = uint32s(0);
    return controlFrame(
      FrameType.SynReply,
      0,
      Buffer.concat([uint32s(streamId), await runThrough(this.deflate, emptyBlock)]),
    );
  }

  /** DATA frames carrying `data`, the last with FIN when `fin`. */
  data(streamId: number, data: Buffer, fin: boolean): Buffer[] {
    const frames: Buffer[] = [];
    let offset = 0;
    do {
      const chunk = data.subarray(offset, offset + MAX_FRAME_PAYLOAD);
      offset += chunk.length;
      const last = offset >= data.length;
      const head = uint32s(streamId & 0x7fffffff, chunk.length);
      head[4] = last && fin ? FLAG_FIN : 0; // over the length word's unused top byte
      frames.push(head, chunk);
    } while (offset < data.length);
    return frames;
  }

  rstStream(streamId: number, status: number): Buffer {
    return controlFrame(FrameType.RstStream, 0, uint32s(streamId, status));
  }

  ping(id: number): Buffer {
    return controlFrame(FrameType.Ping, 0, uint32s(id));
  }

  goAway(lastGoodStreamId: number, status: number): Buffer {
    return controlFrame(FrameType.GoAway, 0, uint32s(lastGoodStreamId, status));
  }
}
