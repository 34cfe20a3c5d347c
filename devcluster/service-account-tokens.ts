import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface ServiceAccountClaims {
  namespace: string;
  name: string;
  uid: string;
  /** Seconds since the epoch. */
  exp: number;
}

/**
 * ServiceAccount tokens, as `serviceaccounts/token` (TokenRequest) issues them: a signed claim
 * set naming the account, verified on every request. Not a JWT library's token, but the same
 * shape (header.payload.signature, HMAC-SHA256) so it passes for one in a kubeconfig.
 */
export class ServiceAccountTokens {
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  issue(claims: ServiceAccountClaims): string {
    const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const payload = b64(JSON.stringify({ sub: `system:serviceaccount:${claims.namespace}:${claims.name}`, ...claims }));
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
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as ServiceAccountClaims;
      return claims.exp * 1000 > Date.now() ? claims : null;
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
