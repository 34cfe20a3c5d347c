/**
 * Kubernetes label selectors as apimachinery's `labels` package parses, validates, matches and
 * prints them (`labels.Parse`, `NewRequirement`, `Selector.String`), plus `metav1.LabelSelector`
 * objects as `LabelSelectorAsSelector` turns them into selectors. Error texts are apimachinery's,
 * because clients show them verbatim.
 */
import { goQuote } from '../go-quote.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';

/** A selector string or object kube-apiserver would refuse; the message is kube's. */
export class SelectorParseError extends Error {
  override name = 'SelectorParseError';
}

export interface LabelRequirement {
  key: string;
  operator: 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';
  values: string[];
}

export interface LabelSelector {
  /** Sorted by key, as apimachinery keeps them. */
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
  /** apimachinery's canonical form: requirements by key, `in`/`notin` values sorted. */
  toString(): string;
}

type Operator = LabelRequirement['operator'];

export function parseLabelSelector(text: string): LabelSelector {
  return new RequirementsSelector(new Parser(tokenizeLabelSelector(text)).parse());
}

/** metav1.LabelSelector (matchLabels + matchExpressions with In/NotIn/Exists/DoesNotExist) as LabelSelectorAsSelector does; null/undefined selects nothing, {} selects everything. */
export function labelSelectorFromObject(
  selector:
    | {
        matchLabels?: Record<string, string>;
        matchExpressions?: { key: string; operator: string; values?: string[] }[];
      }
    | null
    | undefined,
): LabelSelector {
  if (selector === null || selector === undefined) return nothingSelector;
  const requirements: LabelRequirement[] = [];
  // Go ranges over the map in random order, so which invalid label is reported first is not
  // defined there; sorted keys make it deterministic here.
  for (const key of Object.keys(selector.matchLabels ?? {}).sort()) {
    requirements.push(newRequirement(key, '=', [selector.matchLabels![key]]));
  }
  for (const expression of selector.matchExpressions ?? []) {
    const operator = objectOperators.get(expression.operator);
    if (!operator)
      throw new SelectorParseError(`${goQuote(expression.operator)} is not a valid label selector operator`);
    // Go copies the values with append([]string(nil), ...), so no values is a nil slice.
    const values = expression.values?.length ? [...expression.values] : null;
    requirements.push(newRequirement(expression.key, operator, values));
  }
  return new RequirementsSelector(requirements);
}

const objectOperators = new Map<string, Operator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
]);

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];

  constructor(requirements: LabelRequirement[]) {
    // A stable sort by key, as sort.Sort(ByKey) behaves for selectors of realistic size.
    this.requirements = Object.freeze(requirements.sort((a, b) => compareStrings(a.key, b.key)));
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Record<string, string> | undefined): boolean {
    return this.requirements.every((requirement) => requirementMatches(requirement, labels ?? {}));
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** labels.Nothing(): what a nil metav1.LabelSelector means. */
const nothingSelector: LabelSelector = Object.freeze({
  requirements: Object.freeze([]),
  empty: false,
  matches: () => false,
  toString: () => '',
});

function requirementMatches(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = has ? labels[requirement.key] : '';
  switch (requirement.operator) {
    case 'in':
    case '=':
    case '==':
      return has && requirement.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !requirement.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const actual = parseInt64(value);
      const bound = requirement.values.length === 1 ? parseInt64(requirement.values[0]) : undefined;
      if (!has || actual === undefined || bound === undefined) return false;
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  const joined = [...values].sort(compareStrings).join(',');
  switch (operator) {
    case 'exists':
      return key;
    case '!':
      return `!${key}`;
    case 'in':
    case 'notin':
      return `${key} ${operator} (${joined})`;
    case 'gt':
      return `${key}>${joined}`;
    case 'lt':
      return `${key}<${joined}`;
    default:
      return `${key}${operator}${joined}`;
  }
}

// ---- Requirement construction and validation (labels.NewRequirement) ----

/**
 * A validated requirement, or every problem apimachinery finds with it, in its order and words.
 * `values` null stands for Go's nil slice, which field errors print differently from an empty one.
 */
function newRequirement(key: string, operator: Operator, values: string[] | null): LabelRequirement {
  const list = values ?? [];
  const problems: string[] = [];
  const keyProblems = isQualifiedName(key);
  if (keyProblems.length) problems.push(invalidField('key', key, keyProblems.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (list.length === 0)
        problems.push(invalidField('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (list.length !== 1)
        problems.push(invalidField('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (list.length !== 0)
        problems.push(invalidField('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (list.length !== 1)
        problems.push(invalidField('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      list.forEach((value, i) => {
        if (parseInt64(value) === undefined) {
          problems.push(invalidField(`values[${i}]`, value, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
  }
  list.forEach((value, i) => {
    const valueProblems = isValidLabelValue(value);
    if (valueProblems.length) problems.push(invalidField(`values[${i}][${key}]`, value, valueProblems.join('; ')));
  });
  if (problems.length) throw new SelectorParseError(aggregate(problems));
  return { key, operator, values: list };
}

/** strconv.ParseInt(s, 10, 64), undefined where Go returns an error. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? value : undefined;
}

// ---- Go error formatting (field.Error, utilerrors.Aggregate) ----

/** field.Invalid(...).Error(); a nil *Path prints as "<nil>". */
function invalidField(path: string, badValue: string | string[] | null, detail: string): string {
  return `${path}: Invalid value: ${goValue(badValue)}: ${detail}`;
}

/** How field.Error prints a bad value: %q for strings, %#v for []string. */
function goValue(value: string | string[] | null): string {
  if (value === null) return '[]string(nil)';
  if (Array.isArray(value)) return `[]string{${value.map(goQuote).join(', ')}}`;
  return goQuote(value);
}

/** An aggregate of several errors prints as "[a, b]", of one as that error. */
function aggregate(messages: string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

/** Go's sort.Strings order: by code point. */
function compareStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// ---- Lexer ----

export type LabelTokenKind =
  | 'EndOfString'
  | 'ClosedPar'
  | 'Comma'
  | 'DoesNotExist'
  | 'DoubleEquals'
  | 'Equals'
  | 'GreaterThan'
  | 'Identifier'
  | 'In'
  | 'LessThan'
  | 'NotEquals'
  | 'NotIn'
  | 'OpenPar';

export interface LabelToken {
  kind: LabelTokenKind;
  literal: string;
}

const symbolTokens = new Map<string, LabelTokenKind>([
  [')', 'ClosedPar'],
  [',', 'Comma'],
  ['!', 'DoesNotExist'],
  ['==', 'DoubleEquals'],
  ['=', 'Equals'],
  ['>', 'GreaterThan'],
  ['<', 'LessThan'],
  ['!=', 'NotEquals'],
  ['(', 'OpenPar'],
]);
const keywordTokens = new Map<string, LabelTokenKind>([
  ['in', 'In'],
  ['notin', 'NotIn'],
]);
const whitespace = new Set([' ', '\t', '\r', '\n']);

function isSymbol(char: string): boolean {
  return '=!(),<>'.includes(char);
}

/**
 * The token stream apimachinery's lexer produces for a selector, ending in EndOfString. Symbols
 * take the longest match ("!=" over "!"); any other run of non-space characters is an
 * identifier, or a keyword when it spells `in` or `notin`. Exported for tests of the lexer.
 */
export function tokenizeLabelSelector(text: string): LabelToken[] {
  const tokens: LabelToken[] = [];
  let at = 0;
  while (true) {
    while (at < text.length && whitespace.has(text[at])) at++;
    if (at >= text.length) break;
    if (isSymbol(text[at])) {
      const pair = text.slice(at, at + 2);
      const literal = symbolTokens.has(pair) ? pair : text[at];
      tokens.push({ kind: symbolTokens.get(literal)!, literal });
      at += literal.length;
      continue;
    }
    const start = at;
    while (at < text.length && !isSymbol(text[at]) && !whitespace.has(text[at])) at++;
    const literal = text.slice(start, at);
    tokens.push({ kind: keywordTokens.get(literal) ?? 'Identifier', literal });
  }
  tokens.push({ kind: 'EndOfString', literal: '' });
  return tokens;
}

// ---- Parser ----

/** Where a token is read: among values, `in` and `notin` are plain identifiers. */
type Context = 'keyAndOperator' | 'values';

const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

class Parser {
  private position = 0;

  constructor(private readonly tokens: LabelToken[]) {}

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    while (true) {
      const { kind, literal } = this.peek('values');
      if (kind === 'EndOfString') return requirements;
      if (kind !== 'Identifier' && kind !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirement());
      const after = this.next('values');
      if (after.kind === 'EndOfString') return requirements;
      if (after.kind !== 'Comma')
        throw new SelectorParseError(`found '${after.literal}', expected: ',' or 'end of string'`);
      const following = this.peek('values');
      if (following.kind !== 'Identifier' && following.kind !== 'DoesNotExist') {
        throw new SelectorParseError(`found '${following.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    try {
      const { key, operator: unary } = this.keyAndInferredOperator();
      if (unary) return newRequirement(key, unary, []);
      const operator = this.binaryOperator();
      const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
      return newRequirement(key, operator, [...values].sort(compareStrings));
    } catch (err) {
      throw new SelectorParseError(`unable to parse requirement: ${(err as Error).message}`);
    }
  }

  /** The key, and `exists` or `!` when no binary operator can follow it. */
  private keyAndInferredOperator(): { key: string; operator?: 'exists' | '!' } {
    let token = this.next('values');
    const negated = token.kind === 'DoesNotExist';
    if (negated) token = this.next('values');
    if (token.kind !== 'Identifier') throw new SelectorParseError(`found '${token.literal}', expected: identifier`);
    const problems = isQualifiedName(token.literal);
    // The parser validates keys without a field path, and Go prints a nil path as "<nil>".
    if (problems.length) throw new SelectorParseError(invalidField('<nil>', token.literal, problems.join('; ')));
    if (negated) return { key: token.literal, operator: '!' };
    const ahead = this.peek('values').kind;
    return ahead === 'EndOfString' || ahead === 'Comma'
      ? { key: token.literal, operator: 'exists' }
      : { key: token.literal };
  }

  private binaryOperator(): Operator {
    const { kind, literal } = this.next('keyAndOperator');
    const operators: Partial<Record<LabelTokenKind, Operator>> = {
      In: 'in',
      Equals: '=',
      DoubleEquals: '==',
      GreaterThan: 'gt',
      LessThan: 'lt',
      NotIn: 'notin',
      NotEquals: '!=',
    };
    const operator = operators[kind];
    if (!operator) throw new SelectorParseError(`found '${literal}', expected: ${binaryOperators}`);
    return operator;
  }

  /** `(a,b,…)`; empty entries, `()` included, stand for the empty value. */
  private valueSet(): Set<string> {
    const open = this.next('values');
    if (open.kind !== 'OpenPar') throw new SelectorParseError(`found '${open.literal}' expected: '('`);
    const { kind, literal } = this.peek('values');
    if (kind === 'ClosedPar') {
      this.next('values');
      return new Set(['']);
    }
    if (kind !== 'Identifier' && kind !== 'Comma')
      throw new SelectorParseError(`found '${literal}', expected: ',', ')' or identifier`);
    const values = this.identifierList();
    this.next('values');
    return values;
  }

  /** The comma-separated entries of a value set, stopping before its `)`. */
  private identifierList(): Set<string> {
    const values = new Set<string>();
    while (true) {
      const token = this.next('values');
      if (token.kind === 'Identifier') {
        values.add(token.literal);
        const ahead = this.peek('values');
        if (ahead.kind === 'ClosedPar') return values;
        if (ahead.kind !== 'Comma') throw new SelectorParseError(`found '${ahead.literal}', expected: ',' or ')'`);
      } else if (token.kind === 'Comma') {
        if (values.size === 0) values.add('');
        const ahead = this.peek('values').kind;
        if (ahead === 'ClosedPar') {
          values.add('');
          return values;
        }
        if (ahead === 'Comma') {
          this.next('values');
          values.add('');
        }
      } else {
        throw new SelectorParseError(`found '${token.literal}', expected: ',', or identifier`);
      }
    }
  }

  /** The one value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end is the empty value. */
  private exactValue(): Set<string> {
    const ahead = this.peek('values').kind;
    if (ahead === 'EndOfString' || ahead === 'Comma') return new Set(['']);
    const { kind, literal } = this.next('values');
    if (kind !== 'Identifier') throw new SelectorParseError(`found '${literal}', expected: identifier`);
    return new Set([literal]);
  }

  private peek(context: Context): LabelToken {
    return this.inContext(this.tokens[this.position], context);
  }

  private next(context: Context): LabelToken {
    const token = this.peek(context);
    // The stream ends in EndOfString, which is never consumed past.
    if (this.position < this.tokens.length - 1) this.position++;
    return token;
  }

  private inContext(token: LabelToken, context: Context): LabelToken {
    return context === 'values' && (token.kind === 'In' || token.kind === 'NotIn')
      ? { kind: 'Identifier', literal: token.literal }
      : token;
  }
}
