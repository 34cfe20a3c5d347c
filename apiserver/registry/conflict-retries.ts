/**
 * Retrying a write that lost a race, as kube-apiserver's GuaranteedUpdate does: against the
 * current object, until it lands or the request's time is up (kube-apiserver's default request
 * timeout, a minute), so a write without a resourceVersion is never refused for a race. Several
 * writers racing for one object (a user's patch beside the controllers' status writes) wait 1,
 * 2, 4… ms (at most 100) between tries, so they spread out instead of colliding again at once.
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
