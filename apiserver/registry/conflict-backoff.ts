/**
 * Retrying a write that lost a race, as kube-apiserver's GuaranteedUpdate does: against the
 * current object, until it lands or the request's time is up (kube-apiserver's default request
 * timeout, a minute). The embedded store shows a write to readers only once it is durable (its
 * log entry synced) but checks expected revisions against it at once, so a retry made right away
 * can read the very version it just lost against, again and again until the sync completes:
 * waiting 1, 2, 4… ms (at most 100) between tries lets the winner land first.
 */
const RETRY_BUDGET_MS = 60_000;

export class ConflictRetries {
  private readonly deadline = Date.now() + RETRY_BUDGET_MS;
  private attempt = 0;

  /** Waits before the next try; false when the time is up (the caller gives up with its conflict). */
  async again(): Promise<boolean> {
    if (Date.now() >= this.deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** this.attempt++, 100)));
    return true;
  }
}
