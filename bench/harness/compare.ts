import type { BenchOptions } from './environment.js';
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
