/**
 * The seed of a randomized test, so that whatever it generated can be generated again.
 *
 * PADDOCK_TEST_SEED, when set, is the seed of every randomized test in the run. Otherwise a test
 * that pinned a seed of its own keeps it, and every other test takes the run's seed, picked once
 * a process. The first use in a test file prints
 * `seed <n> (replay: PADDOCK_TEST_SEED=<n> npm test -- <file-substring>)`, and `note` says the
 * same for failure messages (a test that collects its failures rather than failing fast-check's
 * property would otherwise lose the seed).
 *
 * `seed` is what fast-check takes as `{ seed }`; `random()` is a deterministic PRNG for the rest.
 */
import { randomInt } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SEED_VARIABLE = 'PADDOCK_TEST_SEED';

/** The run's seed where the environment gives none: non-negative, and an int32 as fast-check wants. */
const picked = randomInt(2 ** 31);
/** The files (and seeds) already printed: once a file, or again if the file uses another seed. */
const printed = new Set<string>();

export interface TestSeed {
  readonly seed: number;
  /** `seed <n> (replay: PADDOCK_TEST_SEED=<n> npm test -- <file-substring>)` */
  readonly note: string;
  /** A new generator from the seed, giving numbers in [0, 1) as Math.random does. */
  readonly random: () => () => number;
}

/**
 * The seed for the test file at `fileUrl` (its `import.meta.url`): PADDOCK_TEST_SEED if set, else
 * `pinned` if the test fixed one, else the run's. Call it where the test runs (an `it` or a hook),
 * not at the top of the file, so that the line is printed next to the test's own output.
 */
export function testSeed(fileUrl: string, pinned?: number): TestSeed {
  const seed = seedFromEnvironment() ?? pinned ?? picked;
  const note = `seed ${seed} (replay: ${SEED_VARIABLE}=${seed} npm test -- ${fileSubstring(fileUrl)})`;
  const key = `${fileUrl} ${seed}`;
  if (!printed.has(key)) {
    printed.add(key);
    process.stdout.write(`      ${note}\n`);
  }
  return { seed, note, random: () => mulberry32(seed) };
}

function seedFromEnvironment(): number | undefined {
  const text = process.env[SEED_VARIABLE];
  if (text === undefined || text === '') return undefined;
  const seed = Number(text);
  // fast-check takes a 32-bit integer; it prints negative ones itself, so those are accepted too.
  if (!/^-?\d+$/.test(text.trim()) || seed !== (seed | 0))
    throw new Error(`${SEED_VARIABLE} must be a 32-bit integer, not ${JSON.stringify(text)}`);
  return seed;
}

/**
 * What the runner (dist/test/run.js) needs to select this file alone: its path under the test
 * directory without `.js`, e.g. `devcluster/hostile-input.test`.
 */
function fileSubstring(fileUrl: string): string {
  const root = process.env.PADDOCK_TEST_ROOT ?? path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const relative = path.relative(path.resolve(root), fileURLToPath(fileUrl));
  return relative.replace(/\.js$/, '');
}

/** mulberry32: a small, fast 32-bit PRNG; plenty for choosing test inputs. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
