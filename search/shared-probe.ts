/**
 * Probes shared among the requests that need the same answer at once: how far a cluster's
 * resource has got, asked once for a crowd of consistent reads rather than once each.
 *
 * A read may only use a probe that started after the read arrived: one already under way may
 * have been answered before a write the reader saw acknowledged. So a read arriving while a probe
 * is in flight waits for the next one, which starts when that ends and serves every read that
 * arrived in between. At most two probes per key exist, one running and one waiting.
 */
export class SharedProbe<T> {
  private readonly running = new Map<string, Promise<T>>();
  private readonly next = new Map<string, Promise<T>>();

  constructor(private readonly probe: (key: string) => Promise<T>) {}

  /** The answer of a probe for `key` that starts no earlier than this call. */
  get(key: string): Promise<T> {
    const queued = this.next.get(key);
    if (queued !== undefined) return queued;
    const running = this.running.get(key);
    if (running === undefined) return this.start(key);
    const after = running.then(
      () => this.promote(key),
      () => this.promote(key),
    );
    this.next.set(key, after);
    return after;
  }

  private promote(key: string): Promise<T> {
    this.next.delete(key);
    return this.start(key);
  }

  private start(key: string): Promise<T> {
    // A probe that throws at once fails its promise like one that fails later.
    const started = Promise.resolve().then(() => this.probe(key));
    this.running.set(key, started);
    const forget = () => {
      if (this.running.get(key) === started) this.running.delete(key);
    };
    started.then(forget, forget);
    return started;
  }
}
