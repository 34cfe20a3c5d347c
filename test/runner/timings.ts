/**
 * How long each test file took in earlier runs, kept in `.timings.json` in the test directory
 * (dist/test/, so a clean clone has none), to start the longest files first: a run ends when its
 * last file does, and a file of minutes started late leaves the other cores idle at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileResult, TestFile } from './file-pool.js';
import { manifestName, type Tier } from './tiers.js';

/** Seconds a file of each tier takes when no run recorded it (the medians of a full run on 2 cores). */
const GUESS: Record<Tier, number> = { jobs: 60, e2e: 8, stage: 5, unit: 1 };

type Timings = Record<string, number>;

const timingsFile = (root: string) => path.join(root, '.timings.json');

function readTimings(root: string): Timings {
  try {
    return JSON.parse(readFileSync(timingsFile(root), 'utf8')) as Timings;
  } catch {
    return {};
  }
}

/** The files, the longest first: as recorded, else as their tier's files usually take. */
export function longestFirst(root: string, files: TestFile[]): TestFile[] {
  const timings = readTimings(root);
  const expected = ({ file, tier }: TestFile) => timings[manifestName(root, file)] ?? GUESS[tier];
  return [...files].sort((a, b) => expected(b) - expected(a));
}

/** Records this run's durations, keeping those of the files it did not run. */
export function recordTimings(root: string, results: FileResult[]): void {
  const timings = readTimings(root);
  for (const { file, seconds } of results) timings[manifestName(root, file)] = Math.round(seconds * 10) / 10;
  writeFileSync(timingsFile(root), `${JSON.stringify(timings, null, 2)}\n`);
}
