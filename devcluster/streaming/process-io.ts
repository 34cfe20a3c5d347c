/** What a simulated process reads and writes: the exec's streams. */
export interface ProcessIo {
  /** The client's stdin, or null when the request has none (stdin=false). */
  stdin: AsyncIterable<Buffer> | null;
  stdout(data: string | Buffer): void;
  stderr(data: string | Buffer): void;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}
