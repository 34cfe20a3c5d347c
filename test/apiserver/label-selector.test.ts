import { expect } from 'chai';
import {
  labelSelectorFromObject,
  parseLabelSelector,
  SelectorParseError,
  tokenizeLabelSelector,
  type LabelRequirement,
  type LabelTokenKind,
} from '../../apiserver/selectors/label-selector.js';

// Tables ported from kubernetes/apimachinery pkg/labels/selector_test.go; messages follow
// labels.Parse, NewRequirement, validation.IsQualifiedName/IsValidLabelValue and field.Error.

const nameRule =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRule =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const operatorsExpected = 'in, notin, =, ==, !=, gt, lt';
const a254 = 'a'.repeat(254);

function req(key: string, operator: LabelRequirement['operator'], ...values: string[]): LabelRequirement {
  return { key, operator, values };
}

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (err) {
    expect(err).to.be.instanceOf(SelectorParseError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} not to parse`);
}

function objectError(selector: Parameters<typeof labelSelectorFromObject>[0]): string {
  try {
    labelSelectorFromObject(selector);
  } catch (err) {
    expect(err).to.be.instanceOf(SelectorParseError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(selector)} to be refused`);
}

describe('label selectors', () => {
  describe('TestSelectorParse: good strings print back without their spaces', () => {
    for (const text of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
      it(JSON.stringify(text), () => {
        expect(parseLabelSelector(text).toString()).to.equal(text.replaceAll(' ', ''));
      });
    }
  });

  describe('TestSelectorParse: bad strings', () => {
    const cases: [string, string][] = [
      ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRule}`],
      ['x==a==b', "found '==', expected: ',' or 'end of string'"],
      ['!x=a', "found '=', expected: ',' or 'end of string'"],
      [
        'x<a',
        `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
    ];
    for (const [text, message] of cases) {
      it(JSON.stringify(text), () => expect(parseError(text)).to.equal(message));
    }
  });

  it('TestDeterministicParse: requirements are ordered by key whatever the input order', () => {
    expect(parseLabelSelector('x=a,a=x').toString()).to.equal('a=x,x=a');
    expect(parseLabelSelector('a=x,x=a').toString()).to.equal('a=x,x=a');
  });

  describe('TestLexer: the first token of a string', () => {
    const cases: [string, LabelTokenKind][] = [
      ['', 'EndOfString'],
      [',', 'Comma'],
      ['notin', 'NotIn'],
      ['in', 'In'],
      ['=', 'Equals'],
      ['==', 'DoubleEquals'],
      ['>', 'GreaterThan'],
      ['<', 'LessThan'],
      ['!', 'DoesNotExist'],
      ['!=', 'NotEquals'],
      ['(', 'OpenPar'],
      [')', 'ClosedPar'],
      ['~', 'Identifier'],
      ['||', 'Identifier'],
    ];
    for (const [text, kind] of cases) {
      it(JSON.stringify(text), () => expect(tokenizeLabelSelector(text)[0]).to.deep.equal({ kind, literal: text }));
    }
  });

  describe('TestLexerSequence / TestParserLookahead: token streams', () => {
    const cases: [string, LabelTokenKind[]][] = [
      ['key in ( value )', ['Identifier', 'In', 'OpenPar', 'Identifier', 'ClosedPar']],
      ['key notin ( value )', ['Identifier', 'NotIn', 'OpenPar', 'Identifier', 'ClosedPar']],
      ['key in ( value1, value2 )', ['Identifier', 'In', 'OpenPar', 'Identifier', 'Comma', 'Identifier', 'ClosedPar']],
      ['key', ['Identifier']],
      ['!key', ['DoesNotExist', 'Identifier']],
      ['()', ['OpenPar', 'ClosedPar']],
      ['', []],
      ['x in (),y', ['Identifier', 'In', 'OpenPar', 'ClosedPar', 'Comma', 'Identifier']],
      ['== != (), = notin', ['DoubleEquals', 'NotEquals', 'OpenPar', 'ClosedPar', 'Comma', 'Equals', 'NotIn']],
      ['key>2', ['Identifier', 'GreaterThan', 'Identifier']],
      ['key<1', ['Identifier', 'LessThan', 'Identifier']],
      // Longest match stops at two characters.
      ['===', ['DoubleEquals', 'Equals']],
      ['!!x', ['DoesNotExist', 'DoesNotExist', 'Identifier']],
    ];
    for (const [text, kinds] of cases) {
      it(JSON.stringify(text), () => {
        expect(tokenizeLabelSelector(text).map((token) => token.kind)).to.deep.equal([...kinds, 'EndOfString']);
      });
    }
  });

  describe('TestParseOperator: what may follow a key', () => {
    for (const text of ['x in (a)', 'x = a', 'x == a', 'x > 1', 'x < 1', 'x notin (a)', 'x != a']) {
      it(`accepts ${JSON.stringify(text)}`, () => expect(parseLabelSelector(text).requirements).to.have.length(1));
    }
    for (const token of ['!', 'exists', '(']) {
      it(`refuses ${JSON.stringify(token)}`, () => {
        expect(parseError(`x ${token}`)).to.equal(
          `unable to parse requirement: found '${token}', expected: ${operatorsExpected}`,
        );
      });
    }
  });

  describe('TestSetSelectorParser: valid selectors and their requirements', () => {
    const cases: [string, LabelRequirement[]][] = [
      ['', []],
      ['\rx', [req('x', 'exists')]],
      ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
      [
        'this-is-another-dns.domain.com/key-with-dash in (so,what)',
        [req('this-is-another-dns.domain.com/key-with-dash', 'in', 'so', 'what')],
      ],
      [
        '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
        [req('0.1.2.domain/99', 'notin', '10.10.100.1', 'tick.tack.clock')],
      ],
      ['foo  in\t (abc)', [req('foo', 'in', 'abc')]],
      ['x notin\n (abc)', [req('x', 'notin', 'abc')]],
      ['x  notin\t\t\t(abc,def)', [req('x', 'notin', 'abc', 'def')]],
      ['x in (abc,def)', [req('x', 'in', 'abc', 'def')]],
      ['x in (abc,)', [req('x', 'in', '', 'abc')]],
      ['x in ()', [req('x', 'in', '')]],
      [
        'x notin (abc,,def),bar,z in (),w',
        [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', '', 'abc', 'def'), req('z', 'in', '')],
      ],
      ['x,y in (a)', [req('x', 'exists'), req('y', 'in', 'a')]],
      ['x=a', [req('x', '=', 'a')]],
      ['x>1', [req('x', 'gt', '1')]],
      ['x<7', [req('x', 'lt', '7')]],
      ['x=a,y!=b', [req('x', '=', 'a'), req('y', '!=', 'b')]],
      ['x=a,y!=b,z in (h,i,j)', [req('x', '=', 'a'), req('y', '!=', 'b'), req('z', 'in', 'h', 'i', 'j')]],
      ['x notin ( )', [req('x', 'notin', '')]],
      ['x notin (, a)', [req('x', 'notin', '', 'a')]],
      ['a ', [req('a', 'exists')]],
      ['a in (x,y,notin, z,in)', [req('a', 'in', 'in', 'notin', 'x', 'y', 'z')]],
      ['x==a', [req('x', '==', 'a')]],
      ['notin=in', [req('notin', '=', 'in')]],
      ['in in (in)', [req('in', 'in', 'in')]],
    ];
    for (const [text, requirements] of cases) {
      it(JSON.stringify(text), () => expect(parseLabelSelector(text).requirements).to.deep.equal(requirements));
    }
  });

  describe('TestSetSelectorParser: invalid selectors', () => {
    const cases: [string, string][] = [
      ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRule}`],
      ['x,,y', "found ',', expected: identifier after ','"],
      [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
      ['x nott in (y)', `unable to parse requirement: found 'nott', expected: ${operatorsExpected}`],
      ['a in (xyz),', "found '', expected: identifier after ','"],
      ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
      ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
      ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
      ['a (', `unable to parse requirement: found '(', expected: ${operatorsExpected}`],
      ['(', "found '(', expected: !, identifier, or 'end of string'"],
      ['a in x', "unable to parse requirement: found 'x' expected: '('"],
      ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['a in (,', "unable to parse requirement: found '', expected: ',', or identifier"],
      ['a in (x,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
      ['!', "unable to parse requirement: found '', expected: identifier"],
      ['!!x', "unable to parse requirement: found '!', expected: identifier"],
      ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ];
    for (const [text, message] of cases) {
      it(JSON.stringify(text), () => expect(parseError(text)).to.equal(message));
    }
  });

  describe('TestToString: canonical form', () => {
    for (const text of [
      'x in (abc,def),y notin (jkl),z',
      'x notin (abc,def),y!=jkl,!z',
      'x notin (abc),y in (jkl,mno),z notin ()',
      'x=abc,y==jkl,z!=a,z',
      'x>2,y<8,z',
    ]) {
      it(JSON.stringify(text), () => expect(parseLabelSelector(text).toString()).to.equal(text));
    }
    it('sorts requirements by key and set values, and drops spaces and duplicate values', () => {
      expect(parseLabelSelector(' z , y in ( mno , jkl, mno ) , x ').toString()).to.equal('x,y in (jkl,mno),z');
    });
  });

  describe('TestSelectorMatches', () => {
    const labelset = { foo: 'bar', baz: 'blah' };
    const cases: [string, Record<string, string> | undefined, boolean][] = [
      ['', { x: 'y' }, true],
      ['x=y', { x: 'y' }, true],
      ['x=y,z=w', { x: 'y', z: 'w' }, true],
      ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
      ['notin=in', { notin: 'in' }, true],
      ['x', { x: 'z' }, true],
      ['!x', { y: 'z' }, true],
      ['x>1', { x: '2' }, true],
      ['x<1', { x: '0' }, true],
      ['x=z', {}, false],
      ['x=y', { x: 'z' }, false],
      ['x=y,z=w', { x: 'w', z: 'w' }, false],
      ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
      ['x', { y: 'z' }, false],
      ['!x', { x: 'z' }, false],
      ['x>1', { x: '0' }, false],
      ['x<1', { x: '2' }, false],
      ['foo=bar', labelset, true],
      ['baz=blah', labelset, true],
      ['foo=bar,baz=blah', labelset, true],
      ['foo=blah', labelset, false],
      ['baz=bar', labelset, false],
      ['foo=bar,foobar=bar,baz=blah', labelset, false],
      // Objects without labels, and keys that are not own properties.
      ['', undefined, true],
      ['!x', undefined, true],
      ['x notin (a)', undefined, true],
      ['x', undefined, false],
      ['constructor', {}, false],
      ['x in (a,b)', { x: 'b' }, true],
      ['x notin (a,b)', { x: 'b' }, false],
      ['x=', { x: '' }, true],
      // Gt/Lt compare 64-bit integers and never match a non-integer label.
      ['x>1', { x: '1' }, false],
      ['x>9223372036854775806', { x: '9223372036854775807' }, true],
      ['x<9223372036854775807', { x: '9223372036854775808' }, false],
      ['x>1', { x: 'v2' }, false],
    ];
    for (const [text, labels, expected] of cases) {
      it(`${JSON.stringify(text)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
        expect(parseLabelSelector(text).matches(labels)).to.equal(expected);
      });
    }
  });

  describe('TestRequirementSelectorMatching', () => {
    const cases: [Record<string, string>, string, boolean][] = [
      [{ x: 'foo', y: 'baz' }, 'x in (foo),y notin (alpha)', true],
      [{ x: 'foo', y: 'baz' }, 'x in (foo),y in (alpha)', false],
      [{ y: '' }, 'x notin (),y', true],
      [{ y: '' }, '!x,y', true],
      [{ y: '' }, 'x notin (),!y', false],
      [{ y: 'baz' }, 'x in ()', false],
      [{ z: '2' }, 'z>1', true],
      [{ z: 'v2' }, 'z>1', false],
    ];
    for (const [labels, text, expected] of cases) {
      it(`${JSON.stringify(text)} on ${JSON.stringify(labels)}`, () =>
        expect(parseLabelSelector(text).matches(labels)).to.equal(expected));
    }
  });

  describe('TestRequirementConstructor: parsed requirements', () => {
    for (const text of [
      'x11>1',
      'x12<6',
      'y>1',
      'z<6',
      '1foo in (bar)',
      '1234 in (bar)',
      `${'a'.repeat(63)}=${'b'.repeat(63)}`,
    ]) {
      it(`accepts ${JSON.stringify(text)}`, () => expect(() => parseLabelSelector(text)).not.to.throw());
    }
    const cases: [string, string][] = [
      [
        'x13>',
        `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        'x14>bar',
        `unable to parse requirement: values[0]: Invalid value: "bar": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        'x15<bar',
        `unable to parse requirement: values[0]: Invalid value: "bar": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        'x>9223372036854775808',
        `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        a254,
        `unable to parse requirement: <nil>: Invalid value: "${a254}": name part must be no more than 63 characters`,
      ],
      [
        `x16=${a254}`,
        `unable to parse requirement: values[0][x16]: Invalid value: "${a254}": must be no more than 63 characters`,
      ],
      // Several problems print as one aggregate.
      [
        'x>a.',
        `unable to parse requirement: [values[0]: Invalid value: "a.": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a.": ${valueRule}]`,
      ],
      // A negative bound is an integer but not a valid label value.
      ['x>-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${valueRule}`],
      ['x=é', `unable to parse requirement: values[0][x]: Invalid value: "é": ${valueRule}`],
    ];
    for (const [text, message] of cases) {
      it(`refuses ${JSON.stringify(text.slice(0, 40))}`, () => expect(parseError(text)).to.equal(message));
    }
  });

  describe('label key validation (validation.IsQualifiedName)', () => {
    const subdomainRule =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    for (const key of [
      'example.com/app',
      `${'a'.repeat(63)}`,
      `example.com/${'a'.repeat(63)}`,
      'A_b.c-D',
      'k8s.io/x',
    ]) {
      it(`accepts ${JSON.stringify(key)}`, () => expect(() => parseLabelSelector(key)).not.to.throw());
    }
    const cases: [string, string][] = [
      ['app/', `name part must be non-empty; name part ${nameRule}`],
      ['/app', 'prefix part must be non-empty'],
      ['Example.com/app', `prefix part ${subdomainRule}`],
      [`${'a'.repeat(254)}/app`, `prefix part must be no more than 253 characters`],
      [
        'a/b/c',
        `a qualified name ${nameRule} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      ],
      ['-app', `name part ${nameRule}`],
      [`${'a'.repeat(64)}`, 'name part must be no more than 63 characters'],
    ];
    for (const [key, problems] of cases) {
      it(`refuses ${JSON.stringify(key.slice(0, 40))}`, () => {
        expect(parseError(`${key}=x`)).to.equal(
          `unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(key)}: ${problems}`,
        );
      });
    }
  });

  describe('labelSelectorFromObject (LabelSelectorAsSelector)', () => {
    it('selects nothing for a null or absent selector', () => {
      for (const selector of [null, undefined]) {
        const nothing = labelSelectorFromObject(selector);
        expect(nothing.matches({})).to.equal(false);
        expect(nothing.matches({ a: 'b' })).to.equal(false);
        expect(nothing.empty).to.equal(false);
        expect(nothing.toString()).to.equal('');
      }
    });

    it('selects everything for an empty selector', () => {
      for (const selector of [{}, { matchLabels: {}, matchExpressions: [] }]) {
        const everything = labelSelectorFromObject(selector);
        expect(everything.matches(undefined)).to.equal(true);
        expect(everything.empty).to.equal(true);
        expect(everything.toString()).to.equal('');
      }
    });

    it('ANDs matchLabels and matchExpressions, in key order', () => {
      const selector = labelSelectorFromObject({
        matchLabels: { tier: 'web', app: 'x' },
        matchExpressions: [
          { key: 'env', operator: 'NotIn', values: ['prod', 'dev'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'team', operator: 'Exists', values: [] },
          { key: 'zone', operator: 'In', values: ['b', 'a', 'b'] },
        ],
      });
      // Go's safeSort sorts set values for printing without removing duplicates.
      expect(selector.toString()).to.equal('app=x,!canary,env notin (dev,prod),team,tier=web,zone in (a,b,b)');
      expect(selector.matches({ app: 'x', tier: 'web', env: 'test', team: 't', zone: 'a' })).to.equal(true);
      expect(selector.matches({ app: 'x', tier: 'web', env: 'prod', team: 't', zone: 'a' })).to.equal(false);
      expect(selector.matches({ app: 'x', tier: 'web', team: 't', zone: 'a', canary: '' })).to.equal(false);
      expect(selector.matches({ app: 'x', tier: 'web', zone: 'a' })).to.equal(false);
    });

    it('TestRequirementConstructor: accepts valid expressions', () => {
      const selector = labelSelectorFromObject({
        matchExpressions: [
          { key: 'x3', operator: 'In', values: ['foo'] },
          { key: 'x4', operator: 'NotIn', values: ['foo'] },
          { key: 'x6', operator: 'Exists' },
          { key: 'x7', operator: 'DoesNotExist' },
          { key: 'x9', operator: 'In', values: ['bar'] },
          { key: '1foo', operator: 'In', values: ['bar'] },
          { key: '1234', operator: 'In', values: ['bar'] },
        ],
      });
      expect(selector.requirements.map((requirement) => requirement.key)).to.deep.equal([
        '1234',
        '1foo',
        'x3',
        'x4',
        'x6',
        'x7',
        'x9',
      ]);
    });

    describe('TestRequirementConstructor / TestValidatedSelectorFromSet: refusals', () => {
      const cases: [string, Parameters<typeof labelSelectorFromObject>[0], string][] = [
        [
          'In without values',
          { matchExpressions: [{ key: 'x1', operator: 'In' }] },
          "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
        ],
        [
          'NotIn with empty values',
          { matchExpressions: [{ key: 'x2', operator: 'NotIn', values: [] }] },
          "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
        ],
        [
          'Exists with values',
          { matchExpressions: [{ key: 'x8', operator: 'Exists', values: ['foo'] }] },
          'values: Invalid value: []string{"foo"}: values set must be empty for exists and does not exist',
        ],
        [
          'key too long',
          { matchExpressions: [{ key: a254, operator: 'Exists' }] },
          `key: Invalid value: "${a254}": name part must be no more than 63 characters`,
        ],
        [
          'value too long',
          { matchLabels: { x16: a254 } },
          `values[0][x16]: Invalid value: "${a254}": must be no more than 63 characters`,
        ],
        ['value with a space', { matchLabels: { x17: 'a b' } }, `values[0][x17]: Invalid value: "a b": ${valueRule}`],
        [
          'unsupported operator',
          { matchExpressions: [{ key: 'x18', operator: 'unsupportedOp' }] },
          '"unsupportedOp" is not a valid label selector operator',
        ],
        [
          'operator named like an Object member',
          { matchExpressions: [{ key: 'x', operator: 'constructor' }] },
          '"constructor" is not a valid label selector operator',
        ],
        [
          'ValidatedSelectorFromSet value of 64 characters',
          { matchLabels: { Key: 'axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui' } },
          'values[0][Key]: Invalid value: "axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui": must be no more than 63 characters',
        ],
        [
          'the example of the brief',
          { matchLabels: { app: 'x y' } },
          `values[0][app]: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        ],
        [
          'several problems in one requirement',
          { matchExpressions: [{ key: 'x', operator: 'Exists', values: ['a b'] }] },
          `[values: Invalid value: []string{"a b"}: values set must be empty for exists and does not exist, values[0][x]: Invalid value: "a b": ${valueRule}]`,
        ],
        [
          'empty key',
          { matchExpressions: [{ key: '', operator: 'Exists' }] },
          `key: Invalid value: "": name part must be non-empty; name part ${nameRule}`,
        ],
        // Bad values print with Go's %q.
        [
          'quotes and control characters',
          { matchLabels: { k: 'say "hi"\u0001\n' } },
          `values[0][k]: Invalid value: "say \\"hi\\"\\x01\\n": ${valueRule}`,
        ],
      ];
      for (const [title, selector, message] of cases) {
        it(title, () => expect(objectError(selector)).to.equal(message));
      }
    });
  });
});
