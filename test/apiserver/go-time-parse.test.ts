import { expect } from 'chai';
import { parseRfc3339 } from '../../apiserver/go-time-parse.js';

const AS = 'as "2006-01-02T15:04:05Z07:00"';

/** [value, Go's time.Parse(time.RFC3339, value) error] — the RFC3339 cases of Go's format_test.go, and one for each element. */
const ERRORS: [string, string][] = [
  ['2006-01-02T15:04:05Z07:00', 'parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"'],
  ['2006-01-02T15:04_abc', `parsing time "2006-01-02T15:04_abc" ${AS}: cannot parse "_abc" as ":"`],
  ['2006-01-02T15:04:05_abc', `parsing time "2006-01-02T15:04:05_abc" ${AS}: cannot parse "_abc" as "Z07:00"`],
  ['2006-01-02T15:04:05Z_abc', 'parsing time "2006-01-02T15:04:05Z_abc": extra text: "_abc"'],
  ['2010-02-04T21:00:67.012345678-08:00', 'parsing time "2010-02-04T21:00:67.012345678-08:00": second out of range'],
  ['"', `parsing time "\\"" ${AS}: cannot parse "\\"" as "2006"`],
  ['', `parsing time "" ${AS}: cannot parse "" as "2006"`],
  ['yesterday', `parsing time "yesterday" ${AS}: cannot parse "yesterday" as "2006"`],
  ['20a6-01-02T15:04:05Z', `parsing time "20a6-01-02T15:04:05Z" ${AS}: cannot parse "20a6-01-02T15:04:05Z" as "2006"`],
  ['2026/01/02', `parsing time "2026/01/02" ${AS}: cannot parse "/01/02" as "-"`],
  ['2026-1-02T15:04:05Z', `parsing time "2026-1-02T15:04:05Z" ${AS}: cannot parse "1-02T15:04:05Z" as "01"`],
  ['2026-13-01T00:00:00Z', 'parsing time "2026-13-01T00:00:00Z": month out of range'],
  ['2026-00-01T00:00:00Z', 'parsing time "2026-00-01T00:00:00Z": month out of range'],
  ['2026-02-29T00:00:00Z', 'parsing time "2026-02-29T00:00:00Z": day out of range'],
  ['2026-04-31T00:00:00Z', 'parsing time "2026-04-31T00:00:00Z": day out of range'],
  ['2026-01-02 15:04:05Z', `parsing time "2026-01-02 15:04:05Z" ${AS}: cannot parse " 15:04:05Z" as "T"`],
  ['2026-01-02T24:00:00Z', 'parsing time "2026-01-02T24:00:00Z": hour out of range'],
  ['2026-01-02T23:60:00Z', 'parsing time "2026-01-02T23:60:00Z": minute out of range'],
  ['2026-01-02T03:04:06', `parsing time "2026-01-02T03:04:06" ${AS}: cannot parse "" as "Z07:00"`],
  ['2026-01-02T03:04:06+0100', `parsing time "2026-01-02T03:04:06+0100" ${AS}: cannot parse "+0100" as "Z07:00"`],
  ['2026-01-02T03:04:06*01:00', `parsing time "2026-01-02T03:04:06*01:00" ${AS}: cannot parse "*01:00" as "Z07:00"`],
  ['2026-01-02T03:04:06+25:00', 'parsing time "2026-01-02T03:04:06+25:00": time zone offset hour out of range'],
  ['2026-01-02T03:04:06z', `parsing time "2026-01-02T03:04:06z" ${AS}: cannot parse "z" as "Z07:00"`],
  ['2026-01-02T03:04:06Z\u263a', 'parsing time "2026-01-02T03:04:06Z\\xe2\\x98\\xba": extra text: "\\xe2\\x98\\xba"'],
];

/** [value, the instant as JavaScript's ISO form (milliseconds; Go keeps nanoseconds)]. */
const ACCEPTED: [string, string][] = [
  ['2026-01-02T03:04:06Z', '2026-01-02T03:04:06.000Z'],
  ['2026-01-02T03:04:06+01:30', '2026-01-02T01:34:06.000Z'],
  ['2026-01-02T03:04:06-08:00', '2026-01-02T11:04:06.000Z'],
  ['2026-01-02T3:04:06Z', '2026-01-02T03:04:06.000Z'],
  ['2021-09-29T16:04:33.012345678Z', '2021-09-29T16:04:33.012Z'],
  ['2021-09-29T16:04:33,9Z', '2021-09-29T16:04:33.900Z'],
  ['2021-09-29T16:04:33.9999999999999999Z', '2021-09-29T16:04:33.999Z'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
];

describe("Go's time.Parse(time.RFC3339, …)", () => {
  for (const [value, message] of ERRORS) {
    it(`refuses ${JSON.stringify(value)} as Go words it`, () => {
      expect(() => parseRfc3339(value))
        .to.throw()
        .with.property('message', message);
    });
  }
  for (const [value, iso] of ACCEPTED) {
    it(`reads ${value}`, () => {
      expect(new Date(parseRfc3339(value)).toISOString()).to.equal(iso);
    });
  }
});
