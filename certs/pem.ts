/**
 * PEM (RFC 7468): DER bytes in base64, 64 characters a line, between BEGIN and END lines naming
 * what they hold.
 */

/** The PEM text of `bytes` labelled `label` (CERTIFICATE, PRIVATE KEY). */
export function pemOf(bytes: Buffer, label: string): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const BLOCK = /^-----BEGIN ([A-Z0-9 ]+)-----\n([A-Za-z0-9+/=\n]+)\n-----END \1-----\n?$/;

/** The label and the base64 of a text that is one PEM block, or undefined. */
export function pemBlock(pem: string): { label: string; base64: string } | undefined {
  const match = BLOCK.exec(pem);
  return match ? { label: match[1], base64: match[2].replaceAll('\n', '') } : undefined;
}
