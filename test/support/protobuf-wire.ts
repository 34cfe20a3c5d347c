/** A tiny protobuf writer for test bodies that kubectl's generators never produce. */

export function varint(value: bigint | number): Buffer {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest === 0n ? low : low | 0x80);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}

export const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
export const intField = (field: number, value: bigint | number) => Buffer.concat([tag(field, 0), varint(value)]);
export const lenField = (field: number, payload: Buffer | string) => {
  const bytes = Buffer.from(payload);
  return Buffer.concat([tag(field, 2), varint(bytes.length), bytes]);
};
export const message = (...fields: Buffer[]) => Buffer.concat(fields);
export const mapEntry = (field: number, key: string, value?: Buffer | string) =>
  lenField(field, message(lenField(1, key), ...(value === undefined ? [] : [lenField(2, value)])));

/** `k8s\0` + runtime.Unknown {typeMeta {apiVersion, kind}, raw, ...extra fields}. */
export function envelope(apiVersion: string, kind: string, raw: Buffer, ...extra: Buffer[]): Buffer {
  const typeMeta = message(lenField(1, apiVersion), lenField(2, kind));
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(1, typeMeta), lenField(2, raw), ...extra]);
}
