import type { BenchOptions } from './environment.js';
import type { Target } from './target.js';
import { runLoad, summarize, type LoadRun, type LoadShape, type LoadSummary, type RequestTemplate } from './load.js';
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
  const part: LoadShape = {
    ...shape,
    ...(shape.iterations !== undefined ? { iterations: Math.ceil(shape.iterations / rounds) } : {}),
    ...(shape.durationMs !== undefined ? { durationMs: shape.durationMs / rounds } : {}),
  };
  const runs = { direct: [] as LoadRun[], gateway: [] as LoadRun[] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const)) {
      progress(`${what}: ${side} (${round + 1}/${rounds})`);
      runs[side].push(
        await runLoad(side === 'direct' ? tenant.direct : tenant.gateway, side === 'direct' ? direct : gateway, part),
      );
    }
  }
  return { direct: summarize(runs.direct), gateway: summarize(runs.gateway) };
}

/** Alternating runs per side for short requests; two suffice to check that a benchmark runs. */
export function roundsFor(options: BenchOptions): number {
  return options.quick ? 2 : 4;
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
  const part: LoadShape = { ...shape, iterations: Math.ceil((shape.iterations ?? 1) / rounds) };
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
