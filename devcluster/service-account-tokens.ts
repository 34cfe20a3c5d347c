import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export interface ServiceAccountClaims {
  namespace: string;
  name: string;
  uid: string;
  /** Seconds since the epoch. */
  exp: number;
  /** The pod the token is bound to (TokenRequest's `boundObjectRef`, as the kubelet asks for it). */
  pod?: { name: string; uid: string };
  /** The token's id, kube's `jti`: what `authentication.kubernetes.io/credential-id` names. */
  jti?: string;
}

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

/**
 * ServiceAccount tokens, as `serviceaccounts/token` (TokenRequest) issues them: a signed claim
 * set naming the account, verified on every request. Not a JWT library's token, but the same
 * shape (header.payload.signature, HMAC-SHA256) and kube's claims (`sub`, `iss`, `aud`, `iat`,
 * `nbf`, `exp`, `jti` and the `kubernetes.io` private claim naming the namespace, the account
 * and the bound pod), so it reads as one in a kubeconfig or a pod's token file.
 */
export class ServiceAccountTokens {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  issue(claims: ServiceAccountClaims): string {
    const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const now = Math.floor(Date.now() / 1000);
    const payload = b64(
      JSON.stringify({
        aud: [ISSUER],
        exp: claims.exp,
        iat: now,
        iss: ISSUER,
        jti: claims.jti ?? randomUUID(),
        'kubernetes.io': {
          namespace: claims.namespace,
          ...(claims.pod ? { pod: claims.pod } : {}),
          serviceaccount: { name: claims.name, uid: claims.uid },
        },
        nbf: now,
        sub: `system:serviceaccount:${claims.namespace}:${claims.name}`,
      }),
    );
    return `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
  }

  /** The claims of a valid, unexpired token; null otherwise. */
  verify(token: string): ServiceAccountClaims | null {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return null;
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const actual = Buffer.from(signature);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const kube = claims['kubernetes.io'];
      if (!(claims.exp * 1000 > Date.now())) return null;
      return {
        namespace: kube.namespace,
        name: kube.serviceaccount.name,
        uid: kube.serviceaccount.uid,
        exp: claims.exp,
        jti: claims.jti,
        ...(kube.pod ? { pod: { name: kube.pod.name, uid: kube.pod.uid } } : {}),
      };
    } catch {
      return null;
    }
  }

  private sign(data: string): string {
    return createHmac('sha256', this.key).update(data).digest('base64url');
  }
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64url');
}
