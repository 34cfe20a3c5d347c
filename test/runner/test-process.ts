/**
 * Runs one test file for test/run.ts in a process of its own and writes its outcome, as JSON, to
 * the file PADDOCK_TEST_REPORT names. A unit file runs under the unit guard, installed before the
 * file loads. Exits once the report is written, as the run's summary does.
 */
import { writeFileSync } from 'node:fs';
import { runMocha } from './mocha-run.js';
import { isTier } from './tiers.js';
import { installUnitGuard } from './unit-guard.js';

const [file, tier, grep] = process.argv.slice(2);
const report = process.env.PADDOCK_TEST_REPORT;
if (!file || !report || !isTier(tier))
  throw new Error('usage: PADDOCK_TEST_REPORT=<path> node one-file.js <test file> <tier> [grep]');

const outcome = await runMocha([file], grep || undefined, tier === 'unit' ? installUnitGuard() : undefined);
writeFileSync(report, JSON.stringify(outcome));
process.stdout.write('', () => process.exit(0));
