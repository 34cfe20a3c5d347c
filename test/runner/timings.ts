/**
 * The order and the processes test files run in. How long each file took in earlier runs is kept
 * in `.timings.json` in the test directory (dist/test/, so a clean clone has none), over the
 * durations of a full run kept with the sources (test/expected-seconds.json: CI runs from a clean
 * clone, and without them it started the minutes-long files wherever they fell), to start the
 * longest first: a run ends when its last file does, and a file of minutes started late leaves
 * the other cores idle at the end. After a full run that changed the suite's shape, copy
 * dist/test/.timings.json to test/expected-seconds.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Batch, FileResult, TestFile } from './file-pool.js';
import { manifestName, type Tier } from './tiers.js';

/** Seconds a file of each tier takes when no run recorded it: the medians of a full run on 2 cores. */
const GUESS: Record<Tier, number> = { jobs: 78, e2e: 5.3, stage: 4.2, unit: 0.4 };

type Timings = Record<string, number>;

const timingsFile = (root: string) => path.join(root, '.timings.json');
/** root is dist/test: the sources' test/ is two levels up. */
const expectedFile = (root: string) => path.join(root, '..', '..', 'test', 'expected-seconds.json');

function readJson(file: string): Timings {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Timings;
  } catch {
    return {};
  }
}

const readTimings = (root: string): Timings => readJson(timingsFile(root));

/**
 * The processes to run, the longest first: a file of the stage, e2e or jobs tier alone, the unit
 * files in `jobs` batches of about the same length. A file is expected to take as long as it took
 * last time, else as long as the full run kept with the sources says, else as long as its tier's
 * files usually take.
 */
export function schedule(root: string, files: TestFile[], jobs: number): Batch[] {
  const timings = { ...readJson(expectedFile(root)), ...readTimings(root) };
  const expected = ({ file, tier }: TestFile) => timings[manifestName(root, file)] ?? GUESS[tier];
  const length = (batch: Batch) => batch.reduce((sum, file) => sum + expected(file), 0);
  const longestFirst = [...files].sort((a, b) => expected(b) - expected(a));
  const unit = longestFirst.filter(({ tier }) => tier === 'unit');
  const unitBatches: Batch[] = Array.from({ length: Math.min(Math.max(1, jobs), unit.length) }, () => []);
  // The shortest batch, the one with fewer files on a tie: files recorded at 0 s (a file of one
  // quick test) would otherwise all go to the first batch and leave another empty.
  const shorter = (a: Batch, b: Batch) => length(a) < length(b) || (length(a) === length(b) && a.length < b.length);
  for (const file of unit)
    unitBatches.reduce((shortest, batch) => (shorter(batch, shortest) ? batch : shortest)).push(file);
  const alone = longestFirst.filter(({ tier }) => tier !== 'unit').map((file) => [file]);
  return [...alone, ...unitBatches].sort((a, b) => length(b) - length(a));
}

/** Records this run's durations, keeping those of the files it did not run. */
export function recordTimings(root: string, results: FileResult[]): void {
  const timings = readTimings(root);
  for (const { file, seconds } of results) timings[manifestName(root, file)] = Math.round(seconds * 10) / 10;
  writeFileSync(timingsFile(root), `${JSON.stringify(timings, null, 2)}\n`);
}
