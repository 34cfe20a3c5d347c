import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RestClient } from '../../apiserver/client/rest-client.js';
import {
  claimedTenant,
  REVIEW_TTL_MS,
  reviewedIdentity,
  serviceAccountTokens,
} from '../../gateway/auth/service-account-token.js';
import type { TenantRoster } from '../../tenants/tenant-roster.js';
import { GATEWAY_AUDIENCE } from '../../translate/kinds/token-request.js';

const token = (claims: unknown) =>
  `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

/** kube's claims of a ServiceAccount token (as kube-apiserver 1.32 writes them). */
const kubeClaims = (namespace: string) => ({
  aud: [GATEWAY_AUDIENCE],
  exp: 1_900_000_000,
  iss: 'https://kubernetes.default.svc.cluster.local',
  'kubernetes.io': { namespace, serviceaccount: { name: 'ci', uid: 'b3c1a2e8-7f0a-4c1e-9d1e-0a5f8b7c6d5e' } },
  sub: `system:serviceaccount:${namespace}:ci`,
});

const authenticated = (username: string, audiences: unknown = [GATEWAY_AUDIENCE], extra?: unknown) => ({
  authenticated: true,
  user: {
    username,
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    ...(extra ? { extra } : {}),
  },
  audiences,
});

describe('gateway: ServiceAccount tokens, the claims and the review (service-account-token.ts)', () => {
  describe('the tenant a token claims, where it is reviewed', () => {
    const cases: [string, string, string | undefined][] = [
      ['a tenant namespace', token(kubeClaims('satokn-dev')), 'satokn'],
      ['a tenant namespace with dashes of its own', token(kubeClaims('satokn-kube-system')), 'satokn'],
      ["the cluster's own namespace", token(kubeClaims('kube-system')), undefined],
      ['a prefix and nothing after it', token(kubeClaims('satokn-')), undefined],
      ['a prefix that is no tenant id', token(kubeClaims('Satokn-dev')), undefined],
      ['no kubernetes.io claim', token({ sub: 'system:serviceaccount:satokn-dev:ci' }), undefined],
      ['a namespace that is not a string', token({ 'kubernetes.io': { namespace: 7 } }), undefined],
      ['claims that are not JSON', 'a.bm90IGpzb24.c2ln', undefined],
      ['claims that are not an object', token(['satokn-dev']), undefined],
      ['no claims at all', 'opaque-static-token', undefined],
    ];
    for (const [name, value, tenant] of cases) it(name, () => expect(claimedTenant(value)).to.equal(tenant));
  });

  describe('the identity a review makes', () => {
    it('an account in one of the tenant’s namespaces: its upstream name, kube’s groups in the tenant’s terms, its pod', () => {
      const extra = {
        'authentication.kubernetes.io/pod-name': ['web'],
        'authentication.kubernetes.io/pod-uid': ['p-1'],
        'authentication.kubernetes.io/credential-id': ['JTI=1'],
      };
      expect(
        reviewedIdentity('satokn', authenticated('system:serviceaccount:satokn-dev:ci', undefined, extra)),
      ).to.deep.equal({
        kind: 'tenant',
        tenant: 'satokn',
        user: 'system:serviceaccount:satokn-dev:ci',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:dev'],
        extra: {
          'authentication.kubernetes.io/pod-name': ['web'],
          'authentication.kubernetes.io/pod-uid': ['p-1'],
        },
      });
    });

    const refused: [string, unknown, string][] = [
      [
        'not authenticated',
        { authenticated: false, error: 'token expired' },
        'not authenticated by its cluster: token expired',
      ],
      ['no status', undefined, 'not authenticated'],
      ['authenticated with no user', { authenticated: true, audiences: [GATEWAY_AUDIENCE] }, 'not authenticated'],
      [
        'for another audience',
        authenticated('system:serviceaccount:satokn-dev:ci', ['https://kubernetes.default.svc']),
        "gateway's audience",
      ],
      [
        'with no audiences said',
        { ...authenticated('system:serviceaccount:satokn-dev:ci'), audiences: undefined },
        "gateway's audience",
      ],
      [
        'an account of another tenant',
        authenticated('system:serviceaccount:satokb-dev:ci'),
        'not of a ServiceAccount of tenant satokn',
      ],
      [
        "an account of the cluster's own",
        authenticated('system:serviceaccount:kube-system:default'),
        'not of a ServiceAccount',
      ],
      ['a user, not an account', authenticated('satokn-admin'), 'not of a ServiceAccount'],
      [
        'a name with more parts than an account’s',
        authenticated('system:serviceaccount:satokn-dev:ci:x'),
        'not of a ServiceAccount',
      ],
    ];
    for (const [name, status, reason] of refused)
      it(`refuses ${name}`, () => {
        expect(reviewedIdentity('satokn', status)).to.have.property('refused').that.contains(reason);
      });
  });

  describe('kept reviews', () => {
    const ci = token(kubeClaims('satokn-dev'));
    const request = { headers: { authorization: `Bearer ${ci}` } } as IncomingMessage;
    /**
     * The cluster's TokenReviews, answered by `answer(n)` for the n-th (0 first): this is a test of
     * when the gateway asks, which a real cluster answers too fast to hold.
     */
    function tokensAnsweredBy(answer: (n: number) => Promise<unknown>) {
      const asked: number[] = [];
      const cluster = {
        request: async () => {
          asked.push(Date.now());
          return { status: 201, body: { status: await answer(asked.length - 1) } };
        },
      } as unknown as RestClient;
      const tenants = { refusal: () => null } as unknown as TenantRoster;
      return { tokens: serviceAccountTokens(tenants, () => cluster), asked };
    }
    const account = () => Promise.resolve(authenticated('system:serviceaccount:satokn-dev:ci'));

    it('a token in steady use is reviewed again before its review runs out, and no request after the first waits', async () => {
      const { tokens, asked } = tokensAnsweredBy(account);
      expect(await tokens.authenticate(request)).to.have.property('user', 'system:serviceaccount:satokn-dev:ci');
      const started = Date.now();
      while (Date.now() - started < 3 * REVIEW_TTL_MS) {
        const answer = tokens.authenticate(request);
        expect(answer, `${Date.now() - started} ms after the first review`).not.to.be.instanceOf(Promise);
        expect(answer).to.have.property('user', 'system:serviceaccount:satokn-dev:ci');
        await sleep(10);
      }
      expect(asked.length).to.be.within(4, 8);
    });

    it('a renewal that finds the account gone refuses the token before the first review would have run out', async () => {
      const { tokens, asked } = tokensAnsweredBy((n) =>
        n === 0 ? account() : Promise.resolve({ authenticated: false, error: 'serviceaccounts "ci" not found' }),
      );
      await tokens.authenticate(request);
      let answer = tokens.authenticate(request);
      while (asked.length < 2) {
        await sleep(10);
        answer = tokens.authenticate(request);
      }
      expect(answer, 'the standing review answers while the renewal is asked').to.have.property('user');
      await sleep(0);
      expect(tokens.authenticate(request)).to.have.property('refused').that.contains('not found');
      expect(Date.now() - asked[0]).to.be.below(REVIEW_TTL_MS);
    });

    it('no review stands past its time, when its renewal does not come back', async () => {
      const { tokens, asked } = tokensAnsweredBy((n) => (n === 0 ? account() : new Promise(() => undefined)));
      await tokens.authenticate(request);
      while (Date.now() - asked[0] < REVIEW_TTL_MS) {
        expect(tokens.authenticate(request)).to.have.property('user');
        await sleep(10);
      }
      expect(asked.length, 'renewed once').to.equal(2);
      expect(tokens.authenticate(request), 'waits for a review of its own').to.be.instanceOf(Promise);
      expect(asked.length).to.equal(3);
    });
  });
});
