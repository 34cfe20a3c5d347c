export { createCertificateAuthority, loadCertificateAuthority } from './ca.js';
export type { CertificateAuthority, CertificateAuthorityOptions } from './ca.js';
export { issueClientCertificate, issueServingCertificate } from './issue.js';
export type { ClientCertificateOptions, IssuedCertificate, ServingCertificateOptions } from './issue.js';
export { canonicalSerial, identityFromPeerCertificate } from './identity.js';
export type { ClientIdentity } from './identity.js';
export { kubeconfigDocument, parseKubeconfig, parseServerCredentials, renderKubeconfig } from './kubeconfig.js';
export type {
  KubeconfigDocumentOptions,
  KubeconfigOptions,
  ParsedKubeconfig,
  ServerCredentials,
} from './kubeconfig.js';
export { exportPrivateKeyPem, generateKeyPair, importPrivateKeyPem } from './keys.js';
export type { KeyAlgorithm } from './keys.js';
export { parseCaBundle } from './trusted-cas.js';
