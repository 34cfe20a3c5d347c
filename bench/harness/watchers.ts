/**
 * Watchers as the `watch` benchmark drives them: a separate node process (watch-worker.ts)
 * holds every watch, so that their clients never share the CPU of the process measured or of
 * the writer. A line protocol on its stdin and stdout: the spec → `ready` once every watch is
 * open → `done` with the writes that failed (the writer has finished) → the run as JSON, when
 * every watcher has every write or none has received anything for `idleMs` → stdin closes, the
 * watches with it.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnProgram } from '../../processes/spawn-program.js';
import { createInterface } from 'node:readline';
import { WATCH_WORKER } from './locations.js';
import type { Target } from './target.js';

export interface WatchSpec extends Target {
  /** The watch request, `?watch=1&resourceVersion=…` included. */
  path: string;
  watchers: number;
  /** Writes the writer will make, numbered from 0: each watcher must see each once. */
  writes: number;
  /** After `done`, how long without any event before the missing ones count as missed. */
  idleMs: number;
}

export interface WatchRun {
  watchers: number;
  /** Watches that answered 200. */
  opened: number;
  /** Events every watcher should have received: successful writes × watchers. */
  expected: number;
  /** Distinct writes received, summed over watchers. */
  events: number;
  missed: number;
  duplicates: number;
  /** Failures: watches refused or ended early, ERROR or unstamped events, duplicates. */
  errors: number;
  firstError?: string;
  /** From the first write sent to the last event received. */
  seconds: number;
  bytes: number;
  /** Latency from write sent to event received, [ms to 3 significant digits, count], ascending. */
  latencyHistogram: [number, number][];
}

export interface OpenWatchers {
  /** Tells the worker the writer has finished (and which writes failed); resolves to its run. */
  finish(failedSeqs: number[]): Promise<WatchRun>;
  /** Closes the watches and waits for the worker to exit. */
  close(): Promise<void>;
}

/** Starts the worker and resolves once every watch is open (or refused: a refusal is in the run). */
export async function openWatchers(spec: WatchSpec): Promise<OpenWatchers> {
  // A thousand watchers of many thousand writes keep every latency until the end.
  let failed: (err: Error) => void = () => {};
  const child = spawnProgram(process.execPath, ['--max-old-space-size=4096', WATCH_WORKER], { stdio: 'pipe' }, (err) =>
    failed(err),
  ) as ChildProcessWithoutNullStreams;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    failed = reject;
    child.once('close', resolve);
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async (what: string): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`watch worker exited with ${await exited} before ${what}: ${stderr.trim()}`);
    return line.value;
  };
  child.stdin.write(`${JSON.stringify(spec)}\n`);
  try {
    const ready = await nextLine('its watches were open');
    if (ready !== 'ready') throw new Error(`watch worker said ${ready.slice(0, 300)}`);
  } catch (err) {
    child.kill();
    throw err;
  }
  return {
    async finish(failedSeqs) {
      child.stdin.write(`done ${JSON.stringify(failedSeqs)}\n`);
      return JSON.parse(await nextLine('its result')) as WatchRun;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`watch worker exited with ${code}: ${stderr.trim()}`);
    },
  };
}

/** Nearest rank over a histogram of [value, count], ascending (a WatchRun's latencies, pooled). */
export function histogramPercentile(histogram: [number, number][], total: number, p: number): number {
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const [value, count] of histogram) if ((seen += count) >= rank) return value;
  return NaN;
}
