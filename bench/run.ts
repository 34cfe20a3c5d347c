/**
 * `npm run bench -- NAME`: runs one benchmark and prints its table. Benchmarks measure; they
 * never assert a timing.
 */
import { benchDevcluster } from './devcluster.js';
import { benchStore } from './store.js';
import { benchTenants } from './tenants.js';

const benchmarks: Record<string, () => Promise<void>> = { store: benchStore, devcluster: benchDevcluster, tenants: benchTenants };

const name = process.argv[2];
const run = name ? benchmarks[name] : undefined;
if (!run) {
  process.stderr.write(`usage: npm run bench -- ${Object.keys(benchmarks).join('|')}\n`);
  process.exitCode = 2;
} else {
  await run();
}
