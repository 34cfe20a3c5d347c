/** Ages of API timestamps, the way printers.go's translateTimestampSince renders them. */
import { humanDuration } from '../duration.js';

/** Milliseconds since the epoch, or undefined for a missing or unparsable timestamp (Go's zero time). */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The age of `timestamp` at `now`, or `<unknown>` when it is missing. */
export function since(timestamp: unknown, now: Date): string {
  const ms = parseTimestamp(timestamp);
  return ms === undefined ? '<unknown>' : humanDuration(now.getTime() - ms);
}

/** The AGE cell: how long ago the object was created. */
export function age(object: any, now: Date): string {
  return since(object?.metadata?.creationTimestamp, now);
}
