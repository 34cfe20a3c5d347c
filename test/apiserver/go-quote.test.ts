import { expect } from 'chai';
import { goQuote } from '../../apiserver/go-quote.js';
import { labelSelectorFromObject } from '../../apiserver/selectors/label-selector.js';
import { alreadyExists, notFound } from '../../apiserver/status.js';
import { invalid } from '../../apiserver/validation/cause.js';

/** [input, what Go's strconv.Quote writes] — the cases of Go's strconv quote_test.go, and more of IsPrint. */
const QUOTES: [string, string][] = [
  ['', '""'],
  ['abc', '"abc"'],
  ['say "hi"', String.raw`"say \"hi\""`],
  ['\\', String.raw`"\\"`],
  ['\x07\b\f\r\n\t\v', String.raw`"\a\b\f\r\n\t\v"`],
  ['\x00', String.raw`"\x00"`],
  ['\x04', String.raw`"\x04"`],
  ['\x1b[0m', String.raw`"\x1b[0m"`],
  ['\x7f', String.raw`"\x7f"`],
  [' ', '" "'],
  ['~', '"~"'],
  // Printable ASCII around the quote and the backslash, which the fast path must not pass.
  ['[a]^{|}#!', '"[a]^{|}#!"'],
  ['a]\\[b', String.raw`"a]\\[b"`],
  // Non-ASCII that IsPrint accepts stays as it is: letters, marks, symbols, astral ones too.
  ['\u263a', '"\u263a"'],
  ['é', '"é"'],
  ['e\u0301', '"e\u0301"'],
  ['日本語', '"日本語"'],
  ['\u{1f600}', '"\u{1f600}"'],
  ['\ufffd', '"\ufffd"'],
  // Spaces other than ASCII's, controls and formats are escaped: \u below U+10000, \U above.
  ['!\u00a0!\u2000!\u3000!', String.raw`"!\u00a0!\u2000!\u3000!"`],
  ['\u0085', String.raw`"\u0085"`],
  ['\u00ad', String.raw`"\u00ad"`],
  ['\u200b', String.raw`"\u200b"`],
  ['\u2028\u2029', String.raw`"\u2028\u2029"`],
  ['\ufeff', String.raw`"\ufeff"`],
  ['\u{10ffff}', String.raw`"\U0010ffff"`],
  ['\u{f0000}', String.raw`"\U000f0000"`],
  // A lone surrogate reaches Go as U+FFFD (its JSON decoder replaces it), which Go writes as it is.
  ['\ud800', '"\ufffd"'],
  ['a\udc00b', '"a\ufffdb"'],
  ['\udbff\ud800', '"\ufffd\ufffd"'],
];

describe("apiserver: Go's strconv.Quote (go-quote.ts)", () => {
  for (const [input, quoted] of QUOTES) {
    it(`${JSON.stringify(input)} → ${quoted}`, () => expect(goQuote(input)).to.equal(quoted));
  }

  it('is the quoting of every message that prints a value as %q', () => {
    const lone = 'x\ud800';
    expect(invalid('metadata.name', lone, 'bad').message).to.equal('Invalid value: "x\ufffd": bad');
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: lone, values: [] }] })).to.throw(
      '"x\ufffd" is not a valid label selector operator',
    );
    // kube-apiserver's errors name the object with %q (apimachinery's NewNotFound, NewConflict, ...).
    const odd = 'a"b\tc';
    const pods = { group: '', resource: 'pods' };
    expect(notFound(pods, odd).message).to.equal('pods "a\\"b\\tc" not found');
    expect(alreadyExists({ group: 'apps', resource: 'deployments' }, odd).message).to.equal(
      'deployments.apps "a\\"b\\tc" already exists',
    );
  });
});
