import { errorMessage, errorText, logger, type Logger } from '../log/log.js';
import { isStoreError } from './errors.js';
import type { KeyValue, Store, Watch, WatchEvent } from './types.js';

/**
 * The skeleton every controller shares (devcluster, tenants, gateway replicas following the
 * store): list a prefix, hand the items to `onList`, then follow the watch from the list's
 * revision, handing each event to `onEvent` one at a time. A broken watch (compacted history,
 * store trouble) starts over with a fresh list, as an informer relists. Errors in a handler are
 * reported and do not stop the loop.
 */
export class WatchLoop {
  private watch: Watch | undefined;
  private stopped = false;
  private done: Promise<void> = Promise.resolve();
  private readonly log: Logger;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly handlers: {
      onList?: (items: KeyValue[]) => Promise<void> | void;
      onEvent: (event: WatchEvent) => Promise<void> | void;
    },
    name: string,
  ) {
    this.log = logger(name);
  }

  /** Resolves once the first list has been handled. */
  async start(): Promise<void> {
    const revision = await this.relist();
    this.done = this.follow(revision);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.close();
    await this.done;
  }

  private async relist(): Promise<number> {
    const items: KeyValue[] = [];
    let token: string | undefined;
    let revision: number;
    do {
      const page = await this.store.list(this.prefix, { limit: 1000, continue: token });
      items.push(...page.items);
      revision = page.revision;
      token = page.continue;
    } while (token);
    await this.report(() => this.handlers.onList?.(items));
    return revision;
  }

  private async follow(revision: number): Promise<void> {
    while (!this.stopped) {
      try {
        this.watch = await this.store.watch(this.prefix, revision);
        // Stopped while the watch was being opened: stop() found none to close.
        if (this.stopped) return this.watch.close();
        for await (const event of this.watch) {
          revision = event.revision;
          await this.report(() => this.handlers.onEvent(event));
        }
      } catch (err) {
        if (this.stopped || (isStoreError(err, 'Unavailable') && /closed/.test(err.message))) return;
        if (!isStoreError(err, 'Expired')) this.log.warn('watch failed, relisting', { error: errorMessage(err) });
        await new Promise((resolve) => setTimeout(resolve, 100));
        try {
          revision = await this.relist();
        } catch (relistErr) {
          if (this.stopped) return;
          this.log.warn('relist failed', { error: errorMessage(relistErr) });
        }
      }
    }
  }

  private async report(fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (!this.stopped) this.log.error('a handler failed', { error: errorText(err) }, errorText(err));
    }
  }
}
