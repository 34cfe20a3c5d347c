/**
 * The tiers a test file belongs to, read from the manifest `tiers.js` at the top of the test
 * directory (test/tiers.ts; a fixture directory of the runner's own tests may hold one, or none).
 * The manifest names every file that is not a unit file; any other file is unit, and runs under
 * the unit guard (unit-guard.ts), so a file left unnamed that starts a process fails there.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** In the order a run without recorded timings starts them: the longest kinds of file first. */
export const TIERS = ['jobs', 'e2e', 'stage', 'unit'] as const;
export type Tier = (typeof TIERS)[number];

/** A manifest: the files of each tier but unit, as paths under the test directory without `.test.js`. */
export type TierManifest = Record<Exclude<Tier, 'unit'>, string[]>;

export const isTier = (name: string): name is Tier => (TIERS as readonly string[]).includes(name);

/** A file's name in the manifest: its path under the test directory, without `.test.js`. */
export const manifestName = (root: string, file: string) =>
  path
    .relative(root, file)
    .split(path.sep)
    .join('/')
    .replace(/\.test\.js$/, '');

/**
 * Answers the tier of every file under `root` (`files`: all of them, not a filtered part), or
 * why the manifest cannot be used: a name that is no test file, or a file named twice.
 */
export async function tiersOf(
  root: string,
  files: string[],
): Promise<{ tierOf: (file: string) => Tier } | { problem: string }> {
  const manifestFile = path.join(root, 'tiers.js');
  const manifest: Partial<TierManifest> = existsSync(manifestFile)
    ? ((await import(pathToFileURL(manifestFile).href)) as { NOT_UNIT: TierManifest }).NOT_UNIT
    : {};
  const known = new Set(files.map((file) => manifestName(root, file)));
  const named = new Map<string, Tier>();
  const problems: string[] = [];
  for (const tier of TIERS) {
    if (tier === 'unit') continue;
    for (const name of manifest[tier] ?? []) {
      if (!known.has(name)) problems.push(`${name} (${tier}) is no test file: it was moved or deleted`);
      else if (named.has(name)) problems.push(`${name} is named twice: ${named.get(name)} and ${tier}`);
      else named.set(name, tier);
    }
  }
  if (problems.length > 0) return { problem: `the test tiers (tiers.js) are wrong:\n  ${problems.join('\n  ')}` };
  return { tierOf: (file) => named.get(manifestName(root, file)) ?? 'unit' };
}
