import { expect } from 'chai';
import { optionalQueryBool, queryBool } from '../../apiserver/query-bool.js';
import { parseListOptions } from '../../apiserver/handlers/list-options.js';
import { parseRequestInfo } from '../../apiserver/request-info.js';

/** [query, what apimachinery's Convert_Slice_string_To_bool makes of `flag`]. */
const TABLE: [string, boolean][] = [
  ['flag=true', true],
  ['flag=True', true],
  ['flag=TRUE', true],
  ['flag=1', true],
  ['flag=t', true],
  // Not strconv.ParseBool: whatever is not 0 or false is true, never an error.
  ['flag=yes', true],
  ['flag=no', true],
  ['flag=2', true],
  ['flag=', true],
  ['flag', true],
  ['flag=false', false],
  ['flag=False', false],
  ['flag=FALSE', false],
  ['flag=fAlSe', false],
  ['flag=fal%C5%BFe', false],
  ['flag=%20false', true],
  ['flag=0', false],
  ['flag=00', true],
  ['flag=f', true],
  // Only the first value counts.
  ['flag=false&flag=true', false],
  ['flag=1&flag=0', true],
];

describe('boolean query parameters (apiserver/query-bool.ts)', () => {
  for (const [query, expected] of TABLE) {
    it(`reads ?${query} as ${String(expected)}`, () => {
      expect(queryBool(new URLSearchParams(query), 'flag')).to.equal(expected);
      expect(optionalQueryBool(new URLSearchParams(query), 'flag')).to.equal(expected);
    });
  }

  it('tells an absent parameter from false only where kube has a *bool', () => {
    expect(queryBool(new URLSearchParams('other=1'), 'flag')).to.equal(false);
    expect(optionalQueryBool(new URLSearchParams('other=1'), 'flag')).to.equal(undefined);
  });

  it("makes Python's watch=True a watch, and watch=False a list", () => {
    const verb = (query: string) => {
      const info = parseRequestInfo('GET', '/api/v1/namespaces/default/configmaps', new URLSearchParams(query));
      return info.verb;
    };
    expect(verb('watch=True')).to.equal('watch');
    expect(verb('watch=yes')).to.equal('watch');
    expect(verb('watch=False')).to.equal('list');
    expect(verb('watch=0')).to.equal('list');
  });

  it('reads the watch options the same way', () => {
    const options = parseListOptions(
      new URLSearchParams('allowWatchBookmarks=True&sendInitialEvents=False&resourceVersionMatch=NotOlderThan'),
      true,
    );
    expect(options.allowWatchBookmarks).to.equal(true);
    expect(options.sendInitialEvents).to.equal(false);
  });
});
