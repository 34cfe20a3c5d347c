/**
 * Runs one test file for test/run.ts in a process of its own and writes its outcome, as JSON, to
 * the file PADDOCK_TEST_REPORT names. Exits once the report is written, as the run's summary does.
 */
import { writeFileSync } from 'node:fs';
import { runMocha } from './mocha-run.js';

const [file, grep] = process.argv.slice(2);
const report = process.env.PADDOCK_TEST_REPORT;
if (!file || !report) throw new Error('usage: PADDOCK_TEST_REPORT=<path> node one-file.js <test file> [grep]');

const outcome = await runMocha([file], grep || undefined);
writeFileSync(report, JSON.stringify(outcome));
process.stdout.write('', () => process.exit(0));
