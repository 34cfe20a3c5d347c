/**
 * TokenRequests (`serviceaccounts/<sa>/token`): a token's audiences say which services accept it,
 * and every tenant's service accounts are issued tokens by the same upstream issuer. So a
 * tenant's audiences carry its prefix upstream (`vault` ↔ `<p>vault`): a tenant can never hold a
 * token for an audience another tenant's services accept. An empty list means the API server's
 * own audiences and stays empty; a TokenReview's audiences are converted alike (reviews.ts), so a
 * tenant's service checks its tokens in its own terms.
 */
import { EACH, ruled, type Invariant } from './invariants.js';
import { at, prefixed, stringsAt } from './convertor.js';

export const audiences = stringsAt('audiences', prefixed);

export const tokenRequestConvertor = at(['spec'], audiences);

/** Not stored, but what it asks for: only audiences of the tenant's own. */
export const tokenRequestInvariants: readonly Invariant[] = [
  ruled(['spec', 'audiences', EACH], prefixed, "must be one of the tenant's own audiences"),
];
