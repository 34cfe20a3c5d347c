/**
 * The recent events of one store, kept so that a watch can resume from a resourceVersion it has
 * seen: a fixed-size cyclic buffer, as kube's watch cache keeps one. When it is full the oldest
 * event goes, and with it the ability to resume from before it.
 */
import { versionNumber } from '../informer/resource-version-order.js';

export interface WindowEvent {
  /** The version the store reached with this event. */
  readonly resourceVersion: string;
}

/** A watch cannot resume from `requested`: events after it are no longer all here. */
export interface TooOld {
  readonly requested: string;
  /** The oldest version a watch can still resume from. */
  readonly oldest: string;
}

export class EventWindow<E extends WindowEvent> {
  private readonly buffer: (E | undefined)[];
  private first = 0;
  private size = 0;
  /** The store's version before the first event held: resuming from it or later replays every event after. */
  private start: string;

  constructor(
    readonly capacity: number,
    startResourceVersion = '',
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`event window capacity must be a positive integer, not ${capacity}`);
    this.buffer = new Array<E | undefined>(capacity);
    this.start = startResourceVersion;
  }

  /** Forgets every event: the store now starts at `resourceVersion` (its first list). */
  reset(resourceVersion: string): void {
    this.buffer.fill(undefined);
    this.first = 0;
    this.size = 0;
    this.start = resourceVersion;
  }

  push(event: E): void {
    if (this.size === this.capacity) {
      this.start = this.buffer[this.first]!.resourceVersion;
      this.first = (this.first + 1) % this.capacity;
      this.size--;
    }
    this.buffer[(this.first + this.size) % this.capacity] = event;
    this.size++;
  }

  /** The events after `resourceVersion`, in order, or TooOld when some of them have left the window. */
  since(resourceVersion: string): E[] | TooOld {
    const after = versionNumber(resourceVersion);
    if (after < versionNumber(this.start)) return { requested: resourceVersion, oldest: this.start };
    const events: E[] = [];
    for (let i = 0; i < this.size; i++) {
      const event = this.buffer[(this.first + i) % this.capacity]!;
      if (versionNumber(event.resourceVersion) > after) events.push(event);
    }
    return events;
  }

  get length(): number {
    return this.size;
  }
}
