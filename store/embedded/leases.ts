import { randomBytes } from 'node:crypto';
import type { Lease } from '../types.js';

/**
 * Leases of the embedded store. They live in this process, as the store does: each is renewed by
 * a timer every third of its TTL, `release()` stops the renewals (what a dying holder does) and
 * the lease expires one TTL after the last renewal. Leases are not persisted: after a restart
 * every holder of the previous run is gone, so the store deletes keys attached to old leases.
 */
export class EmbeddedLease implements Lease {
  readonly id = randomBytes(8).toString('hex');
  private readonly controller = new AbortController();
  private expiresAt: number;
  private renewTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private ending: Promise<void> | undefined;

  constructor(
    readonly ttlSeconds: number,
    private readonly end: (lease: EmbeddedLease, reason: string) => Promise<void>,
  ) {
    this.expiresAt = Date.now() + ttlSeconds * 1000;
    this.renewTimer = setInterval(
      () => (this.expiresAt = Date.now() + ttlSeconds * 1000),
      (ttlSeconds * 1000) / 3,
    ).unref();
    this.scheduleExpiry();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get alive(): boolean {
    return !this.controller.signal.aborted;
  }

  release(): void {
    clearInterval(this.renewTimer);
  }

  revoke(): Promise<void> {
    return this.finish('lease revoked');
  }

  /** Called by the store once the lease's keys are deleted. */
  markEnded(reason: string): void {
    clearInterval(this.renewTimer);
    clearTimeout(this.expiryTimer);
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  private scheduleExpiry(): void {
    this.expiryTimer = setTimeout(
      () => {
        if (Date.now() < this.expiresAt) return this.scheduleExpiry();
        const reason = `lease expired after ${this.ttlSeconds}s without renewal`;
        // Its keys could not be deleted (the store failed): the lease is over for its holder all the same.
        this.finish(reason).catch((err: Error) =>
          this.markEnded(`${reason}; deleting its keys failed: ${err.message}`),
        );
      },
      Math.max(this.expiresAt - Date.now(), 1),
    ).unref();
  }

  private finish(reason: string): Promise<void> {
    return (this.ending ??= this.end(this, reason));
  }
}
