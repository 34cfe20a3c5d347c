/**
 * The scheduler of one priority level, as kube-apiserver's API Priority and Fairness schedules a
 * level's requests: a bounded number of seats, at most so many of them for one flow (a tenant),
 * a FIFO queue per flow, and fair queuing among the flows that wait — each free seat goes to the
 * next waiting flow in turn (round robin), so a flow with a thousand requests queued gets one seat
 * when a flow with one gets one. Pure: no timers, no promises; time is passed in, and what the
 * level decides is returned (upstream-seats.ts runs it).
 */

export interface FairQueueSettings {
  /** Requests the level executes at once. */
  seats: number;
  /** Of those, at most this many for one flow: the rest of its requests wait even while seats are free. */
  seatsPerFlow: number;
  /** Requests one flow may have waiting; one more is refused (`queue-full`). */
  queueLength: number;
  /** How long a request may wait for a seat before it is refused (`time-out`). */
  maxWaitMs: number;
}

/** What became of an arriving request: it holds a seat, it waits, or it was refused because its flow's queue is full. */
export type Arrival = 'executing' | 'queued' | 'queue-full';

interface Waiting<T> {
  item: T;
  deadline: number;
}

interface Flow<T> {
  executing: number;
  queue: Waiting<T>[];
}

export class FairQueues<T> {
  private executingSeats = 0;
  private waitingRequests = 0;
  /** Every flow executing or waiting; a flow with neither is forgotten, so memory follows the active flows. */
  private readonly flows = new Map<string, Flow<T>>();
  /** The flows with requests waiting, in the order they are served next: a flow served goes to the back. */
  private readonly turn = new Set<string>();

  constructor(readonly settings: FairQueueSettings) {}

  /** Seats held now. */
  get executing(): number {
    return this.executingSeats;
  }

  /** Requests waiting now. */
  get waiting(): number {
    return this.waitingRequests;
  }

  /** A request of `flow` arrives at `now`: it takes a seat at once when one is free for it and none of its flow waits before it. */
  arrive(flow: string, item: T, now: number): Arrival {
    const state = this.flowOf(flow);
    if (state.queue.length === 0 && this.mayExecute(state)) {
      this.executingSeats++;
      state.executing++;
      return 'executing';
    }
    if (state.queue.length >= this.settings.queueLength) {
      this.forgetIfIdle(flow, state);
      return 'queue-full';
    }
    state.queue.push({ item, deadline: now + this.settings.maxWaitMs });
    this.waitingRequests++;
    this.turn.add(flow);
    return 'queued';
  }

  /** A request of `flow` gives its seat back; returns the waiting requests that now hold seats, in the order they got them. */
  finish(flow: string): T[] {
    const state = this.flows.get(flow);
    if (!state || state.executing === 0) throw new Error(`flow ${flow} holds no seat`);
    this.executingSeats--;
    state.executing--;
    const admitted = this.dispatch();
    this.forgetIfIdle(flow, state);
    return admitted;
  }

  /** Takes a waiting request out of its queue (its client went away); false when it no longer waits. */
  cancel(flow: string, item: T): boolean {
    const state = this.flows.get(flow);
    const index = state?.queue.findIndex((waiting) => waiting.item === item) ?? -1;
    if (!state || index < 0) return false;
    state.queue.splice(index, 1);
    this.waitingRequests--;
    if (state.queue.length === 0) this.turn.delete(flow);
    this.forgetIfIdle(flow, state);
    return true;
  }

  /** Takes out every request that has waited past its deadline by `now`, and returns them. */
  expire(now: number): T[] {
    const expired: T[] = [];
    for (const flow of [...this.turn]) {
      const state = this.flows.get(flow)!;
      // One wait for every request of the level: a flow's queue is in deadline order.
      while (state.queue.length > 0 && state.queue[0].deadline <= now) {
        expired.push(state.queue.shift()!.item);
        this.waitingRequests--;
      }
      if (state.queue.length === 0) {
        this.turn.delete(flow);
        this.forgetIfIdle(flow, state);
      }
    }
    return expired;
  }

  /** When the next waiting request runs out of time; undefined when none waits. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const flow of this.turn) {
      const deadline = this.flows.get(flow)!.queue[0].deadline;
      if (next === undefined || deadline < next) next = deadline;
    }
    return next;
  }

  /** Free seats go to the waiting flows in turn, each flow within its own share. */
  private dispatch(): T[] {
    const admitted: T[] = [];
    while (this.executingSeats < this.settings.seats && this.turn.size > 0) {
      const flow = this.nextInTurn();
      if (flow === undefined) break;
      const state = this.flows.get(flow)!;
      admitted.push(state.queue.shift()!.item);
      this.waitingRequests--;
      this.executingSeats++;
      state.executing++;
      this.turn.delete(flow);
      if (state.queue.length > 0) this.turn.add(flow);
    }
    return admitted;
  }

  /** The first waiting flow in turn that may take one more seat. */
  private nextInTurn(): string | undefined {
    for (const name of this.turn) if (this.mayExecute(this.flows.get(name)!)) return name;
    return undefined;
  }

  private mayExecute(state: Flow<T>): boolean {
    return this.executingSeats < this.settings.seats && state.executing < this.settings.seatsPerFlow;
  }

  private flowOf(flow: string): Flow<T> {
    let state = this.flows.get(flow);
    if (!state) this.flows.set(flow, (state = { executing: 0, queue: [] }));
    return state;
  }

  private forgetIfIdle(flow: string, state: Flow<T>): void {
    if (state.executing === 0 && state.queue.length === 0) this.flows.delete(flow);
  }
}
