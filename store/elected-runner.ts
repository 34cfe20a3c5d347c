/**
 * The life of a controller that one replica runs at a time: campaign in the store's election,
 * run the controller's work while leading, and campaign again when leadership is lost. `stop()`
 * resigns at once, so another replica takes over without waiting for the lease to run out.
 */
import { errorMessage, logger } from '../log/log.js';
import type { Leadership, Store } from './types.js';

export interface ElectedRunnerOptions {
  store: Store;
  /** The election's name, shared by every replica that runs this controller. */
  election: string;
  identity: string;
  ttlSeconds: number;
  /** Names the controller in reported faults. */
  name: string;
  /** The work while leading; `leading` is aborted when leadership is lost or the runner stops, and the work must end then. */
  lead: (leading: AbortSignal) => Promise<void>;
}

/** How long a failed campaign waits before the next. */
const CAMPAIGN_RETRY_MS = 500;

export class ElectedRunner {
  private stopped = false;
  private leadership: Leadership | undefined;
  private campaign: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();

  constructor(private readonly options: ElectedRunnerOptions) {}

  start(): void {
    this.campaign = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort(new Error('stopping'));
    await this.leadership?.resign().catch(() => undefined);
    await this.campaign;
  }

  /** Whether this replica leads now. */
  isLeader(): boolean {
    return !this.stopped && this.leadership !== undefined && !this.leadership.signal.aborted;
  }

  private async run(): Promise<void> {
    const { store, election, identity, ttlSeconds, name } = this.options;
    const log = logger(name);
    while (!this.stopped) {
      try {
        this.leadership = await store.elect(election, ttlSeconds, { identity, signal: this.abort.signal });
      } catch (err) {
        if (this.stopped) return;
        log.warn('campaign failed', { error: errorMessage(err) });
        await pause(CAMPAIGN_RETRY_MS, this.abort.signal);
        continue;
      }
      // Stopped while the campaign was being won: stop() found no leadership to resign.
      if (this.stopped) {
        await this.leadership.resign().catch(() => undefined);
        return;
      }
      const leading = AbortSignal.any([this.leadership.signal, this.abort.signal]);
      log.debug('leading', { election, identity });
      await this.options
        .lead(leading)
        .catch((err: unknown) => log.error('leading failed', { error: errorMessage(err) }, errorMessage(err)));
      if (!this.stopped) log.debug('no longer leading', { election, identity });
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
