/** Bad magic, malformed wire data, or a kind this decoder does not know. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';
}
