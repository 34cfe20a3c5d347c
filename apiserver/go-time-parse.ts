/**
 * Go's time.Parse(time.RFC3339, value), which metav1.Time uses for a query parameter (a log's
 * `sinceTime`): what it accepts (one- or two-digit hours, any fraction of a second, `Z` or
 * `±hh:mm`) and its error texts, which kube-apiserver returns as they are in a 400.
 */
import { Buffer } from 'node:buffer';

const LAYOUT = '2006-01-02T15:04:05Z07:00';

export class GoTimeParseError extends Error {}

type Parsed = { ok: true; value: number; rest: string } | { ok: false };

/** The time package's own quoting: ASCII as it is, every byte of anything else as `\xNN`. */
function quote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80)
      out += [...Buffer.from(char)].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
    else out += char === '"' || char === '\\' ? `\\${char}` : char;
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number) => i < s.length && s[i] >= '0' && s[i] <= '9';

/** Go's getnum: one or two digits, exactly two when fixed. */
function getnum(s: string, fixed: boolean): Parsed {
  if (!isDigit(s, 0)) return { ok: false };
  if (!isDigit(s, 1)) return fixed ? { ok: false } : { ok: true, value: Number(s[0]), rest: s.slice(1) };
  return { ok: true, value: Number(s.slice(0, 2)), rest: s.slice(2) };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The instant in milliseconds since the epoch (Go keeps nanoseconds; milliseconds are what a Date holds). */
export function parseRfc3339(text: string): number {
  const fail = (message: string) => new GoTimeParseError(`parsing time ${quote(text)}${message}`);
  const cannot = (valueElem: string, layoutElem: string) =>
    fail(` as ${quote(LAYOUT)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);
  let value = text;
  const literal = (char: string) => {
    if (value[0] !== char) throw cannot(value, char);
    value = value.slice(1);
  };
  /** A two-digit element checked against [min, max]; Go names the element in a range error. */
  const number = (element: string, fixed: boolean, range: [number, number, string] | null) => {
    const parsed = getnum(value, fixed);
    if (!parsed.ok) throw cannot(value, element);
    if (range && (parsed.value < range[0] || parsed.value > range[1])) throw fail(`: ${range[2]} out of range`);
    value = parsed.rest;
    return parsed.value;
  };

  if (value.length < 4 || !/^\d{4}/.test(value)) throw cannot(value, '2006');
  const year = Number(value.slice(0, 4));
  value = value.slice(4);
  literal('-');
  const month = number('01', true, [1, 12, 'month']);
  literal('-');
  const day = number('02', true, null);
  literal('T');
  const hour = number('15', false, [0, 23, 'hour']);
  literal(':');
  const minute = number('04', true, [0, 59, 'minute']);
  literal(':');
  const second = number('05', true, [0, 59, 'second']);
  let millis = 0;
  // A fraction after the seconds is accepted although the layout has none.
  const fraction = /^[.,](\d+)/.exec(value);
  if (fraction) {
    millis = Number(fraction[1].slice(0, 9).padEnd(9, '0').slice(0, 3));
    value = value.slice(fraction[0].length);
  }
  let offsetMinutes = 0;
  if (value[0] === 'Z') value = value.slice(1);
  else {
    const zone = value;
    if (zone.length < 6 || zone[3] !== ':') throw cannot(zone, 'Z07:00');
    const hours = getnum(zone.slice(1, 3), true);
    const minutes = getnum(zone.slice(4, 6), true);
    // Go reports an offset out of range before a bad sign or digit.
    if (hours.ok && hours.value > 24) throw fail(': time zone offset hour out of range');
    if (hours.ok && minutes.ok && minutes.value > 60) throw fail(': time zone offset minute out of range');
    if (!hours.ok || !minutes.ok || (zone[0] !== '+' && zone[0] !== '-')) throw cannot(zone, 'Z07:00');
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours.value * 60 + minutes.value);
    value = zone.slice(6);
  }
  if (value !== '') throw fail(`: extra text: ${quote(value)}`);
  if (day < 1 || day > daysIn(month, year)) throw fail(': day out of range');

  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime() - offsetMinutes * 60_000;
}
