/**
 * The authentication stage of the request pipeline (gateway/server/pipeline.ts): who a request
 * is, by the one credential it presents, as kube-apiserver's union authenticator asks each of its
 * authenticators in turn. Each kind of credential the gateway accepts is a `CredentialKind`:
 * client certificates today (client-certificate.ts); a ServiceAccount token (issue 33) is a second
 * kind, plugged in beside it, that reads the `Authorization` header.
 */
import type { IncomingMessage } from 'node:http';

export type Identity =
  | { kind: 'admin'; user: string; groups: string[] }
  | { kind: 'tenant'; tenant: string; user: string; groups: string[]; serial: string };

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
  /** The request's identity by this kind of credential, or its refusal; undefined when it presents none of this kind. */
  authenticate(req: IncomingMessage): Authentication | undefined;
}

const ANONYMOUS: Refusal = { refused: 'no credentials presented', anonymous: true };

/**
 * The first kind whose credential the request presents decides: its identity, or its refusal (a
 * certificate that is presented and refused is not passed over for another credential).
 */
export class Authenticator {
  constructor(private readonly kinds: readonly CredentialKind[]) {}

  authenticate(req: IncomingMessage): Authentication {
    for (const kind of this.kinds) {
      const found = kind.authenticate(req);
      if (found) return found;
    }
    return ANONYMOUS;
  }
}
