/**
 * How the `watch` benchmark's writer marks each write, so that every watcher can tell which
 * write an event is and how long it took to arrive: two annotations on the ConfigMap, its
 * sequence number and the moment the write was sent on CLOCK_MONOTONIC (`process.hrtime`), a
 * clock every process on the machine shares, with nanoseconds where Date.now() has milliseconds.
 */
export const SEQ_ANNOTATION = 'bench.paddock.io/seq';
export const SENT_ANNOTATION = 'bench.paddock.io/sent-ns';

export function stampAnnotations(seq: number): Record<string, string> {
  return { [SEQ_ANNOTATION]: String(seq), [SENT_ANNOTATION]: String(process.hrtime.bigint()) };
}

/** Nanoseconds on the shared clock, as a number: exact while the machine has been up less than 104 days. */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

// Both servers write events with JSON.stringify: no spaces, and a `/` is not escaped.
const SEQ_KEY = `"${SEQ_ANNOTATION}":"`;
const SENT_KEY = `"${SENT_ANNOTATION}":"`;

/**
 * The stamp in one event line, found by search rather than by parsing the event, so that a
 * thousand watchers cost the watcher process little next to the servers; null when there is none.
 */
export function readStamp(line: string): { seq: number; sentNs: number } | null {
  const seq = valueAfter(line, SEQ_KEY);
  const sent = valueAfter(line, SENT_KEY);
  return seq === undefined || sent === undefined ? null : { seq: Number(seq), sentNs: Number(sent) };
}

function valueAfter(line: string, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  const end = line.indexOf('"', start);
  return end < 0 ? undefined : line.slice(start, end);
}
