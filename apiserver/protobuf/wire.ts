/**
 * A minimal reader and writer of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
 * tags, varints and length-delimited values, plus skipping of any field it is not asked to read.
 */

export enum WireType {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

/** The bytes are not valid protobuf: truncated, overlong, or using a wire type this reader refuses. */
export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

/** Field numbers are 29 bits wide. */
const MAX_FIELD_NUMBER = 2 ** 29 - 1;
/** A 64-bit varint takes at most ten bytes. */
const MAX_VARINT_BYTES = 10;

export interface Tag {
  field: number;
  wireType: WireType;
}

export class WireReader {
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  /** Where the next read starts, so a caller can slice out a field exactly as it was sent. */
  get position(): number {
    return this.offset;
  }

  tag(): Tag {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n) as WireType;
    if (field < 1 || field > MAX_FIELD_NUMBER) throw new WireFormatError(`invalid field number ${key >> 3n}`);
    if (wireType === WireType.StartGroup || wireType === WireType.EndGroup) {
      // Groups are deprecated proto2 syntax that no Kubernetes message uses.
      throw new WireFormatError(`field ${field} uses the group wire type, which is not supported`);
    }
    if (wireType > WireType.Fixed32) throw new WireFormatError(`field ${field} has invalid wire type ${wireType}`);
    return { field, wireType };
  }

  /** An unsigned varint of up to 64 bits; callers reinterpret it as signed or narrower. */
  varint(): bigint {
    let value = 0n;
    for (let index = 0; index < MAX_VARINT_BYTES; index++) {
      if (this.done) throw new WireFormatError('truncated varint');
      const byte = this.bytes[this.offset++];
      value |= BigInt(byte & 0x7f) << BigInt(7 * index);
      if ((byte & 0x80) === 0) {
        if (index === MAX_VARINT_BYTES - 1 && byte > 1) throw new WireFormatError('varint overflows 64 bits');
        return value;
      }
    }
    throw new WireFormatError('varint longer than ten bytes');
  }

  lengthDelimited(): Uint8Array {
    const length = this.varint();
    if (length > BigInt(this.bytes.length - this.offset)) {
      throw new WireFormatError(`length ${length} runs past the end of the message`);
    }
    const start = this.offset;
    this.offset += Number(length);
    return this.bytes.subarray(start, this.offset);
  }

  /** A fixed64 value (`double`), little-endian. */
  double(): number {
    this.advance(8);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.offset - 8, 8).readDoubleLE(0);
  }

  skip(wireType: WireType): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.LengthDelimited:
        this.lengthDelimited();
        return;
      case WireType.Fixed64:
        this.advance(8);
        return;
      case WireType.Fixed32:
        this.advance(4);
        return;
      default:
        throw new WireFormatError(`cannot skip wire type ${wireType}`);
    }
  }

  private advance(count: number): void {
    if (this.offset + count > this.bytes.length) throw new WireFormatError('truncated fixed-width value');
    this.offset += count;
  }
}

/** Writes messages a field at a time; nested messages are written first and added as bytes. */
export class WireWriter {
  private readonly chunks: Uint8Array[] = [];

  /** Bytes already in wire format (fields copied as they were sent). */
  raw(bytes: Uint8Array): void {
    this.chunks.push(bytes);
  }

  lengthDelimited(field: number, payload: Uint8Array): void {
    this.chunks.push(varint(field * 8 + WireType.LengthDelimited), varint(payload.length), payload);
  }

  string(field: number, value: string): void {
    this.lengthDelimited(field, Buffer.from(value, 'utf8'));
  }

  finish(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}

/** Tags and lengths only: both are non-negative and below 2^32 here. */
function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value >>> 0;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}
