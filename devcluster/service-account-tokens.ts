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
  /** Whom the token is for (`aud`): the API server's own audience unless a TokenRequest names others. */
  audiences?: string[];
}

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

/**
 * The audience the devcluster's API accepts tokens for, as kube-apiserver's `--api-audiences`
 * (which defaults to its issuer): a token of any other audience is no credential here, and a
 * TokenRequest or TokenReview that names no audience means this one.
 */
export const API_AUDIENCES: readonly string[] = [ISSUER];

/**
 * ServiceAccount tokens, as `serviceaccounts/token` (TokenRequest) issues them: a signed claim
 * set naming the account, verified on every request. Not a JWT library's token, but the same
 * shape (header.payload.signature, HMAC-SHA256) and kube's claims (`sub`, `iss`, `aud`, `iat`,
 * `nbf`, `exp`, `jti` and the `kubernetes.io` private claim naming the namespace, the account
 * and the bound pod), so it reads as one in a kubeconfig or a pod's token file.
 */
export class ServiceAccountTokens {
  /** uid of an account or a pod → when the last token naming it expires (ms): what a deletion must revoke. */
  private readonly issuedUntil = new Map<string, number>();
  /** uid of a deleted account or pod → until when tokens naming it are refused (ms). */
  private readonly revoked = new Map<string, number>();

  constructor(
    /** What tokens are checked against for expiry; a test sets it ahead to see its tokens expire. */
    private readonly now: () => number = Date.now,
    private readonly key: Buffer = randomBytes(32),
  ) {}

  /**
   * The account or pod of this uid is gone: tokens naming it are refused from now on, as kube's
   * authenticator refuses a token whose account (or bound pod) no longer exists with that uid.
   */
  revoke(uid: string): void {
    const until = this.issuedUntil.get(uid);
    if (until === undefined) return;
    this.issuedUntil.delete(uid);
    this.revoked.set(uid, until);
  }

  issue(claims: ServiceAccountClaims): string {
    const now = Date.now();
    for (const uid of claims.pod ? [claims.uid, claims.pod.uid] : [claims.uid])
      this.issuedUntil.set(uid, Math.max(this.issuedUntil.get(uid) ?? 0, claims.exp * 1000));
    forgetPast(this.issuedUntil, now);
    forgetPast(this.revoked, now);
    const header = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const issuedAt = Math.floor(now / 1000);
    const payload = b64(
      JSON.stringify({
        aud: claims.audiences?.length ? claims.audiences : API_AUDIENCES,
        exp: claims.exp,
        iat: issuedAt,
        iss: ISSUER,
        jti: claims.jti ?? randomUUID(),
        'kubernetes.io': {
          namespace: claims.namespace,
          ...(claims.pod ? { pod: claims.pod } : {}),
          serviceaccount: { name: claims.name, uid: claims.uid },
        },
        nbf: issuedAt,
        sub: `system:serviceaccount:${claims.namespace}:${claims.name}`,
      }),
    );
    return `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
  }

  /**
   * The claims of a valid, unexpired token for one of `audiences` (their `audiences`: those of the
   * token's that were asked for, as a TokenReview's status names them); null otherwise.
   */
  verify(token: string, audiences: readonly string[] = API_AUDIENCES): ServiceAccountClaims | null {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return null;
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const actual = Buffer.from(signature);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const kube = claims['kubernetes.io'];
      if (!(claims.exp * 1000 > this.now())) return null;
      const aud: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      const matched = audiences.filter((audience) => aud.includes(audience));
      if (matched.length === 0) return null;
      if (this.revoked.has(kube.serviceaccount.uid) || (kube.pod && this.revoked.has(kube.pod.uid))) return null;
      return {
        namespace: kube.namespace,
        name: kube.serviceaccount.name,
        uid: kube.serviceaccount.uid,
        exp: claims.exp,
        jti: claims.jti,
        audiences: matched,
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

/** Drops the entries whose time has passed: nothing issued names them any longer. */
function forgetPast(times: Map<string, number>, now: number): void {
  for (const [uid, until] of times) if (until <= now) times.delete(uid);
}

function b64(text: string): string {
  return Buffer.from(text).toString('base64url');
}
