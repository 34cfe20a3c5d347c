/**
 * Go's strconv.Quote (`%q`), which kube-apiserver's messages use for names, values and paths:
 * clients print those messages verbatim, so they must read as Go writes them. Its escapes differ
 * from JSON's (`\a`, `\x01`, `\u00a0`, `\U0010ffff`), and what Go deems printable stays as it is.
 */

/** Always escaped, as Go does: the quote, the backslash and the C escapes. */
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Whether Go deems one character printable (kube's field manager names must be). */
export function isGoPrintable(char: string): boolean {
  return PRINTABLE.test(char);
}

/** Printable ASCII but the quote and the backslash: what Go writes as it is. */
const PLAIN = /^[ !#-[\]-~]*$/;

export function goQuote(text: string): string {
  // Names, paths and verbs are nearly always plain: one test instead of one a character.
  if (PLAIN.test(text)) return `"${text}"`;
  let quoted = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (Object.hasOwn(ESCAPES, char)) quoted += ESCAPES[char];
    // A lone surrogate reaches Go as U+FFFD (its JSON decoder and Node's UTF-8 encoder both
    // replace it), which Go deems printable and writes as it is.
    else if (code >= 0xd800 && code <= 0xdfff) quoted += '\ufffd';
    else if (PRINTABLE.test(char)) quoted += char;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${hex(code, 2)}`;
    else quoted += code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
  }
  return `${quoted}"`;
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}
