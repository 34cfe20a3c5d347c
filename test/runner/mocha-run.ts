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
    // Plain text whatever the terminal says: CI reads the log as text (the symbols' colour is NO_COLOR's, file-pool.ts).
    color: false,
    forbidOnly: true,
    ...(grep ? { grep } : {}),
    ...(rootHooks ? { rootHooks } : {}),
  });
}

/** Loads the files; answers why the run must not go on (a `.only`, a file that throws) and in which file, or undefined. */
async function load(mocha: Mocha, files: string[]): Promise<{ why: string; file?: string } | undefined> {
  for (const file of files) mocha.addFile(file);
  let loading: string | undefined;
  mocha.suite.on('pre-require', (_context: unknown, file: string) => (loading = file));
  return mocha.loadFilesAsync().then(
    () => undefined,
    (err: unknown) => {
      const where = loading ? path.relative(process.cwd(), loading) : 'a test file';
      const why =
        (err as { code?: unknown }).code === 'ERR_MOCHA_FORBIDDEN_EXCLUSIVITY'
          ? `${where}: \`.only\` is forbidden: it runs part of the suite and reports that part as all of it. Remove it.`
          : `${where} could not be loaded:\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
      return { why, file: loading };
    },
  );
}

/** Loads every file without running any, so a `.only` or a broken file stops the run before it starts. */
export async function loadFailure(files: string[]): Promise<string | undefined> {
  return (await load(newMocha(), files))?.why;
}

/** One file's part of a run: its outcome, and the time from its first suite's start to its last one's end. */
export interface FileOutcome extends Outcome {
  seconds: number;
}

/**
 * Runs the files in this process and answers each file's outcome. A load failure is one failure
 * of the file that failed to load, reported on stderr, and no other file runs (`loadFailed`: a
 * batch is run again one file at a time). `rootHooks` run around every test of every file (the
 * unit guard's).
 */
export async function runMocha(
  files: string[],
  grep?: string,
  rootHooks?: Mocha.RootHookObject,
): Promise<{ outcomes: Map<string, FileOutcome>; loadFailed: boolean }> {
  const outcomes = new Map<string, FileOutcome>(
    files.map((file) => [file, { passed: 0, failed: 0, pending: [], seconds: 0 }]),
  );
  const mocha = newMocha(grep, rootHooks);
  const refused = await load(mocha, files);
  if (refused !== undefined) {
    process.stderr.write(`\n${refused.why}\n`);
    outcomes.get(refused.file ?? files[0])!.failed++;
    return { outcomes, loadFailed: true };
  }
  return new Promise((resolve) => {
    /** A root hook (the guard's) has no file: it counts against the file whose test ran last. */
    let current = files[0];
    const outcomeOf = (runnable: Mocha.Runnable) => outcomes.get((current = runnable.file ?? current))!;
    const started = new Map<string, number>();
    const runner = mocha.run(() => resolve({ outcomes, loadFailed: false }));
    runner.on('test', (test) => void outcomeOf(test));
    runner.on('pass', (test) => outcomeOf(test).passed++);
    runner.on('fail', (runnable) => outcomeOf(runnable).failed++);
    runner.on('pending', (test) => outcomeOf(test).pending.push(test.fullTitle()));
    runner.on('suite', (suite) => {
      if (suite.file && !started.has(suite.file)) started.set(suite.file, performance.now());
    });
    runner.on('suite end', (suite) => {
      const outcome = suite.file ? outcomes.get(suite.file) : undefined;
      if (outcome) outcome.seconds = (performance.now() - started.get(suite.file!)!) / 1000;
    });
  });
}
