import { expect } from 'chai';
import { humanDuration } from '../../apiserver/table/duration.js';

const ms = 1;
const s = 1000 * ms;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;
/** One nanosecond, the smallest step of the Go test table. */
const ns = 1e-6 * ms;

/** Pairs of [duration in ms, expected text]; the labels mirror Go's duration expressions. */
function check(cases: [number, string][]): void {
  for (const [duration, want] of cases) {
    it(`${duration}ms → ${want}`, () => {
      expect(humanDuration(duration)).to.equal(want);
    });
  }
}

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  describe('TestHumanDuration', () => {
    check([
      [s, '1s'],
      [70 * s, '70s'],
      [190 * s, '3m10s'],
      [70 * m, '70m'],
      [47 * h, '47h'],
      [49 * h, '2d1h'],
      [(8 * 24 + 2) * h, '8d'],
      [367 * 24 * h, '367d'],
      [(365 * 2 * 24 + 25) * h, '2y1d'],
      [(365 * 8 * 24 + 2) * h, '8y'],
    ]);
  });

  describe('TestHumanDurationBoundaries', () => {
    check([
      [-2 * s, '<invalid>'],
      [-2 * s + ns, '0s'],
      [0, '0s'],
      [s - ms, '0s'],
      [2 * m - ms, '119s'],
      [2 * m, '2m'],
      [2 * m + s, '2m1s'],
      [10 * m - ms, '9m59s'],
      [10 * m, '10m'],
      [10 * m + s, '10m'],
      [3 * h - ms, '179m'],
      [3 * h, '3h'],
      [3 * h + m, '3h1m'],
      [8 * h - ms, '7h59m'],
      [8 * h, '8h'],
      [8 * h + 59 * m, '8h'],
      [2 * d - ms, '47h'],
      [2 * d, '2d'],
      [2 * d + h, '2d1h'],
      [8 * d - ms, '7d23h'],
      [8 * d, '8d'],
      [8 * d + 23 * h, '8d'],
      [2 * y - ms, '729d'],
      [2 * y, '2y'],
      [2 * y + 23 * h, '2y'],
      [2 * y + 23 * h + 59 * m, '2y'],
      [2 * y + 24 * h - ms, '2y'],
      [2 * y + 24 * h, '2y1d'],
      [3 * y, '3y'],
      [4 * y, '4y'],
      [5 * y, '5y'],
      [6 * y, '6y'],
      [7 * y, '7y'],
      [8 * y - ms, '7y364d'],
      [8 * y, '8y'],
      [8 * y + 364 * d, '8y'],
      [9 * y, '9y'],
    ]);
  });

  describe('ages kubectl shows', () => {
    check([
      [5 * s, '5s'],
      [-1 * s, '0s'],
      [130 * s, '2m10s'],
      [5 * m, '5m'],
      [3 * h + 4 * m, '3h4m'],
      [2 * d + 3 * h, '2d3h'],
      [2 * y + 34 * d, '2y34d'],
    ]);
  });
});
