import { StringDecoder } from 'node:string_decoder';

/**
 * A stream of newline-terminated lines (a watch response, one JSON event a line), taken chunk by
 * chunk as it is read. Each chunk is scanned once: a line longer than a chunk (the event of a
 * large object arrives in dozens) is kept as pieces and joined when its newline comes. Adding
 * each chunk to one buffer and searching that buffer again costs time quadratic in the line's
 * length: 0.5 MB events took seconds of CPU each. Bytes are decoded as UTF-8 across chunks, so a
 * character cut in two by a chunk's end is whole in its line.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pieces: string[] = [];

  /** The lines `chunk` completes, in order and without their newlines; empty lines included. */
  push(chunk: string | Buffer): string[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let start = 0;
    let newline: number;
    while ((newline = text.indexOf('\n', start)) >= 0) {
      const end = text.slice(start, newline);
      if (this.pieces.length === 0) lines.push(end);
      else {
        this.pieces.push(end);
        lines.push(this.pieces.join(''));
        this.pieces = [];
      }
      start = newline + 1;
    }
    if (start < text.length) this.pieces.push(text.slice(start));
    return lines;
  }
}
