import type { BenchOptions } from './environment.js';
import type { Target } from './target.js';
import { runLoad, summarize, type LoadRun, type LoadShape, type LoadSummary, type RequestTemplate } from './load.js';
import { cpuSeconds } from './process-stats.js';
import { progress } from './results.js';
import type { BenchTenant } from './tenant.js';

/**
 * The same load on the direct path and through the gateway, in the same environment, in
 * `rounds` alternating runs (direct, gateway, gateway, direct, ...) that share the measured
 * iterations or time, each warmed up on its own. On a shared machine whatever else runs comes
 * and goes; alternating spreads it over both sides instead of one.
 */
export async function measureBoth(
  what: string,
  tenant: BenchTenant,
  direct: RequestTemplate[],
  gateway: RequestTemplate[],
  shape: LoadShape,
  rounds: number,
): Promise<{ direct: LoadSummary; gateway: LoadSummary }> {
  const [directSummary, gatewaySummary] = await measureSides(
    what,
    [
      { name: 'direct', target: tenant.direct, templates: direct },
      { name: 'gateway', target: tenant.gateway, templates: gateway },
    ],
    shape,
    rounds,
  );
  return { direct: directSummary, gateway: gatewaySummary };
}

/** One way to the upstream: where the load goes, as whom, with which requests. */
export interface Side {
  name: string;
  target: Target;
  templates: RequestTemplate[];
  /** The process in the way (a proxy, the gateway), whose CPU time per request is measured. */
  pid?: number;
}

/**
 * measureBoth for any number of sides: each round runs every side once, in order in even rounds
 * and in reverse in odd ones (A B C, C B A, ...), so each side has its turn early and late.
 */
export async function measureSides(
  what: string,
  sides: Side[],
  shape: LoadShape,
  rounds: number,
): Promise<LoadSummary[]> {
  const part = shareOf(shape, rounds);
  const runs = sides.map((): LoadRun[] => []);
  const cpu = sides.map(() => ({ seconds: 0, requests: 0 }));
  const order = sides.map((_, i) => i);
  for (let round = 0; round < rounds; round++) {
    for (const i of round % 2 === 0 ? order : [...order].reverse()) {
      const { pid, target, templates } = sides[i];
      progress(`${what}: ${sides[i].name} (${round + 1}/${rounds})`);
      const before = pid === undefined ? 0 : await cpuSeconds(pid);
      const run = await runLoad(target, templates, part);
      runs[i].push(run);
      if (pid === undefined) continue;
      cpu[i].seconds += (await cpuSeconds(pid)) - before;
      cpu[i].requests += run.steps.reduce((sum, step) => sum + step.requests, part.warmup * templates.length);
    }
  }
  return runs.map((sideRuns, i) => ({
    ...summarize(sideRuns),
    ...(sides[i].pid === undefined ? {} : { cpuUsPerRequest: (cpu[i].seconds * 1e6) / cpu[i].requests }),
  }));
}

/**
 * Two ways to the same server compared request by request: every client sends a's requests and
 * b's in turn within each iteration, on a connection of each, a's first in even rounds and b's
 * first in odd ones. Whatever else the machine does then falls on both alike, which runs in turns
 * (measureSides) only spread over them: for two ways whose difference is smaller than that noise.
 * Each side's summary holds its own requests' latencies; its throughput is half the iterations'.
 */
export async function measureInterleaved(
  what: string,
  a: Side,
  b: Side,
  shape: LoadShape,
  rounds: number,
): Promise<[LoadSummary, LoadSummary]> {
  const part = shareOf(shape, rounds);
  const runs: [LoadRun[], LoadRun[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    const [first, second] = round % 2 === 0 ? [0, 1] : [1, 0];
    const [x, y] = round % 2 === 0 ? [a, b] : [b, a];
    progress(`${what}: ${x.name} and ${y.name} interleaved (${round + 1}/${rounds})`);
    const run = await runLoad(x.target, [...x.templates, ...y.templates.map((t) => ({ ...t, target: 0 }))], part, [
      y.target,
    ]);
    const count = x.templates.length;
    runs[first].push({ ...run, iterationsMs: [], steps: run.steps.slice(0, count) });
    runs[second].push({ ...run, iterationsMs: [], steps: run.steps.slice(count) });
  }
  return [summarize(runs[0]), summarize(runs[1])];
}

/** One round's share of a shape measured in `rounds` rounds: of its iterations or of its time. */
function shareOf(shape: LoadShape, rounds: number): LoadShape {
  return {
    ...shape,
    ...(shape.iterations !== undefined ? { iterations: Math.ceil(shape.iterations / rounds) } : {}),
    ...(shape.durationMs !== undefined ? { durationMs: shape.durationMs / rounds } : {}),
  };
}

/** Alternating runs per side for short requests; one suffices to check that a benchmark runs. */
export function roundsFor(options: BenchOptions): number {
  return options.quick ? 1 : 4;
}

/** One of several loads measured in turns: where it goes, what it sends, and how. */
export interface NamedLoad {
  name: string;
  target: Target;
  templates: RequestTemplate[];
  /** Further targets the templates name by index. */
  targets?: Target[];
  stepsAtOnce?: boolean;
}

/**
 * Several loads in the same environment, in `rounds` turns (in order, then in reverse, …) that
 * share the measured iterations, as measureBoth alternates two; one summary per load.
 */
export async function measureInTurns(
  what: string,
  loads: NamedLoad[],
  shape: LoadShape,
  rounds: number,
): Promise<LoadSummary[]> {
  const part = shareOf(shape, rounds);
  const runs = loads.map((): LoadRun[] => []);
  for (let round = 0; round < rounds; round++) {
    const order = loads.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const load = loads[i];
      progress(`${what}: ${load.name} (${round + 1}/${rounds})`);
      runs[i].push(
        await runLoad(load.target, load.templates, { ...part, stepsAtOnce: load.stepsAtOnce }, load.targets),
      );
    }
  }
  return runs.map(summarize);
}
