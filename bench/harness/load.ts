/**
 * The load generator as the benchmarks drive it: a spec goes to a separate node process
 * (load-worker.ts, kept between runs by load-worker-pool.ts) on stdin, its summary comes back as
 * JSON on stdout, so the client's own CPU is never the benchmark process's (which holds fixtures
 * and results).
 */
import { runInLoadWorker } from './load-worker-pool.js';
import type { Target } from './target.js';

/** One request; `{n}` in `path` and `body` becomes the iteration's number, unique within a load. */
export interface RequestTemplate {
  method: string;
  path: string;
  body?: string;
  /** The body's type (default application/json): a patch names its kind here. */
  contentType?: string;
  accept?: string;
  /** The first successful answer must hold exactly this many items (a list) or rows (a Table); of all pages with `pages`. */
  expectItems?: number;
  /** Sent to `LoadSpec.targets[target]`, with its headers, instead of the spec's own target. */
  target?: number;
  /** A paged list (`limit` in `path`): each answer's `continue` is followed to the last page, and the latency is all pages'. */
  pages?: boolean;
}

export interface LoadShape {
  /** Clients, each with its own keep-alive connection, each running the templates in order. */
  concurrency: number;
  /** Iterations run (and checked) before measuring: connections opened, code paths warm. */
  warmup: number;
  /** Measure this many iterations, or for this long; one of the two. */
  iterations?: number;
  durationMs?: number;
  /** An iteration sends its templates all at once instead of one after another. */
  stepsAtOnce?: boolean;
}

/** What the worker reads on stdin. */
export interface LoadSpec extends Target, LoadShape {
  templates: RequestTemplate[];
  /** Further targets, which templates name by index (several clusters in one iteration). */
  targets?: Target[];
}

/** What the worker prints: per template, every successful request's latency. */
export interface LoadRun {
  seconds: number;
  /** Every measured successful iteration's latency: all its templates, one after another or at once. */
  iterationsMs: number[];
  steps: {
    request: string;
    requests: number;
    errors: number;
    firstError?: string;
    latenciesMs: number[];
    bytes: number;
  }[];
}

/** Latency percentiles of successful requests (NaN, null in JSON, when none succeeded), and successful requests per second. */
export interface Figures {
  p50Ms: number;
  p99Ms: number;
  throughputPerSec: number;
}

export interface RequestSummary extends Figures {
  /** `METHOD path` of the template(s). */
  request: string;
  /** Requests sent while measuring, failed ones included. */
  requests: number;
  /** Failed requests — non-2xx, transport errors, a wrong item count — warmup included. */
  errors: number;
  firstError?: string;
  meanResponseBytes: number;
  /** The CPU time (user + system, all threads) of the process in the way (compare.ts, a side's `pid`) over every request of its runs, warmups included. */
  cpuUsPerRequest?: number;
}

export interface LoadSummary extends RequestSummary {
  /** The same figures per template. */
  steps: RequestSummary[];
  /** The same figures for whole iterations (all templates), when there are several templates. */
  iteration: Figures;
}

export async function runLoad(
  target: Target,
  templates: RequestTemplate[],
  shape: LoadShape,
  targets?: Target[],
): Promise<LoadRun> {
  const spec: LoadSpec = { ...target, ...shape, templates, targets };
  return JSON.parse(await runInLoadWorker(spec)) as LoadRun;
}

/** Several runs of the same templates as one: their latencies pooled, their times added. */
export function summarize(runs: LoadRun[]): LoadSummary {
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const steps = runs[0].steps.map((_, i) => runs.map((run) => run.steps[i]));
  const stepSummaries = steps.map((parts) => figures(parts[0].request, parts, seconds));
  const iterations = runs.flatMap((run) => run.iterationsMs).sort((a, b) => a - b);
  return {
    ...figures(stepSummaries.map((s) => s.request).join(' then '), steps.flat(), seconds),
    steps: stepSummaries,
    iteration: {
      p50Ms: percentile(iterations, 50),
      p99Ms: percentile(iterations, 99),
      throughputPerSec: iterations.length / seconds,
    },
  };
}

function figures(request: string, parts: LoadRun['steps'], seconds: number): RequestSummary {
  const latencies = parts.flatMap((part) => part.latenciesMs).sort((a, b) => a - b);
  const bytes = parts.reduce((sum, part) => sum + part.bytes, 0);
  return {
    request,
    requests: parts.reduce((sum, part) => sum + part.requests, 0),
    errors: parts.reduce((sum, part) => sum + part.errors, 0),
    firstError: parts.find((part) => part.firstError !== undefined)?.firstError,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    throughputPerSec: latencies.length / seconds,
    meanResponseBytes: latencies.length ? bytes / latencies.length : 0,
  };
}

/** Nearest rank. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
}
