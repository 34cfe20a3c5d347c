/**
 * The few DER (ASN.1) encodings a certificate is written with, and the one read it needs (the key
 * bits of a SubjectPublicKeyInfo). Certificates are issued on every tenant creation, and building
 * them through @peculiar/x509's schema objects (asn1js) was a third of the gateway's CPU for it.
 */

/** A whole element: its tag, its length, then its contents. */
export function element(tag: number, contents: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(contents.length), contents]);
}

export function sequence(...items: Buffer[]): Buffer {
  return element(0x30, Buffer.concat(items));
}

export function set(...items: Buffer[]): Buffer {
  return element(0x31, Buffer.concat(items));
}

/** `[n] EXPLICIT`: a constructed context-specific element around one element. */
export function explicit(n: number, item: Buffer): Buffer {
  return element(0xa0 + n, item);
}

export function octetString(bytes: Buffer): Buffer {
  return element(0x04, bytes);
}

/** A BIT STRING of whole bytes. */
export function bitString(bytes: Buffer): Buffer {
  return element(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

export function utf8String(value: string): Buffer {
  return element(0x0c, Buffer.from(value, 'utf8'));
}

export const NULL = Buffer.from([0x05, 0x00]);
export const TRUE = Buffer.from([0x01, 0x01, 0xff]);

/** A non-negative INTEGER from its big-endian bytes (a leading zero added when the top bit is set). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1] < 0x80) start++;
  const trimmed = bytes.subarray(start);
  return element(0x02, trimmed[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export function objectIdentifier(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return element(0x06, Buffer.from(bytes));
}

/** UTCTime through 2049, GeneralizedTime from 2050, as RFC 5280 requires; whole seconds. */
export function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  return date.getUTCFullYear() < 2050
    ? element(0x17, Buffer.from(`${digits.slice(2)}Z`, 'latin1'))
    : element(0x18, Buffer.from(`${digits}Z`, 'latin1'));
}

/** The public key's bits in a SubjectPublicKeyInfo (what a key identifier is the SHA-1 of). */
export function subjectPublicKeyBits(spki: Buffer): Buffer {
  const outer = header(spki, 0);
  const algorithm = header(spki, outer.contents);
  const keyAt = algorithm.contents + algorithm.length;
  if (spki[keyAt] !== 0x03) throw new Error('SubjectPublicKeyInfo without a BIT STRING');
  const key = header(spki, keyAt);
  // The first content byte counts the unused bits, none in a key.
  return spki.subarray(key.contents + 1, key.contents + key.length);
}

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let value = n; value > 0; value = Math.floor(value / 256)) bytes.unshift(value & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** Where the contents of the element at `at` start, and how long they are. */
function header(der: Buffer, at: number): { contents: number; length: number } {
  const first = der[at + 1];
  if (first < 0x80) return { contents: at + 2, length: first };
  const count = first & 0x7f;
  let n = 0;
  for (let i = 0; i < count; i++) n = n * 256 + der[at + 2 + i];
  return { contents: at + 2 + count, length: n };
}
