/**
 * Reads until the check passes or the deadline passes (then the check's own error is thrown):
 * for what happens "within seconds" — a controller's pass, a watch's delivery — without putting
 * a timing in the assertion.
 */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => void, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
