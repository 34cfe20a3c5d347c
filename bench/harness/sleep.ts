/**
 * The benchmarks' one pause. The tests have theirs (test/support/eventually.ts); a benchmark's
 * timing helpers are its own, so that a change made for the tests cannot move its numbers.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
