/**
 * Kubernetes field selectors as apimachinery's `fields.ParseSelector` parses them: comma-separated
 * `field=value`, `field==value` and `field!=value` terms, with `\`, `,` and `=` escaped by a
 * backslash in values. Error texts are apimachinery's.
 */
import { SelectorParseError } from './label-selector.js';

export { SelectorParseError };

export interface FieldRequirement {
  field: string;
  /** `==` is the same term as `=`, and prints as `=`. */
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  /** In the order apimachinery keeps them: by the text of their terms. */
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** A field missing from `fields` counts as "", as fields.Set.Get reads it. */
  matches(fields: Record<string, string>): boolean;
  toString(): string;
  /** the value required by `field=value`, if any (used to narrow a list to one name or namespace) */
  requiresExactMatch(field: string): string | undefined;
}

export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  // apimachinery sorts the raw terms, which decides the order of requirements and of errors.
  for (const term of splitTerms(text).sort()) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${term}'`);
    requirements.push({
      field: split.field,
      operator: split.operator === '!=' ? '!=' : '=',
      value: unescapeValue(split.rawValue),
    });
  }
  return new TermsSelector(requirements);
}

class TermsSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: FieldRequirement[]) {
    this.requirements = Object.freeze(requirements);
  }

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(fields: Record<string, string>): boolean {
    return this.requirements.every(({ field, operator, value }) => {
      const actual = Object.hasOwn(fields, field) ? fields[field] : '';
      return operator === '=' ? actual === value : actual !== value;
    });
  }

  toString(): string {
    return this.requirements.map(({ field, operator, value }) => `${field}${operator}${escapeValue(value)}`).join(',');
  }

  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((requirement) => requirement.operator === '=' && requirement.field === field)?.value;
  }
}

/** The comma-separated terms; an escaped comma stays in its term, backslash and all. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    if (escaped) escaped = false;
    else if (text[i] === '\\') escaped = true;
    else if (text[i] === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** Checked in this order at each position, so `==` is not read as `=` followed by a value "=…". */
const termOperators = ['!=', '==', '='] as const;

/** Splits at the first operator: field names cannot escape one, values can. */
function splitTerm(
  term: string,
): { field: string; operator: (typeof termOperators)[number]; rawValue: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const operator = termOperators.find((candidate) => term.startsWith(candidate, i));
    if (operator) return { field: term.slice(0, i), operator, rawValue: term.slice(i + operator.length) };
  }
  return undefined;
}

/** fields.EscapeValue. */
function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (char) => `\\${char}`);
}

/** fields.UnescapeValue: only `\\`, `\,` and `\=` are escapes, and `,` and `=` must be escaped. */
function unescapeValue(raw: string): string {
  let value = '';
  let escaped = false;
  for (const char of raw) {
    if (escaped) {
      if (!'\\,='.includes(char))
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${char}`);
      value += char;
      escaped = false;
    } else if (char === '\\') {
      escaped = true;
    } else if (char === ',' || char === '=') {
      // Go formats the rune with %v, which prints its code point as a number.
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${char.codePointAt(0)}`);
    } else {
      value += char;
    }
  }
  if (escaped) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return value;
}
