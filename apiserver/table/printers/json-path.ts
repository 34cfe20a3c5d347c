/**
 * The part of kube's JSONPath that CRD printer columns use: `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`,
 * `.*` and filters such as `[?(@.type=="Ready")]`. Missing keys yield no match, as with kube's
 * AllowMissingKeys.
 */
import { isObject } from '../../json.js';

type Comparison = '==' | '!=' | '<' | '<=' | '>' | '>=';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; comparison?: { operator: Comparison; literal: string | number } };

/** Evaluates a compiled path: every match, in document order. */
export type JsonPath = (root: unknown) => unknown[];

function compare(left: unknown, { operator, literal }: { operator: Comparison; literal: string | number }): boolean {
  if (operator === '==') return left === literal;
  if (operator === '!=') return left !== literal;
  if (typeof left !== typeof literal) return false;
  const [a, b] = [left as string | number, literal];
  return operator === '<' ? a < b : operator === '<=' ? a <= b : operator === '>' ? a > b : a >= b;
}

function apply(step: Step, value: unknown): unknown[] {
  switch (step.kind) {
    case 'field':
      return isObject(value) && Object.hasOwn(value, step.name) ? [value[step.name]] : [];
    case 'index': {
      if (!Array.isArray(value)) return [];
      const index = step.index < 0 ? value.length + step.index : step.index;
      return index >= 0 && index < value.length ? [value[index]] : [];
    }
    case 'all':
      if (Array.isArray(value)) return value;
      return isObject(value)
        ? Object.keys(value)
            .sort()
            .map((key) => value[key])
        : [];
    case 'filter':
      if (!Array.isArray(value)) return [];
      return value.filter((element) => {
        const found = evaluate(step.path, element);
        if (found.length === 0) return false;
        return step.comparison ? compare(found[0], step.comparison) : true;
      });
  }
}

function evaluate(steps: Step[], root: unknown): unknown[] {
  return steps.reduce<unknown[]>((values, step) => values.flatMap((value) => apply(step, value)), [root]);
}

function parseLiteral(text: string): string | number | undefined {
  const quoted = /^'(.*)'$|^"(.*)"$/.exec(text);
  if (quoted) return quoted[1] ?? quoted[2];
  return text !== '' && Number.isFinite(Number(text)) ? Number(text) : undefined;
}

/** `?(@.path)` or `?(@.path <op> literal)`. */
function parseFilter(body: string): Step | undefined {
  const match = /^\?\(\s*@((?:\.[^.[\]\s=!<>]+)*)\s*(?:(==|!=|<=|>=|<|>)\s*(.+?))?\s*\)$/.exec(body);
  if (!match) return undefined;
  const path = parseSteps(match[1]);
  if (!path) return undefined;
  if (match[2] === undefined) return { kind: 'filter', path };
  const literal = parseLiteral(match[3]);
  if (literal === undefined) return undefined;
  return { kind: 'filter', path, comparison: { operator: match[2] as Comparison, literal } };
}

function parseBracket(body: string): Step | undefined {
  if (body === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(body)) return { kind: 'index', index: Number(body) };
  if (body.startsWith('?')) return parseFilter(body);
  const name = parseLiteral(body);
  return typeof name === 'string' ? { kind: 'field', name } : undefined;
}

/** The index of the `]` closing the bracket opened at `open`, skipping quoted text. */
function closingBracket(path: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < path.length; i++) {
    const char = path[i];
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === ']') {
      return i;
    }
  }
  return -1;
}

function parseSteps(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const close = closingBracket(path, i);
      const step = close < 0 ? undefined : parseBracket(path.slice(i + 1, close).trim());
      if (!step) return undefined;
      steps.push(step);
      i = close + 1;
    } else if (path[i] === '.') {
      // `..` (recursive descent) is beyond this subset.
      if (path[i + 1] === '.') return undefined;
      const end = path.slice(i + 1).search(/[.[]/);
      const name = end < 0 ? path.slice(i + 1) : path.slice(i + 1, i + 1 + end);
      if (name === '*') steps.push({ kind: 'all' });
      else if (name !== '') steps.push({ kind: 'field', name });
      i += 1 + name.length;
    } else {
      return undefined;
    }
  }
  return steps;
}

/** A JSONPath such as `.status.conditions[?(@.type=="Ready")].status`, or undefined when unsupported. */
export function compileJsonPath(path: string): JsonPath | undefined {
  const steps = parseSteps(path.trim());
  return steps && ((root) => evaluate(steps, root));
}
