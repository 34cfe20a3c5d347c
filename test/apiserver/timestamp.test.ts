import { expect } from 'chai';
import { timestamp } from '../../apiserver/registry/generic-registry.js';

describe('apiserver: timestamps as kube writes metav1.Time', () => {
  const cases: [string, string][] = [
    ['2026-12-06T05:30:00.000Z', '2026-12-06T05:30:00Z'],
    ['2026-12-06T05:30:00.999Z', '2026-12-06T05:30:00Z'],
    ['1999-12-31T23:59:59.500Z', '1999-12-31T23:59:59Z'],
    ['1969-12-31T23:59:59.500Z', '1969-12-31T23:59:59Z'],
  ];
  for (const [date, written] of cases)
    it(`writes ${date} as ${written}: whole seconds, truncated`, () => {
      expect(timestamp(new Date(date))).to.equal(written);
    });

  it("without a date writes now's second, and a given date in between does not change what now reads", () => {
    const before = Math.floor(Date.now() / 1000);
    const first = timestamp();
    expect(timestamp(new Date('2000-01-01T00:00:00Z'))).to.equal('2000-01-01T00:00:00Z');
    const second = timestamp();
    const after = Math.floor(Date.now() / 1000);
    for (const stamp of [first, second]) {
      const at = Date.parse(stamp) / 1000;
      expect(at).to.be.within(before, after);
      expect(stamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });
});
