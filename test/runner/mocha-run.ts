/**
 * Mocha over a set of test files, with the rules of test/run.ts: `.only` forbidden, a file that
 * cannot be loaded is a failure, pending tests listed. One process runs one set: ES modules load
 * once per process, so a file loaded to be checked cannot be loaded again to be run.
 */
import Mocha from 'mocha';
import path from 'node:path';

/** What a run came to: pending tests are named, and counted as failures by the summary. */
export interface Outcome {
  passed: number;
  failed: number;
  pending: string[];
}

function newMocha(grep?: string, rootHooks?: Mocha.RootHookObject): Mocha {
  return new Mocha({
    timeout: 60_000,
    reporter: 'spec',
    forbidOnly: true,
    ...(grep ? { grep } : {}),
    ...(rootHooks ? { rootHooks } : {}),
  });
}

/** Loads the files; answers why the run must not go on (a `.only`, a file that throws), or undefined. */
async function load(mocha: Mocha, files: string[]): Promise<string | undefined> {
  for (const file of files) mocha.addFile(file);
  let loading: string | undefined;
  mocha.suite.on('pre-require', (_context: unknown, file: string) => (loading = file));
  return mocha.loadFilesAsync().then(
    () => undefined,
    (err: unknown) => {
      const where = loading ? path.relative(process.cwd(), loading) : 'a test file';
      return (err as { code?: unknown }).code === 'ERR_MOCHA_FORBIDDEN_EXCLUSIVITY'
        ? `${where}: \`.only\` is forbidden: it runs part of the suite and reports that part as all of it. Remove it.`
        : `${where} could not be loaded:\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
    },
  );
}

/** Loads every file without running any, so a `.only` or a broken file stops the run before it starts. */
export function loadFailure(files: string[]): Promise<string | undefined> {
  return load(newMocha(), files);
}

/**
 * Runs the files in this process and answers the outcome; a load failure is one failure, reported
 * on stderr. `rootHooks` run around every test of every file (the unit guard's).
 */
export async function runMocha(files: string[], grep?: string, rootHooks?: Mocha.RootHookObject): Promise<Outcome> {
  const mocha = newMocha(grep, rootHooks);
  const refused = await load(mocha, files);
  if (refused !== undefined) {
    process.stderr.write(`\n${refused}\n`);
    return { passed: 0, failed: 1, pending: [] };
  }
  return new Promise((resolve) => {
    const outcome: Outcome = { passed: 0, failed: 0, pending: [] };
    const runner = mocha.run(() => resolve(outcome));
    runner.on('pass', () => outcome.passed++);
    runner.on('fail', () => outcome.failed++);
    runner.on('pending', (test) => outcome.pending.push(test.fullTitle()));
  });
}
