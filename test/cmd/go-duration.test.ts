import { expect } from 'chai';
import { parseGoDuration } from '../../cmd/go-duration.js';

// Go's time.ParseDuration cases (time/time_test.go, parseDurationTests), in milliseconds; the
// signed ones are refused here, since no flag takes a negative duration.
const VALID: [string, number][] = [
  ['0', 0],
  ['5s', 5000],
  ['30s', 30_000],
  ['1478s', 1_478_000],
  ['5.0s', 5000],
  ['5.6s', 5600],
  ['5.s', 5000],
  ['.5s', 500],
  ['1.0s', 1000],
  ['1.00s', 1000],
  ['1.004s', 1004],
  ['1.0040s', 1004],
  ['100.00100s', 100_001],
  ['10ns', 1e-5],
  ['11us', 0.011],
  ['12µs', 0.012],
  ['13ms', 13],
  ['14s', 14_000],
  ['15m', 900_000],
  ['16h', 57_600_000],
  ['3h30m', 12_600_000],
  ['10.5s4m', 250_500],
  ['1h2m3s4ms5us6ns', 3_723_004.005006],
  ['39h9m14.425s', 140_954_425],
];
const INVALID = ['', '3', '-', 's', '.', '.s', '1d', '-5s', '+5s', '5s ', ' 5s', '5 s', '\u0085\u0085'];

describe("gateway: Go's duration syntax for flags", () => {
  for (const [text, ms] of VALID)
    it(`${JSON.stringify(text)} is ${ms} ms`, () => expect(parseGoDuration(text)).to.be.closeTo(ms, 1e-9));
  it('refuses what Go refuses, and signs', () => {
    for (const text of INVALID) expect(parseGoDuration(text), JSON.stringify(text)).to.equal(undefined);
  });
});
