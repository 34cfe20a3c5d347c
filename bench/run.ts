/**
 * `npm run bench -- [NAME...] [--quick] [--cpu-prof]`: runs the named benchmarks (all without
 * names) and prints their tables. Benchmarks measure; they never assert a timing. The exit code
 * is non-zero when a benchmark failed or any of its requests did.
 */
import { parseArgs } from 'node:util';
import { BENCHMARKS, type Benchmark } from './benchmarks.js';
import type { BenchOptions } from './harness/environment.js';
import { ensurePrerequisites } from './harness/prerequisites.js';

const USAGE = `usage: npm run bench -- [NAME...] [--quick] [--cpu-prof]
  NAME        ${Object.keys(BENCHMARKS).join(' | ')} (default: all; with --quick, all that have a quick size)
  --quick     small sizes, to check that the benchmarks run: ${names((b) => b.processes).join(', ')}
  --cpu-prof  profile the gateway process's CPU into bench/results/profiles and print its top functions`;

function names(filter: (b: Benchmark) => boolean): string[] {
  return Object.keys(BENCHMARKS).filter((name) => filter(BENCHMARKS[name]));
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { quick: { type: 'boolean', default: false }, 'cpu-prof': { type: 'boolean', default: false } },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const options: BenchOptions = { quick: parsed.values.quick, cpuProf: parsed.values['cpu-prof'] };
  const flagged = options.quick || options.cpuProf;
  const selected = parsed.positionals.length ? parsed.positionals : names((b) => !flagged || b.processes);
  const unknown = selected.filter((name) => !Object.hasOwn(BENCHMARKS, name));
  if (unknown.length) return usage(`unknown benchmark ${unknown.join(', ')}`);
  const inProcessOnes = selected.filter((name) => !BENCHMARKS[name].processes);
  if (flagged && inProcessOnes.length)
    return usage(`no --quick or --cpu-prof for the in-process benchmarks: ${inProcessOnes.join(', ')}`);

  const needed = [...new Set(selected.flatMap((name) => BENCHMARKS[name].needs))];
  if (!(await ensurePrerequisites(needed))) return 1;

  let ran = 0;
  const failed: string[] = [];
  for (const name of selected) {
    const started = performance.now();
    process.stderr.write(`bench ${name}\n`);
    try {
      const errors = await BENCHMARKS[name].run(options);
      if (errors) failed.push(`${name} (${errors} failed requests)`);
      else ran++;
    } catch (err) {
      process.stderr.write(`bench ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
      // The reason on the summary line too: the stack above may be far behind the run's last lines.
      failed.push(`${name} (${(err as Error).message ?? String(err)})`);
    }
    process.stderr.write(`bench ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  if (failed.length) process.stdout.write(`\nfailed: ${failed.join(', ')}\n`);
  if (options.quick)
    process.stdout.write(`bench quick: ${ran} benchmarks ran${failed.length ? `, ${failed.length} failed` : ''}\n`);
  return failed.length ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
