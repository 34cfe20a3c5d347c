/**
 * How long a write that lost a race waits before it reads the object again. The embedded store
 * shows a write to readers only once it is durable (its log entry synced) but checks expected
 * revisions against it at once, so a retry made right away can read the very version it just
 * lost against, again and again until the sync completes. Waiting 1, 2, 4… ms (at most 100)
 * lets the winner land, as kube-apiserver's linearizable read before a retry does.
 */
export function conflictBackoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 100)));
}

/** How many times a write without a resourceVersion of its own is retried after losing a race. */
export const CONFLICT_RETRIES = 12;
