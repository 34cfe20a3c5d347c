/**
 * TokenRequests (`serviceaccounts/<sa>/token`): a token's audiences say which services accept it,
 * and every tenant's service accounts are issued tokens by the same upstream issuer. So a
 * tenant's audiences carry its prefix upstream (`vault` ↔ `<p>vault`): a tenant can never hold a
 * token for an audience another tenant's services accept. An empty list means the API server's
 * own audience, and the tenant's API server is the gateway: it becomes GATEWAY_AUDIENCE upstream,
 * which the upstream's API does not accept (a token issued through the gateway is no credential
 * upstream) and which the gateway accepts by TokenReview (gateway/auth/service-account-token.ts).
 * Down, the gateway's audience is the API's own again, which kube leaves out of nothing: it is
 * dropped, as an audience not the tenant's. A TokenReview's audiences are converted alike
 * (reviews.ts), so a tenant's service checks its tokens in its own terms.
 */
import { isObject } from '../../apiserver/json.js';
import { EACH, ruled, type Invariant } from './invariants.js';
import { prefixed, stringsAt, type Convertor, type StringRule } from './convertor.js';

/**
 * The audience of the tokens the gateway accepts as its own API's. No tenant's audience can be
 * it: theirs all carry a tenant prefix (`<6 characters>-`), and its seventh character is not `-`.
 */
export const GATEWAY_AUDIENCE = 'paddock.io/gateway';

/** A tenant's audience; down, the gateway's own is the API's, left unsaid. */
const audience: StringRule = {
  up: prefixed.up,
  down: (ctx, value) => (value === GATEWAY_AUDIENCE ? null : prefixed.down(ctx, value)),
};

const audienceList = stringsAt('audiences', audience);

/** A spec's or status's audiences; up, none means the gateway's. */
export const audiences: Convertor = {
  up: (ctx, node) => {
    if (Array.isArray(node.audiences) && node.audiences.length > 0) audienceList.up(ctx, node);
    else node.audiences = [GATEWAY_AUDIENCE];
  },
  down: audienceList.down,
};

/** A TokenRequest: its spec made when absent, for the audience to go in. */
export const tokenRequestConvertor: Convertor = {
  up: (ctx, node) => {
    if (!isObject(node.spec)) node.spec = {};
    audiences.up(ctx, node.spec);
  },
  down: (ctx, node) => (isObject(node.spec) ? audiences.down(ctx, node.spec) : true),
};

/** Not stored, but what it asks for: only audiences of the tenant's own, or the gateway's. */
export const tokenRequestInvariants: readonly Invariant[] = [
  ruled(
    ['spec', 'audiences', EACH],
    { up: prefixed.up, down: (ctx, value) => (value === GATEWAY_AUDIENCE ? value : prefixed.down(ctx, value)) },
    "must be one of the tenant's own audiences",
  ),
];
