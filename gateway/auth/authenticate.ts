/**
 * The authentication stage of the request pipeline (gateway/server/pipeline.ts): who a request
 * is, by the one credential it presents, as kube-apiserver's union authenticator asks each of its
 * authenticators in turn. Each kind of credential the gateway accepts is a `CredentialKind`:
 * client certificates (client-certificate.ts), decided at once from the connection, and
 * ServiceAccount tokens (service-account-token.ts), which read the `Authorization` header and may
 * need a review by the tenant's cluster first. A certificate comes first, as in kube-apiserver's
 * union authenticator: a request that presents both is the certificate's.
 */
import type { IncomingMessage } from 'node:http';

export type Identity =
  | { kind: 'admin'; user: string; groups: string[] }
  | {
      kind: 'tenant';
      tenant: string;
      /** The user's name upstream: a certificate's CN (`<tid>-…`), a ServiceAccount's `system:serviceaccount:<tid>-<ns>:<name>`. */
      user: string;
      /** In the tenant's terms. */
      groups: string[];
      /** A certificate's serial, which the tenant must still accept; none for a token, which its review admits. */
      serial?: string;
      /** A token's pod, kube's `authentication.kubernetes.io/pod-name` and `pod-uid`. */
      extra?: Record<string, string[]>;
    };

export type AdminIdentity = Extract<Identity, { kind: 'admin' }>;
export type TenantIdentity = Extract<Identity, { kind: 'tenant' }>;

/** A request the gateway does not know: the reason is for the log, the client gets kube's 401. */
export interface Refusal {
  refused: string;
  /** No credential of any kind was presented: kube-apiserver's anonymous request, which may read health. */
  anonymous?: true;
}

export type Authentication = Identity | Refusal;

/** One kind of credential, as one of kube-apiserver's authenticators. */
export interface CredentialKind {
  readonly name: string;
  /**
   * The request's identity by this kind of credential, or its refusal (a promise of it when the
   * credential must be reviewed first); undefined when it presents none of this kind.
   */
  authenticate(req: IncomingMessage): Authentication | Promise<Authentication> | undefined;
}

const ANONYMOUS: Refusal = { refused: 'no credentials presented', anonymous: true };

/**
 * The first kind whose credential the request presents decides: its identity, or its refusal (a
 * certificate that is presented and refused is not passed over for another credential).
 */
export class Authenticator {
  constructor(private readonly kinds: readonly CredentialKind[]) {}

  authenticate(req: IncomingMessage): Authentication | Promise<Authentication> {
    for (const kind of this.kinds) {
      const found = kind.authenticate(req);
      if (found instanceof Promise)
        return found.catch((err: unknown) => ({ refused: `${kind.name} not reviewed: ${(err as Error).message}` }));
      if (found) return found;
    }
    return ANONYMOUS;
  }
}
