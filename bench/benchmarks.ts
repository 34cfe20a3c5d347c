/**
 * Every benchmark `npm run bench` knows, by name: how it runs and what it needs besides Node.
 * The test files that run them at their quick size (test/bench/) are checked against this list.
 */
import { benchCache } from './cache.js';
import { benchCreate } from './create.js';
import { benchDevcluster } from './devcluster.js';
import { benchEviction } from './eviction.js';
import { benchFairShare } from './fair-share.js';
import { benchGet } from './get.js';
import { benchHa } from './ha.js';
import type { BenchOptions } from './harness/environment.js';
import { benchList } from './list.js';
import type { Prerequisite } from './harness/prerequisites.js';
import { benchMemory } from './memory.js';
import { benchStore } from './store.js';
import { benchTenantListAll } from './tenant-list-all.js';
import { benchTenants } from './tenants.js';
import { benchWatch } from './watch.js';

export interface Benchmark {
  /** Resolves to the number of failed requests. */
  run(options: BenchOptions): Promise<number>;
  /** Runs as separate devcluster, gateway and load processes, so it has --quick and --cpu-prof. */
  processes: boolean;
  /** The programs it runs besides Node. */
  needs: Prerequisite[];
}

const inProcess = (run: () => Promise<void>, needs: Prerequisite[] = []): Benchmark => ({
  run: async () => (await run(), 0),
  processes: false,
  needs,
});
const separate = (run: (options: BenchOptions) => Promise<number>, needs: Prerequisite[] = []): Benchmark => ({
  run,
  processes: true,
  needs,
});

export const BENCHMARKS: Record<string, Benchmark> = {
  store: inProcess(benchStore, ['etcd']),
  devcluster: inProcess(benchDevcluster, ['etcd']),
  get: separate(benchGet, ['haproxy']),
  create: separate(benchCreate),
  list: separate(benchList),
  'tenant-list-all': separate(benchTenantListAll),
  watch: separate(benchWatch),
  tenants: separate(benchTenants),
  memory: separate(benchMemory),
  cache: separate(benchCache),
  eviction: separate(benchEviction),
  'fair-share': separate(benchFairShare),
  ha: separate(benchHa, ['etcd', 'haproxy']),
};

/** The benchmarks that run in processes of their own, so have a --quick size. */
export const QUICK_BENCHMARKS = Object.keys(BENCHMARKS).filter((name) => BENCHMARKS[name].processes);
