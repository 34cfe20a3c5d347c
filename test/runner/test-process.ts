/**
 * Runs test files for test/run.ts in a process of their own (one file, or a batch of unit files)
 * and writes each file's outcome and the process's CPU time, as JSON (a ProcessReport), to the
 * file PADDOCK_TEST_REPORT names. Unit files run under the unit guard, installed before they
 * load. Exits once the report is written, as the run's summary does.
 */
import { writeFileSync } from 'node:fs';
import { cpuSecondsWithChildren } from './cpu-seconds.js';
import type { ProcessReport } from './file-pool.js';
import { runMocha } from './mocha-run.js';
import { isTier } from './tiers.js';
import { installUnitGuard } from './unit-guard.js';

const [tier, grep, ...files] = process.argv.slice(2);
const report = process.env.PADDOCK_TEST_REPORT;
if (!report || !isTier(tier) || files.length === 0)
  throw new Error('usage: PADDOCK_TEST_REPORT=<path> node test-process.js <tier> <grep or ""> <test file>...');

const run = await runMocha(files, grep || undefined, tier === 'unit' ? installUnitGuard() : undefined);
// A batch that did not load leaves no report: its files are run again one at a time.
if (files.length === 1 || !run.loadFailed) {
  const written: ProcessReport = { outcomes: Object.fromEntries(run.outcomes), cpuSeconds: cpuSecondsWithChildren() };
  writeFileSync(report, JSON.stringify(written));
}
process.stdout.write('', () => process.exit(0));
