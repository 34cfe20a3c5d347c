import { reportFault } from '../../apiserver/process-faults.js';

/**
 * A controller's work queue, as client-go's: a key added while already waiting is not added
 * twice, keys are handled one at a time in order, and a failed sync is reported, not fatal.
 */
export class WorkQueue {
  private readonly waiting = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly sync: (key: string) => Promise<void>,
    private readonly name: string,
  ) {}

  add(key: string): void {
    if (this.stopped || this.waiting.has(key)) return;
    this.waiting.add(key);
    this.tail = this.tail.then(async () => {
      this.waiting.delete(key);
      if (this.stopped) return;
      try {
        await this.sync(key);
      } catch (err) {
        if (!this.stopped) reportFault('detached', `${this.name}: syncing ${key}`, err);
      }
    });
  }

  /** Takes no more keys and waits for the sync under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.tail;
  }
}
