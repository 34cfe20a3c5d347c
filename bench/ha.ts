/**
 * `ha`: what clients see when a replica dies behind the balancer. The HA stage (etcd, three
 * replicas, HAProxy with deploy/haproxy.cfg) and the HA scenario (a tenant's writer, informer and
 * kubectl through the balancer; the controllers' leader killed with SIGKILL, then another replica
 * restarted with SIGTERM) — the same as test/ha/ha-balancer.test.ts — with its figures printed:
 * requests made, failures seen, what was lost, and how long recovery took. No direct path to
 * compare with: a single cluster has no replica to lose. The test reports its own run with
 * haReport, so CI runs this benchmark's code without a quick run of its own (test/bench/quick-run.ts).
 */
import { runHaScenario, type HaOutcome } from './harness/ha-scenario.js';
import { startHaStage } from './harness/ha-stage.js';
import type { BenchOptions } from './harness/environment.js';
import { progress, saveResults } from './harness/results.js';
import { formatTable } from './table.js';

const ELECTION_TTL_SECONDS = 5;

export async function benchHa(options: BenchOptions): Promise<number> {
  const phaseMs = options.quick ? 1000 : 5000;
  progress(
    `three replicas behind HAProxy: ${phaseMs / 1000} s of load, the leader killed, ${phaseMs / 1000} s, another restarted, ${phaseMs / 1000} s`,
  );
  const stage = await startHaStage({
    serveArgs: ['--election-ttl', String(ELECTION_TTL_SECONDS), '--shutdown-timeout', '10s'],
  });
  try {
    // A quick run writes a fifth as often: enough to see writes fail over, not to load the replicas.
    const outcome = await runHaScenario(stage, { phaseMs, writePauseMs: options.quick ? 100 : 20 });
    const report = haReport(outcome, ELECTION_TTL_SECONDS);
    process.stdout.write(report.text);
    await saveResults('ha', { quick: options.quick, phaseMs, ...report.results });
    return report.failures;
  } finally {
    await stage.stop();
  }
}

/** What a run of the HA scenario comes to: the text printed, the results saved, and the writes lost, missed or repeated. */
export function haReport(
  outcome: HaOutcome,
  electionTtlSeconds: number,
): { text: string; results: Record<string, unknown>; failures: number } {
  const listed = new Set(outcome.listedAtEnd);
  const lost = outcome.acknowledged.filter((name) => !listed.has(name)).length;
  const missed = outcome.acknowledged.filter((name) => !outcome.informerAdds.has(name)).length;
  const repeated = [...outcome.informerAdds.values()].filter((count) => count > 1).length;
  const text = [
    `\nha: a tenant's load through HAProxy while the controllers' leader is killed (SIGKILL) and then another replica restarted (SIGTERM); election lease ${electionTtlSeconds} s\n`,
    formatTable(
      ['client', 'requests', 'failed', 'most failures in a row', 'lost / missed / repeated'],
      [
        ...outcome.writers.map((writer, i) => [
          `writer ${i} (creates)`,
          String(writer.requests),
          String(writer.failures.length),
          String(writer.worstRun),
          i === 0 ? `${lost} lost of all writes` : '',
        ]),
        [
          'kubectl get',
          String(outcome.kubectl.requests),
          String(outcome.kubectl.failures.length),
          String(outcome.kubectl.worstRun),
          '-',
        ],
        [
          'client-node informer',
          '-',
          `${outcome.informerErrors} watch errors`,
          '-',
          `${missed} missed, ${repeated} repeated`,
        ],
      ],
    ),
    [
      '',
      `writes answered in the second after the kill: ${outcome.writesInTheSecondAfterKill}`,
      `every writer succeeded again ${outcome.writerRecoveryMs} ms after the kill`,
      `a Tenant made after the kill Active (another replica's controller took over): ${outcome.controllerTakeoverMs} ms after it`,
      `failures: ${[...outcome.writers.flatMap((w) => w.failures), ...outcome.kubectl.failures].map((f) => f.message).join(' | ') || 'none'}`,
      '',
    ].join('\n'),
  ].join('');
  return {
    text,
    results: {
      acknowledged: outcome.acknowledged.length,
      lost,
      missed,
      repeated,
      writers: outcome.writers,
      kubectl: outcome.kubectl,
      informerErrors: outcome.informerErrors,
      writesInTheSecondAfterKill: outcome.writesInTheSecondAfterKill,
      writerRecoveryMs: outcome.writerRecoveryMs,
      controllerTakeoverMs: outcome.controllerTakeoverMs,
    },
    failures: lost + missed + repeated,
  };
}
