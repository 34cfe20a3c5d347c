import { GENERATE_NAME_CHARS } from '../../apiserver/registry/generic-registry.js';

/** FNV-1a, 32 bits (Go's hash/fnv New32a). */
function fnv32a(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/**
 * apimachinery's rand.SafeEncodeString: each character mapped into the alphabet of generated
 * names (no vowels, no 0/1/3), so a hash never spells a word.
 */
function safeEncode(text: string): string {
  return [...Buffer.from(text)].map((byte) => GENERATE_NAME_CHARS[byte % GENERATE_NAME_CHARS.length]).join('');
}

/** JSON with object keys sorted, so equal objects render to equal bytes. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The hash kube's controllers name things by (controller.ComputeHash and
 * history.HashControllerRevision): FNV-32a over the input, then over the collision count as 8
 * little-endian bytes when there is one, printed in decimal and safe-encoded. kube hashes Go's
 * printout of the struct (or a ControllerRevision's raw bytes); here the input is its canonical
 * JSON, so the values differ from kube's for the same template but look and behave the same.
 */
export function computeHash(input: unknown, collisionCount?: number): string {
  const body = Buffer.from(typeof input === 'string' ? input : canonicalJson(input));
  let bytes: Uint8Array = body;
  if (collisionCount !== undefined && collisionCount !== null) {
    const count = Buffer.alloc(8);
    count.writeUInt32LE(collisionCount >>> 0, 0);
    bytes = Buffer.concat([body, count]);
  }
  return safeEncode(String(fnv32a(bytes)));
}

/** Deep equality of JSON values, key order aside. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
