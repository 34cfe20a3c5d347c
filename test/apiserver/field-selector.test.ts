import { expect } from 'chai';
import {
  parseFieldSelector,
  SelectorParseError,
  type FieldRequirement,
} from '../../apiserver/selectors/field-selector.js';

// Tables ported from kubernetes/apimachinery pkg/fields/selector_test.go; the lexer-level tables
// (TestSplitTerms, TestSplitTerm, TestEscapeValue) are checked through what parsing yields.

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (err) {
    expect(err).to.be.instanceOf(SelectorParseError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

function term(field: string, operator: FieldRequirement['operator'], value: string): FieldRequirement {
  return { field, operator, value };
}

describe('field selectors', () => {
  describe('TestSelectorParse: good strings print back unchanged', () => {
    for (const text of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b']) {
      it(JSON.stringify(text), () => expect(parseFieldSelector(text).toString()).to.equal(text));
    }
    it('prints == as =', () => expect(parseFieldSelector('x==a').toString()).to.equal('x=a'));
  });

  describe('TestSelectorParse: bad strings', () => {
    const cases: [string, string][] = [
      ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
      ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
      ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
      ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
      // Terms are sorted before they are read, so 'b' is the first one refused.
      ['x in (a,b,c)', "invalid selector: 'x in (a,b,c)'; can't understand 'b'"],
      ['x', "invalid selector: 'x'; can't understand 'x'"],
      ['a===b', 'invalid field selector: unescaped character in value: 61'],
      ['a!=b=c', 'invalid field selector: unescaped character in value: 61'],
    ];
    for (const [text, message] of cases) {
      it(JSON.stringify(text), () => expect(parseError(text)).to.equal(message));
    }
  });

  it('TestDeterministicParse: terms are ordered by their text', () => {
    expect(parseFieldSelector('x=a,a=x').toString()).to.equal('a=x,x=a');
    expect(parseFieldSelector('a=x,x=a').toString()).to.equal('a=x,x=a');
  });

  describe('TestSplitTerms / TestSplitTerm: the requirements a selector yields', () => {
    const cases: [string, FieldRequirement[]][] = [
      ['a=avalue', [term('a', '=', 'avalue')]],
      ['a=avalue,b=bvalue', [term('a', '=', 'avalue'), term('b', '=', 'bvalue')]],
      ['a=avalue,b==bvalue,c!=cvalue', [term('a', '=', 'avalue'), term('b', '=', 'bvalue'), term('c', '!=', 'cvalue')]],
      ['', []],
      ['a=a,', [term('a', '=', 'a')]],
      [',a=a', [term('a', '=', 'a')]],
      // Raw terms sort with '2' before '=', so k2 comes first.
      ['k=\\,,k2=v2', [term('k2', '=', 'v2'), term('k', '=', ',')]],
      ['k=\\\\,k2=v2', [term('k2', '=', 'v2'), term('k', '=', '\\')]],
      ['k=\\\\\\,,k2=v2', [term('k2', '=', 'v2'), term('k', '=', '\\,')]],
      ['k=\\=', [term('k', '=', '=')]],
      ['함=수,목=록', [term('목', '=', '록'), term('함', '=', '수')]],
      ['=', [term('', '=', '')]],
      ['a=!b', [term('a', '=', '!b')]],
      ['metadata.name=', [term('metadata.name', '=', '')]],
    ];
    for (const [text, requirements] of cases) {
      it(JSON.stringify(text), () => expect(parseFieldSelector(text).requirements).to.deep.equal(requirements));
    }
    const invalid: [string, string][] = [
      ['a', "invalid selector: 'a'; can't understand 'a'"],
      ['k=\\a\\b\\', 'invalid field selector: invalid escape sequence: \\a'],
      ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
      ['k=\\\\\\a\\b\\=\\,\\', 'invalid field selector: invalid escape sequence: \\a'],
    ];
    for (const [text, message] of invalid) {
      it(`refuses ${JSON.stringify(text)}`, () => expect(parseError(text)).to.equal(message));
    }
  });

  describe('TestEscapeValue: values round-trip through their escaped form', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['a', 'a'],
      ['=', '\\='],
      [',', '\\,'],
      ['\\', '\\\\'],
      ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
    ];
    for (const [value, escaped] of cases) {
      it(JSON.stringify(value), () => {
        const selector = parseFieldSelector(`f=${escaped}`);
        expect(selector.requirements[0].value).to.equal(value);
        expect(selector.toString()).to.equal(`f=${escaped}`);
      });
    }
    for (const escaped of ['\\', '\\\\\\', '\\a']) {
      it(`refuses ${JSON.stringify(escaped)}`, () =>
        expect(parseError(`f=${escaped}`)).to.contain('invalid escape sequence'));
    }
  });

  describe('TestSelectorMatches', () => {
    const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
    const cases: [string, Record<string, string>, boolean][] = [
      ['', { x: 'y' }, true],
      ['x=y', { x: 'y' }, true],
      ['x=y,z=w', { x: 'y', z: 'w' }, true],
      ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
      ['notin=in', { notin: 'in' }, true],
      ['x=y', { x: 'z' }, false],
      ['x=y,z=w', { x: 'w', z: 'w' }, false],
      ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
      ['foo=bar', fieldset, true],
      ['baz=blah', fieldset, true],
      ['foo=bar,baz=blah', fieldset, true],
      ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset, true],
      ['foo=blah', fieldset, false],
      ['baz=bar', fieldset, false],
      ['foo=bar,foobar=bar,baz=blah', fieldset, false],
      // A missing field reads as "", also for names of Object.prototype members.
      ['x=', {}, true],
      ['x!=', {}, false],
      ['constructor=', {}, true],
      ['x!=y', {}, true],
    ];
    for (const [text, fields, expected] of cases) {
      it(`${JSON.stringify(text)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(fields)}`, () => {
        expect(parseFieldSelector(text).matches(fields)).to.equal(expected);
      });
    }
  });

  describe('TestRequiresExactMatch', () => {
    const cases: [string, string, string | undefined][] = [
      ['', 'test', undefined],
      ['a=b', 'test', undefined],
      ['test=b', 'test', 'b'],
      ['test==b', 'test', 'b'],
      ['test=', 'test', ''],
      ['test!=b', 'test', undefined],
      ['test!=', 'test', undefined],
      ['=,test=b', 'test', 'b'],
      ['metadata.namespace=ns,metadata.name=n', 'metadata.name', 'n'],
    ];
    for (const [text, field, expected] of cases) {
      it(`${JSON.stringify(text)} requires ${field} = ${JSON.stringify(expected)}`, () => {
        expect(parseFieldSelector(text).requiresExactMatch(field)).to.equal(expected);
      });
    }
  });

  it('TestEverything / TestSetIsEmpty: only a selector without terms is empty', () => {
    expect(parseFieldSelector('').empty).to.equal(true);
    expect(parseFieldSelector(',').empty).to.equal(true);
    expect(parseFieldSelector('').matches({ x: 'y' })).to.equal(true);
    expect(parseFieldSelector('a=b').empty).to.equal(false);
    expect(parseFieldSelector('a!=b').empty).to.equal(false);
  });
});
