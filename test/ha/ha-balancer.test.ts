/**
 * Replicas behind a load balancer (docs/operations.md): etcd, three `paddock serve` replicas and
 * Debian's HAProxy with deploy/haproxy.cfg, a tenant's writer, client-node informer and kubectl
 * through the balancer (bench/harness/ha-scenario.ts). The replica leading the controllers is
 * killed with SIGKILL, then another is restarted with SIGTERM: no acknowledged write is lost, the
 * informer sees every write once (its watches resumed, nothing missed or repeated), a client fails
 * at most once per connection it loses, and another replica's controller takes over.
 */
import { expect } from 'chai';
import { haReport } from '../../bench/ha.js';
import { runHaScenario, type HaOutcome } from '../../bench/harness/ha-scenario.js';
import { startHaStage, type HaStage } from '../../bench/harness/ha-stage.js';

const ELECTION_TTL_SECONDS = 3;

describe('ha: three replicas behind HAProxy, one killed and one restarted under load', function () {
  this.timeout(240_000);
  let stage: HaStage;
  let outcome: HaOutcome;

  before(async () => {
    // A short lease, so that the controllers move within the test: the default is 5 s too.
    stage = await startHaStage({
      serveArgs: ['--election-ttl', String(ELECTION_TTL_SECONDS), '--shutdown-timeout', '10s'],
    });
    outcome = await runHaScenario(stage, { phaseMs: 3000, writePauseMs: 20 });
  });
  after(async () => {
    await stage?.stop();
  });

  it('loses no acknowledged write: every 2xx is read back through the balancer', () => {
    expect(outcome.acknowledged.length, 'writes were made all along').to.be.greaterThan(50);
    const listed = new Set(outcome.listedAtEnd);
    expect(outcome.acknowledged.filter((name) => !listed.has(name))).to.deep.equal([]);
  });

  it('the informer sees each acknowledged write exactly once: its watch resumed, nothing missed or repeated', () => {
    const missed = outcome.acknowledged.filter((name) => !outcome.informerAdds.has(name));
    const repeated = [...outcome.informerAdds].filter(([, count]) => count > 1).map(([name]) => name);
    expect({ missed, repeated }).to.deep.equal({ missed: [], repeated: [] });
  });

  it('fails a client at most once per connection it loses', () => {
    for (const writer of outcome.writers) {
      expect(writer.worstRun, JSON.stringify(writer.failures)).to.be.at.most(1);
      // A writer keeps one connection: the kill can cost it one request; the graceful restart none.
      expect(writer.failures.length, JSON.stringify(writer.failures)).to.be.at.most(1);
    }
    expect(outcome.kubectl.worstRun, JSON.stringify(outcome.kubectl.failures)).to.be.at.most(1);
    expect(outcome.kubectl.requests).to.be.greaterThan(5);
  });

  it("moves the controllers to another replica: a tenant made after the leader's kill turns Active", () => {
    expect(outcome.leaderAfter).to.not.equal(outcome.killedLeader);
    expect(outcome.controllerTakeoverMs).to.be.greaterThan(0);
  });

  // The `ha` benchmark's report, made from this run: CI runs no quick `ha` of its own (test/bench/quick-run.ts).
  it('the `ha` benchmark reports this run as the tests see it: every client, nothing lost, missed or repeated', () => {
    const report = haReport(outcome, ELECTION_TTL_SECONDS);
    expect(report.failures).to.equal(0);
    expect(report.results).to.include({ acknowledged: outcome.acknowledged.length, lost: 0, missed: 0, repeated: 0 });
    for (const row of [
      `writer 0 (creates)`,
      `kubectl get`,
      `${outcome.informerErrors} watch errors`,
      `every writer succeeded again ${outcome.writerRecoveryMs} ms after the kill`,
      `election lease ${ELECTION_TTL_SECONDS} s`,
    ])
      expect(report.text).to.contain(row);
  });
});
