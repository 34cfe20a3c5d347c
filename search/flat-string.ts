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
