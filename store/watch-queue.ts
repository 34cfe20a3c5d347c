import { DEFAULT_MAX_PENDING_WATCH_EVENTS, type Watch, type WatchEvent } from './types.js';

/**
 * The consumer side of a watch, shared by both backends: the backend pushes events (in revision
 * order) or an error, the consumer iterates. Events queue while the consumer is busy, so a slow
 * consumer never makes the backend drop or reorder anything — up to a bound: a consumer that
 * falls more than `maxPending` new events behind (a watch served to a client that stopped
 * reading) has its watch closed, as kube-apiserver's cacher closes unresponsive watchers, and
 * watches again from the last revision it took. The history replayed when the watch began is not
 * counted: it is queued at once, and counting it would close a watch from an old revision before
 * its consumer could take anything, again at every retry.
 */
export class WatchQueue implements Watch {
  private readonly buffered: WatchEvent[] = [];
  private head = 0;
  /** Replayed events not yet taken; they are at the front of the queue. */
  private replayLeft = 0;
  private failure: Error | undefined;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly onClose: () => void,
    private readonly maxPending = DEFAULT_MAX_PENDING_WATCH_EVENTS,
  ) {}

  /** The history after the watch's revision, queued before any live event. */
  replay(events: readonly WatchEvent[]): void {
    if (this.closed || this.failure) return;
    for (const event of events) this.buffered.push(event);
    this.replayLeft += events.length;
    this.notify();
  }

  push(event: WatchEvent): void {
    if (this.closed || this.failure) return;
    if (this.buffered.length - this.head - this.replayLeft >= this.maxPending) return this.close();
    this.buffered.push(event);
    this.notify();
  }

  fail(err: Error): void {
    if (this.closed || this.failure) return;
    this.failure = err;
    this.onClose();
    this.notify();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.failure) this.onClose();
    this.notify();
  }

  get isOpen(): boolean {
    return !this.closed && !this.failure;
  }

  /** Leaving a `for await` loop early (break, throw) closes the watch. */
  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    try {
      yield* this.drain();
    } finally {
      this.close();
    }
  }

  private async *drain(): AsyncGenerator<WatchEvent> {
    for (;;) {
      while (this.head < this.buffered.length) {
        const event = this.buffered[this.head++];
        if (this.replayLeft > 0) this.replayLeft--;
        if (this.head > 1024 && this.head * 2 > this.buffered.length) {
          this.buffered.splice(0, this.head);
          this.head = 0;
        }
        if (this.closed) return;
        yield event;
      }
      if (this.closed) return;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
