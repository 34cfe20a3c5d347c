/**
 * The watcher process (watchers.ts has the protocol): N watches of one collection over an
 * undici Pool, one connection each, and for every event line which write it is and how long
 * after the write was sent it arrived (watch-stamp.ts). Every watcher must receive every write
 * exactly once; what it misses, receives twice, or cannot read is counted.
 */
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { LineSplitter } from '../../apiserver/client/line-splitter.js';
import { sleep } from './sleep.js';
import { nowNs, readStamp } from './watch-stamp.js';
import type { WatchRun, WatchSpec } from './watchers.js';

const stdin = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const spec = JSON.parse((await stdin.next()).value as string) as WatchSpec;
const pool = new Pool(spec.origin, {
  connections: spec.watchers,
  connect: { ca: spec.ca, cert: spec.cert, key: spec.key },
  headersTimeout: 120_000,
  bodyTimeout: 0,
});

/** Every first receipt's latency, in ms; sorted once at the end. */
const latencies = new Float64Array(spec.watchers * spec.writes);
let events = 0;
let duplicates = 0;
let errors = 0;
let firstError: string | undefined;
let bytes = 0;
let firstSentNs = Infinity;
let lastReceivedNs = 0;
let lastEventAt = performance.now();
let closing = false;

function fail(message: string): void {
  errors++;
  firstError ??= message;
}

class Watcher {
  /** Writes received, by sequence number. */
  readonly seen = new Uint8Array(spec.writes);
  received = 0;
  private readonly lines = new LineSplitter();

  constructor(readonly index: number) {}

  read(chunk: string): void {
    // Every line of a chunk arrived at the same moment.
    const now = nowNs();
    bytes += chunk.length;
    lastEventAt = performance.now();
    for (const line of this.lines.push(chunk)) if (line !== '') this.event(line, now);
  }

  private event(line: string, now: number): void {
    const stamp = readStamp(line);
    if (!stamp || !(stamp.seq >= 0 && stamp.seq < spec.writes))
      return fail(`watcher ${this.index}: an event without a write's stamp: ${line.slice(0, 300)}`);
    if (this.seen[stamp.seq]) {
      duplicates++;
      return fail(`watcher ${this.index}: write ${stamp.seq} received twice`);
    }
    this.seen[stamp.seq] = 1;
    this.received++;
    latencies[events++] = (now - stamp.sentNs) / 1e6;
    if (stamp.sentNs < firstSentNs) firstSentNs = stamp.sentNs;
    lastReceivedNs = now;
  }
}

const watchers = Array.from({ length: spec.watchers }, (_, i) => new Watcher(i));
const open: Watcher[] = [];
await Promise.all(
  watchers.map(async (watcher) => {
    try {
      const res = await pool.request({
        method: 'GET',
        path: spec.path,
        headers: { ...spec.headers, accept: 'application/json', 'accept-encoding': 'identity' },
      });
      if (res.statusCode !== 200)
        return fail(`watcher ${watcher.index}: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
      open.push(watcher);
      res.body.setEncoding('utf8');
      res.body.on('data', (chunk: string) => watcher.read(chunk));
      res.body.on('error', () => undefined);
      res.body.on('close', () => {
        if (!closing) fail(`watcher ${watcher.index}: the watch ended after ${watcher.received} events`);
      });
    } catch (err) {
      fail(`watcher ${watcher.index}: ${(err as Error).message}`);
    }
  }),
);
process.stdout.write('ready\n');

const done = (await stdin.next()).value as string;
const failedSeqs = JSON.parse(done.slice('done '.length)) as number[];
// A write that failed made no event: nobody misses it.
for (const watcher of open) for (const seq of failedSeqs) watcher.seen[seq] = 2;
const expectedEach = spec.writes - new Set(failedSeqs).size;
while (open.some((w) => w.received < expectedEach) && performance.now() - lastEventAt < spec.idleMs) await sleep(50);

const sorted = latencies.subarray(0, events).sort();
const latencyHistogram: [number, number][] = [];
for (const latency of sorted) {
  const value = Number(latency.toPrecision(3));
  const last = latencyHistogram[latencyHistogram.length - 1];
  if (last && last[0] === value) last[1]++;
  else latencyHistogram.push([value, 1]);
}
const expected = expectedEach * spec.watchers;
const short = open.find((w) => w.received < expectedEach);
if (short)
  firstError ??= `watcher ${short.index}: ${short.received} of ${expectedEach} writes received, the first missing is write ${short.seen.indexOf(0)}`;
const run: WatchRun = {
  watchers: spec.watchers,
  opened: open.length,
  expected,
  events,
  missed: expected - events,
  duplicates,
  errors,
  firstError,
  seconds: events ? (lastReceivedNs - firstSentNs) / 1e9 : 0,
  bytes,
  latencyHistogram,
};
process.stdout.write(`${JSON.stringify(run)}\n`);

// Stdin closes when the benchmark has read the servers' CPU time: only then do the watches go.
await stdin.next();
closing = true;
await pool.destroy();
