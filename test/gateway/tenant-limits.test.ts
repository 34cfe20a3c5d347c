import { expect } from 'chai';
import { ApiError } from '../../apiserver/status.js';
import { TenantLimits, type TenantLimitValues } from '../../gateway/server/tenant-limits.js';

/** The Status a refused call throws. */
function refusal(fn: () => unknown): ApiError['status'] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
  throw new Error('expected a 429 refusal');
}

describe('gateway: tenant limits (token bucket, open streams, upstream connections)', () => {
  const defaults: TenantLimitValues = { qps: 2, burst: 4, maxWatches: 2, maxUpstreamConnections: 5 };
  let now = 0;
  const overrides = new Map<string, Partial<TenantLimitValues>>();
  const limits = () =>
    new TenantLimits(
      defaults,
      (id) => overrides.get(id),
      () => now,
    );

  beforeEach(() => {
    now = 0;
    overrides.clear();
  });

  it('admits a burst, then refuses with the seconds until the next token, and refills at qps', () => {
    const l = limits();
    for (let i = 0; i < 4; i++) l.begin('aaaaaa').end();
    const status = refusal(() => l.begin('aaaaaa'));
    expect(status).to.deep.include({ code: 429, reason: 'TooManyRequests' });
    expect(status.details?.retryAfterSeconds).to.equal(1);
    expect(status.message).to.contain('tenant aaaaaa may make 2 requests per second (burst 4)');
    // Another tenant has a bucket of its own.
    l.begin('bbbbbb').end();
    now += 500;
    l.begin('aaaaaa').end();
    expect(() => l.begin('aaaaaa')).to.throw(ApiError);
    now += 60_000;
    for (let i = 0; i < 4; i++) l.begin('aaaaaa').end();
    expect(() => l.begin('aaaaaa'), 'refilled to the burst, never beyond').to.throw(ApiError);
  });

  it('Retry-After covers the wait for one token at a slow rate', () => {
    overrides.set('aaaaaa', { qps: 0.1, burst: 1 });
    const l = limits();
    l.begin('aaaaaa').end();
    expect(refusal(() => l.begin('aaaaaa')).details?.retryAfterSeconds).to.equal(10);
  });

  it('bounds open streams and upstream connections, and gives back what a request held when it ends', () => {
    overrides.set('aaaaaa', { qps: 0 });
    const l = limits();
    const first = l.begin('aaaaaa');
    first.openStream();
    const second = l.begin('aaaaaa');
    second.openStream();
    const third = l.begin('aaaaaa');
    expect(refusal(() => third.openStream()).message).to.contain('maxWatches');
    third.end();
    // 2 held; a cross-namespace watch wanting 4 more is refused whole, nothing taken.
    expect(refusal(() => first.claimUpstream(4)).message).to.contain('needs 4 more upstream connections');
    first.claimUpstream(3);
    expect(refusal(() => l.begin('aaaaaa')).message).to.contain('maxUpstreamConnections');
    first.releaseUpstream(1);
    l.begin('aaaaaa').end();
    first.end();
    first.end();
    second.end();
    const again = [l.begin('aaaaaa'), l.begin('aaaaaa')];
    for (const lease of again) lease.openStream();
    for (const lease of again) lease.end();
  });

  it("0 turns a bound off, and the Tenant's own limits win over the defaults", () => {
    overrides.set('aaaaaa', { qps: 0, maxWatches: 0, maxUpstreamConnections: 0 });
    const l = limits();
    const leases = Array.from({ length: 50 }, () => l.begin('aaaaaa'));
    for (const lease of leases) lease.openStream();
    leases[0].claimUpstream(1000);
    overrides.set('bbbbbb', { burst: 10 });
    for (let i = 0; i < 10; i++) l.begin('bbbbbb').end();
    expect(() => l.begin('bbbbbb')).to.throw(ApiError);
  });
});
