import { x509 } from './keys.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The CA certificates of a PEM bundle (kube-apiserver's `--client-ca-file` form), each as its own
 * PEM ending in a newline. Refused, with what is wrong: a bundle without a certificate, one that
 * does not parse, or one that is not a CA (basic constraints CA:true).
 */
export function parseCaBundle(pem: string): string[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new Error('holds no PEM certificate');
  return blocks.map((block, i) => {
    let certificate: x509.X509Certificate;
    try {
      certificate = new x509.X509Certificate(block);
    } catch (err) {
      throw new Error(`certificate ${i + 1} does not parse: ${(err as Error).message}`, { cause: err });
    }
    if (!certificate.getExtension(x509.BasicConstraintsExtension)?.ca)
      throw new Error(`certificate ${i + 1} (${certificate.subject}) is not a CA (basic constraints CA:true missing)`);
    return `${block}\n`;
  });
}
