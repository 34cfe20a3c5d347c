/**
 * `ha`: what clients see when a replica dies behind the balancer. The HA stage (etcd, three
 * replicas, HAProxy with deploy/haproxy.cfg) and the HA scenario (a tenant's writer, informer and
 * kubectl through the balancer; the controllers' leader killed with SIGKILL, then another replica
 * restarted with SIGTERM) — the same as test/ha/ha-balancer.test.ts — with its figures printed:
 * requests made, failures seen, what was lost, and how long recovery took. No direct path to
 * compare with: a single cluster has no replica to lose.
 */
import { runHaScenario } from './harness/ha-scenario.js';
import { startHaStage } from './harness/ha-stage.js';
import type { BenchOptions } from './harness/environment.js';
import { progress, saveResults } from './harness/results.js';
import { printTable } from './table.js';

export async function benchHa(options: BenchOptions): Promise<number> {
  const phaseMs = options.quick ? 1000 : 5000;
  progress(
    `three replicas behind HAProxy: ${phaseMs / 1000} s of load, the leader killed, ${phaseMs / 1000} s, another restarted, ${phaseMs / 1000} s`,
  );
  const stage = await startHaStage({ serveArgs: ['--election-ttl', '5', '--shutdown-timeout', '10s'] });
  try {
    // A quick run writes a fifth as often: enough to see writes fail over, not to load the replicas.
    const outcome = await runHaScenario(stage, { phaseMs, writePauseMs: options.quick ? 100 : 20 });
    const listed = new Set(outcome.listedAtEnd);
    const lost = outcome.acknowledged.filter((name) => !listed.has(name)).length;
    const missed = outcome.acknowledged.filter((name) => !outcome.informerAdds.has(name)).length;
    const repeated = [...outcome.informerAdds.values()].filter((count) => count > 1).length;
    process.stdout.write(
      `\nha: a tenant's load through HAProxy while the controllers' leader is killed (SIGKILL) and then another replica restarted (SIGTERM); election lease 5 s\n`,
    );
    printTable(
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
    );
    process.stdout.write(
      [
        '',
        `writes answered in the second after the kill: ${outcome.writesInTheSecondAfterKill}`,
        `every writer succeeded again ${outcome.writerRecoveryMs} ms after the kill`,
        `a Tenant made after the kill Active (another replica's controller took over): ${outcome.controllerTakeoverMs} ms after it`,
        `failures: ${[...outcome.writers.flatMap((w) => w.failures), ...outcome.kubectl.failures].map((f) => f.message).join(' | ') || 'none'}`,
        '',
      ].join('\n'),
    );
    await saveResults('ha', {
      quick: options.quick,
      phaseMs,
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
    });
    return lost + missed + repeated;
  } finally {
    await stage.stop();
  }
}
