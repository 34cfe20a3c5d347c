/**
 * `fair-share`: what one tenant holding its whole share of a cluster costs another. A tenant's
 * forwarded GET (its `default` ServiceAccount, not among the cached resources) by 4 clients,
 * in turns on an idle gateway and while a second tenant keeps its share of the cluster's seats
 * and its queue full with large lists it never reads (8 objects of 1 MB each, so every one holds
 * its seat), sending again a second after each 429 as client-go waits out Retry-After. The
 * ratio of the two p99s is what the second tenant costs the first (docs/isolation.md, "Fair
 * sharing of a cluster"); before the seats, such lists held every pooled connection to the
 * cluster and the first tenant's requests waited until they timed out.
 */
import { withEnvironment, type BenchOptions, QUICK_RUN_MS, QUICK_WARMUP } from './harness/environment.js';
import { UpstreamWriter } from './harness/fixtures.js';
import { runLoad, summarize, type LoadRun } from './harness/load.js';
import { caseOf, formatMs, formatRatio, progress, report, type CaseResult } from './harness/results.js';
import { sleep } from './harness/sleep.js';
import type { Target } from './harness/target.js';
import { createBenchTenant } from './harness/tenant.js';
import { printTable } from './table.js';
import { NeverReadingClient } from '../test/support/never-reading-client.js';

const TENANT = 'benfai';
const HOG = 'benhog';
const CLIENTS = 4;
/** Saturated turns, each between two idle ones. */
/** Saturated turns (quick: one, enough to see the hog hold its share and the GET answered beside it). */
const ROUNDS = 2;
/** The pause after a saturated turn, while both servers let go of the hog's lists. */
const SETTLE_MS = 2000;
const REVISIONS = 8;
const REVISION_BYTES = 1_000_000;
/**
 * The tenant's share, given as flags so that the benchmark says what it measured: the gateway's
 * defaults, or a small share for a quick run, whose hog then sends a sixth of the lists (each of
 * REVISIONS x REVISION_BYTES: 90 of them were 0.7 GB of JSON for the devcluster to write).
 */
interface Share {
  seats: number;
  queue: number;
}
const DEFAULT_SHARE: Share = { seats: 32, queue: 50 };
const QUICK_SHARE: Share = { seats: 4, queue: 6 };
/** The hog's lists kept open: its seats, its queue, and some beyond them that are refused. */
const hogLists = (share: Share) => share.seats + share.queue + 8;
const HOG_PATH = '/apis/apps/v1/namespaces/default/controllerrevisions';
const CASE = "forwarded GET of one tenant's own ServiceAccount";

export async function benchFairShare(options: BenchOptions): Promise<number> {
  const shape = {
    concurrency: CLIENTS,
    warmup: options.quick ? QUICK_WARMUP : 200,
    durationMs: options.quick ? QUICK_RUN_MS : 8000,
  };
  const rounds = options.quick ? 1 : ROUNDS;
  const share = options.quick ? QUICK_SHARE : DEFAULT_SHARE;
  const { result, run } = await withEnvironment(
    options,
    async (env) => {
      const tenant = await createBenchTenant(env, TENANT);
      const hog = await createBenchTenant(env, HOG);
      const writer = new UpstreamWriter(env.upstreamAdmin);
      const blob = 'x'.repeat(REVISION_BYTES);
      for (let i = 0; i < REVISIONS; i++)
        await writer.create(`/apis/apps/v1/namespaces/${HOG}-default/controllerrevisions`, {
          apiVersion: 'apps/v1',
          kind: 'ControllerRevision',
          metadata: { name: `big${i}` },
          revision: i + 1,
          data: { blob },
        });
      await writer.close();
      const get = [{ method: 'GET', path: '/api/v1/namespaces/default/serviceaccounts/default' }];
      // Idle and saturated in turns, idle first and last, so that neither a cold start nor a warm
      // end is only one side's; the hog fills its share afresh for each saturated turn.
      const idlePart = { ...shape, durationMs: shape.durationMs / (rounds + 1) };
      const saturatedPart = { ...shape, durationMs: shape.durationMs / rounds };
      const idle: LoadRun[] = [];
      const saturated: LoadRun[] = [];
      for (let round = 0; round <= rounds; round++) {
        progress(`idle gateway (${round + 1}/${rounds + 1})`);
        idle.push(await runLoad(tenant.gateway, get, idlePart));
        if (round === rounds) break;
        const load = new HogLoad(hog.gateway, share);
        try {
          await load.untilHolding();
          progress(`another tenant holding its share (${round + 1}/${rounds}): ${load.answering} lists unread`);
          saturated.push(await runLoad(tenant.gateway, get, saturatedPart));
          progress(`another tenant held ${load.answering} lists unread; ${load.refused} refused 429 meanwhile`);
        } finally {
          await load.stop();
        }
        // The next idle turn measures an idle gateway, not one tearing down the hog's connections.
        await sleep(SETTLE_MS);
      }
      return [caseOf(CASE, CLIENTS, summarize(idle), summarize(saturated))];
    },
    ['--tenant-upstream-seats', String(share.seats), '--tenant-queue-length', String(share.queue)],
  );
  return report('fair-share', options.quick, result, run, (name, quick, cases) =>
    printFairShare(name, quick, cases, share),
  );
}

/**
 * The tenant that holds its share: its seats, its queue and 8 more large lists open at once,
 * never read; each refused one sent again after its Retry-After, so its seats and queue stay full.
 */
class HogLoad {
  private readonly client: NeverReadingClient;
  private stopped = false;
  private readonly loops: Promise<void>[];
  answering = 0;
  refused = 0;

  constructor(
    target: Target,
    private readonly share: Share,
  ) {
    this.client = new NeverReadingClient(new URL(target.origin), target);
    this.loops = Array.from({ length: hogLists(share) }, () => this.keepOpen());
  }

  /** Until the hog's share answers (unread) and the lists past its queue have been refused. */
  async untilHolding(): Promise<void> {
    const deadline = Date.now() + 120_000;
    while (this.answering < this.share.seats || this.refused === 0) {
      if (Date.now() > deadline)
        throw new Error(`the hog holds ${this.answering} lists and had ${this.refused} refused after 120 s`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.client.close();
    await Promise.all(this.loops);
  }

  private async keepOpen(): Promise<void> {
    while (!this.stopped) {
      try {
        const answer = await this.client.get(HOG_PATH);
        if (answer.status === 200) {
          // Held until the gateway cuts it (60 s unread) or the benchmark ends.
          this.answering++;
          return;
        }
        this.refused++;
        await answer.body;
        await sleep(Number(answer.headers['retry-after'] ?? 1) * 1000);
      } catch {
        if (!this.stopped) await sleep(1000);
      }
    }
  }
}

function printFairShare(name: string, quick: boolean, cases: CaseResult[], share: Share): void {
  process.stdout.write(
    `\n${name}${quick ? ' (quick)' : ''}: the same GET on an idle gateway and while another tenant holds its ${share.seats} seats and ${share.queue} queued lists unread; ratios are saturated/idle (goal: p99 within 2x)\n`,
  );
  printTable(
    [name, 'clients', 'p50 idle ms', 'p50 saturated ms', 'p50 ratio', 'p99 idle ms', 'p99 saturated ms', 'p99 ratio'],
    cases.map((c) => [
      c.name,
      String(c.concurrency),
      formatMs(c.direct.p50Ms),
      formatMs(c.gateway.p50Ms),
      formatRatio(c.ratios.p50),
      formatMs(c.direct.p99Ms),
      formatMs(c.gateway.p99Ms),
      formatRatio(c.ratios.p99),
    ]),
  );
}
