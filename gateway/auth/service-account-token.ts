/**
 * ServiceAccount tokens, the gateway's second kind of credential (authenticate.ts): a bearer token
 * a tenant got through the gateway (`kubectl create token`: its audience is the gateway's,
 * translate/kinds/token-request.ts) is reviewed by a TokenReview at its tenant's cluster, for the
 * gateway's audience only, as capsule-proxy reviews tokens: the gateway holds no keys of its own.
 *
 * Which cluster to ask is read from the token's own claims (the namespace kube writes into every
 * ServiceAccount token), unverified; the identity is then what the review says, and only if the
 * reviewed account lives in a namespace of that same tenant, which must be Active. So a token
 * whose claims were edited fails its review, and a token of one tenant cannot be passed off as
 * another's. Tokens of the cluster's own accounts (no tenant prefix), of another audience (the
 * upstream API's), expired, or of an account or pod since deleted, fail as kube fails them: 401.
 *
 * Reviews are kept for a moment, keyed by the token's hash (REVIEW_TTL_MS from when they were
 * asked, never past the token's expiry), one at a time per token, so a client's burst costs one
 * review, and a deletion upstream is refused on every replica within that moment plus a review.
 * A token in use is reviewed again RENEW_BEFORE_MS before its review runs out, while the standing
 * one still answers: a busy client never waits for a review after its first, and no answer stands
 * longer than it would without the renewal.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RestClient } from '../../apiserver/client/rest-client.js';
import { isObject, type Json } from '../../apiserver/json.js';
import { isTenantId } from '../../tenants/tenant-resource.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';
import { namespaceTenantId } from '../../translate/context.js';
import { SERVICE_ACCOUNTS_GROUP, serviceAccountUser } from '../../translate/kinds/identity-names.js';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';
import type { Authentication, CredentialKind, Refusal, TenantIdentity } from './authenticate.js';

/** How long a review is kept: well inside the second a deletion must take to reach every replica. */
export const REVIEW_TTL_MS = 500;
/** Time enough for a review to come back before the standing one runs out. */
const RENEW_BEFORE_MS = 100;
const MAX_KEPT_REVIEWS = 10_000;
const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The cluster a tenant lives on, as the gateway reaches it with its own credentials. */
export type ClusterClientOf = (tenantId: string) => RestClient | undefined;

interface KeptReview {
  /** Until when the review stands (ms); while it is asked, for as long as it takes. */
  until: number;
  /** From when a request asks for the review again, answered meanwhile by this one; set once asked. */
  renewAt: number;
  /** The tenant the token's claims name, whose state is checked on every request. */
  tenant: string;
  /** When the token expires (ms), past which no review of it stands. */
  expires: number;
  /** The review's answer, or the review under way, which every request with the token meanwhile waits for. */
  answer: Authentication | Promise<Authentication>;
}

/** A token's claims (its JWT payload), unverified; undefined when it has none. */
function claimsOf(token: string): Json | undefined {
  try {
    const claims: unknown = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return isObject(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** The tenant a token's claims name (its namespace's prefix), unverified: where to have it reviewed. */
export function claimedTenant(token: string): string | undefined {
  return tenantOfClaims(claimsOf(token));
}

function tenantOfClaims(claims: Json | undefined): string | undefined {
  const kube = claims?.['kubernetes.io'];
  return isObject(kube) && typeof kube.namespace === 'string' ? tenantOfNamespace(kube.namespace) : undefined;
}

/** The tenant whose prefix an upstream namespace carries (`<tid>-…`), if any. */
function tenantOfNamespace(namespace: string): string | undefined {
  const tenant = namespaceTenantId(namespace);
  return tenant !== undefined && isTenantId(tenant) ? tenant : undefined;
}

/** When the claims say the token expires (ms), or never for none: a review is never kept past it. */
function expiryOf(claims: Json | undefined): number {
  return typeof claims?.exp === 'number' ? claims.exp * 1000 : Infinity;
}

/**
 * The identity a TokenReview's status makes of a token of `tenant`'s: a ServiceAccount in one of
 * its namespaces, authenticated for the gateway's audience; a refusal otherwise. Its user is the
 * account's upstream name, as a certificate's is its CN (tenants/upstream-identity.ts); its groups
 * are kube's for an account, in the tenant's terms.
 */
export function reviewedIdentity(tenant: string, status: unknown): TenantIdentity | Refusal {
  if (!isObject(status) || status.authenticated !== true || !isObject(status.user))
    return {
      refused: `token not authenticated by its cluster${isObject(status) && status.error ? `: ${String(status.error)}` : ''}`,
    };
  if (!Array.isArray(status.audiences) || !status.audiences.includes(GATEWAY_AUDIENCE))
    return { refused: "token not for the gateway's audience" };
  const username = typeof status.user.username === 'string' ? status.user.username : '';
  const account = serviceAccountUser(username);
  if (!account || tenantOfNamespace(account.namespace) !== tenant)
    return { refused: `token of ${username || 'no one'} is not of a ServiceAccount of tenant ${tenant}` };
  const namespace = account.namespace.slice(tenant.length + 1);
  const extra: Record<string, string[]> = {};
  if (isObject(status.user.extra))
    for (const key of ['authentication.kubernetes.io/pod-name', 'authentication.kubernetes.io/pod-uid']) {
      const values = status.user.extra[key];
      if (Array.isArray(values) && values.every((v) => typeof v === 'string')) extra[key] = values;
    }
  return {
    kind: 'tenant',
    tenant,
    user: username,
    groups: ['system:serviceaccounts', `${SERVICE_ACCOUNTS_GROUP}${namespace}`],
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

export function serviceAccountTokens(tenants: TenantRoster, clusterClientOf: ClusterClientOf): CredentialKind {
  const kept = new Map<string, KeptReview>();
  const review = async (token: string, tenant: string): Promise<Authentication> => {
    const client = clusterClientOf(tenant);
    if (!client) return { refused: `tenant ${tenant} has no cluster to review its token` };
    const answer = await client.request('POST', TOKEN_REVIEWS, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, audiences: [GATEWAY_AUDIENCE] },
    });
    if (answer.status !== 201 && answer.status !== 200)
      throw new Error(`TokenReview at the cluster of tenant ${tenant}: ${answer.status}`);
    return reviewedIdentity(tenant, isObject(answer.body) ? answer.body.status : undefined);
  };
  /** The review asked now, kept once answered. */
  const reviewAndKeep = async (key: string, token: string, tenant: string, expires: number) => {
    const asked = Date.now();
    const answer = await review(token, tenant);
    const until = Math.min(asked + REVIEW_TTL_MS, expires);
    if (kept.has(key) || kept.size < MAX_KEPT_REVIEWS)
      kept.set(key, { until, renewAt: until - RENEW_BEFORE_MS, tenant, expires, answer });
    return answer;
  };
  return {
    name: 'ServiceAccount token',
    authenticate(req: IncomingMessage): Authentication | Promise<Authentication> | undefined {
      const token = BEARER.exec(String(req.headers.authorization ?? ''))?.[1];
      if (token === undefined) return undefined;
      const key = createHash('sha256').update(token).digest('base64');
      const now = Date.now();
      const held = kept.get(key);
      const standing = held !== undefined && held.until > now ? held : undefined;
      // A standing review spares reading the claims again; the tenant's state is still checked each time.
      const claims = standing ? undefined : claimsOf(token);
      const tenant = standing ? standing.tenant : tenantOfClaims(claims);
      if (tenant === undefined) return { refused: 'bearer token names no tenant namespace' };
      const refusal = tenants.refusal(tenant);
      if (refusal !== null) return { refused: refusal };
      if (standing) {
        if (now >= standing.renewAt) {
          // Once per review. A renewal that fails is dropped: the standing review runs out, and the
          // request after it asks and waits, as a first one does, and sees the failure.
          standing.renewAt = Infinity;
          reviewAndKeep(key, token, tenant, standing.expires).catch(() => undefined);
        }
        return standing.answer;
      }
      // One review per token at a time: the requests of a busy client all wait for it, rather than
      // each asking the cluster when the kept one runs out. It stands for REVIEW_TTL_MS from when it was asked.
      const expires = expiryOf(claims);
      const asked = reviewAndKeep(key, token, tenant, expires).catch((err: unknown) => {
        kept.delete(key);
        throw err;
      });
      if (kept.size >= MAX_KEPT_REVIEWS) for (const [k, v] of kept) if (v.until <= now) kept.delete(k);
      if (kept.size < MAX_KEPT_REVIEWS)
        kept.set(key, { until: Infinity, renewAt: Infinity, tenant, expires, answer: asked });
      return asked;
    },
  };
}
