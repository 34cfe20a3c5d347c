/**
 * A string as one flat piece. V8 answers JSON.stringify and long concatenations with a rope of
 * the pieces it wrote (for a 2 KB object, 300 bytes of piece headers and rope nodes); a string
 * kept for long is better flat. Reading a character flattens the rope in place, and the
 * collector then drops the rope's nodes and pieces, leaving the flat string referenced.
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * A string that holds its own characters. A slice of a long string is a view that keeps the whole
 * of it alive; this copy keeps nothing else. (Lossless: the text it is given is JSON, which has no
 * lone surrogates.)
 */
export function ownCopy(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
