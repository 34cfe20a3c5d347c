/**
 * A tenant's kubeconfig, rendered when its Tenant is read rather than stored (as kube's registry
 * Decorator adds what is not worth storing): the Tenant holds only the tenant's certificate and
 * key, and every read answers KubeZoo's `kubezoo.io/tenant.kubeconfig.base64` annotation made from
 * them, the gateway's URL and the CAs it is trusted by now. A stored kubeconfig repeated the CA
 * bundle every tenant shares, base64 inside base64: 3.1 KB of a Tenant's 4.2 (BENCHMARKS.md).
 */
import { stringify } from 'yaml';
// Not the certs barrel: it loads X.509 and ASN.1 (0.4 s of CPU), and `paddock tenant` needs only this.
import { kubeconfigDocument, parseKubeconfig } from '../certs/kubeconfig.js';
import { pemBlock, pemOf } from '../certs/pem.js';

/** The annotation a Tenant's kubeconfig is answered in (KubeZoo's). */
export const KUBECONFIG_ANNOTATION = 'kubezoo.io/tenant.kubeconfig.base64';

/**
 * Where the Tenant stores its client certificate and key (credentialsAnnotation). Never answered:
 * reads show the kubeconfig instead.
 */
export const CREDENTIALS_ANNOTATION = 'paddock.io/tenant.credentials';

export interface TenantCredentials {
  certPem: string;
  keyPem: string;
}

/** What the tenant kubeconfigs of a gateway share: its URL and the CAs a client trusts it by. */
export interface KubeconfigServer {
  server: string;
  caPem: string;
}

const CLUSTER_NAME = 'paddock';
const CERT_TOKEN = 'PADDOCKCLIENTCERTIFICATEDATA';
const KEY_TOKEN = 'PADDOCKCLIENTKEYDATA';
const USER_TOKEN = 'PADDOCKTENANTUSER';

const END_CERTIFICATE = '-----END CERTIFICATE-----\n';

/**
 * The stored form of a tenant's credentials: the certificate's and the key's bytes in base64,
 * `<certificate>.<key>`, which read back as the same PEM texts (PEM's armour and line breaks, as
 * the JSON of every stored Tenant escapes them, were about 140 bytes of each Tenant in every replica's
 * memory). Credentials whose PEM would not read back the same (another key format) stay a PEM
 * bundle, the certificate first, as an earlier version stored every one.
 */
export function credentialsAnnotation({ certPem, keyPem }: TenantCredentials): string {
  const cert = pemBlock(certPem);
  const key = pemBlock(keyPem);
  if (
    cert?.label === CERTIFICATE &&
    key?.label === PRIVATE_KEY &&
    pemOf(Buffer.from(cert.base64, 'base64'), CERTIFICATE) === certPem &&
    pemOf(Buffer.from(key.base64, 'base64'), PRIVATE_KEY) === keyPem
  )
    return `${cert.base64}.${key.base64}`;
  return `${certPem.endsWith('\n') ? certPem : `${certPem}\n`}${keyPem}`;
}

const CERTIFICATE = 'CERTIFICATE';
const PRIVATE_KEY = 'PRIVATE KEY';
const COMPACT = /^([A-Za-z0-9+/]+=*)\.([A-Za-z0-9+/]+=*)$/;

/** The credentials a Tenant holds: stored, or inside a kubeconfig stored by an earlier version. */
export function storedCredentials(annotations: Record<string, string> | undefined): TenantCredentials | undefined {
  const bundle = annotations?.[CREDENTIALS_ANNOTATION];
  if (bundle !== undefined) {
    const compact = COMPACT.exec(bundle);
    if (compact)
      return {
        certPem: pemOf(Buffer.from(compact[1], 'base64'), CERTIFICATE),
        keyPem: pemOf(Buffer.from(compact[2], 'base64'), PRIVATE_KEY),
      };
    const end = bundle.indexOf(END_CERTIFICATE);
    if (end < 0) return undefined;
    const split = end + END_CERTIFICATE.length;
    return { certPem: bundle.slice(0, split), keyPem: bundle.slice(split) };
  }
  const legacy = annotations?.[KUBECONFIG_ANNOTATION];
  if (legacy === undefined) return undefined;
  try {
    const { certPem, keyPem } = parseKubeconfig(Buffer.from(legacy, 'base64').toString('utf8'));
    return { certPem, keyPem };
  } catch {
    return undefined;
  }
}

/**
 * Renders tenant kubeconfigs for one gateway. The YAML is made once with tokens for what differs
 * between tenants and filled in per read: a read of 10,000 Tenants would otherwise spend 0.7 s in
 * the YAML library. A tenant id the library would quote (`000001` reads as a number) gets the
 * library's whole rendering, so every kubeconfig is the library's text.
 */
export class TenantKubeconfigs {
  private readonly template: string;

  constructor(private readonly gateway: KubeconfigServer) {
    this.template = this.rendered(USER_TOKEN, CERT_TOKEN, KEY_TOKEN);
  }

  /** The kubeconfig of tenant `id` holding `credentials`, as the annotation's base64. */
  annotation(id: string, credentials: TenantCredentials): string {
    return Buffer.from(this.text(id, credentials), 'utf8').toString('base64');
  }

  /** The kubeconfig's YAML. */
  text(id: string, { certPem, keyPem }: TenantCredentials): string {
    const cert = base64(certPem);
    const key = base64(keyPem);
    if (stringify(id) !== `${id}\n`) return this.rendered(id, cert, key);
    return this.template.replaceAll(USER_TOKEN, id).replace(CERT_TOKEN, cert).replace(KEY_TOKEN, key);
  }

  private rendered(id: string, certData: string, keyData: string): string {
    return stringify(
      kubeconfigDocument({
        clusterName: CLUSTER_NAME,
        server: this.gateway.server,
        caPem: this.gateway.caPem,
        userName: id,
        user: { 'client-certificate-data': certData, 'client-key-data': keyData },
        contextName: `${id}@${CLUSTER_NAME}`,
      }),
    );
  }
}

function base64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}
