/**
 * A benchmark's outcome: a table on stdout, with the direct path and the gateway side by side
 * and their ratios, and the same as JSON in bench/results/NAME.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { printTable } from '../table.js';
import type { EnvironmentRun } from './environment.js';
import type { RequestSummary } from './load.js';
import { RESULTS_DIR } from './locations.js';
import { printTopSelfTime } from './profile.js';

/** One row: the same operation measured on the direct path and through the gateway, in one run. */
export interface CaseResult {
  name: string;
  concurrency: number;
  direct: RequestSummary;
  gateway: RequestSummary;
  /** How many times worse the gateway is: gateway/direct for latency, direct/gateway for throughput. */
  ratios: { p50: number; p99: number; throughput: number };
}

export function caseOf(name: string, concurrency: number, direct: RequestSummary, gateway: RequestSummary): CaseResult {
  return {
    name,
    concurrency,
    direct,
    gateway,
    ratios: {
      p50: gateway.p50Ms / direct.p50Ms,
      p99: gateway.p99Ms / direct.p99Ms,
      throughput: direct.throughputPerSec / gateway.throughputPerSec,
    },
  };
}

/** The p50 and p99 latency columns every side-by-side table has: direct, gateway, ratio. */
export const LATENCY_COLUMNS = [
  'p50 direct ms',
  'p50 gateway ms',
  'p50 ratio',
  'p99 direct ms',
  'p99 gateway ms',
  'p99 ratio',
];

type Percentiles = { p50Ms: number; p99Ms: number };

/** The cells under LATENCY_COLUMNS. */
export function latencyCells(c: {
  direct: Percentiles;
  gateway: Percentiles;
  ratios: { p50: number; p99: number };
}): string[] {
  return [
    formatMs(c.direct.p50Ms),
    formatMs(c.gateway.p50Ms),
    formatRatio(c.ratios.p50),
    formatMs(c.direct.p99Ms),
    formatMs(c.gateway.p99Ms),
    formatRatio(c.ratios.p99),
  ];
}

/** Progress of a long benchmark, on stderr so stdout holds only the tables. */
export function progress(line: string): void {
  process.stderr.write(`  ${line}\n`);
}

/** Prints the table, writes the JSON, and returns how many requests failed. */
export async function report(
  name: string,
  quick: boolean,
  cases: CaseResult[],
  { memory, cpuProfiles }: EnvironmentRun,
  printCases: (name: string, quick: boolean, cases: CaseResult[]) => void = printCaseTable,
): Promise<number> {
  printCases(name, quick, cases);
  process.stdout.write(
    `memory at the end: gateway RSS ${mib(memory.gatewayRssBytes)}, devcluster RSS ${mib(memory.devclusterRssBytes)}\n`,
  );
  let errors = 0;
  // One measurement may stand in several rows (a gateway list against two direct lists).
  const counted = new Set<RequestSummary>();
  for (const c of cases) {
    for (const [side, summary] of [
      ['direct', c.direct],
      ['gateway', c.gateway],
    ] as const) {
      if (!summary.errors || counted.has(summary)) continue;
      counted.add(summary);
      errors += summary.errors;
      process.stdout.write(
        `ERRORS: ${c.name}, ${side}: ${summary.errors} failed requests; first: ${summary.firstError}\n`,
      );
    }
  }
  await saveResults(name, { quick, memory, cpuProfiles, cases });
  await printProfiles(cpuProfiles);
  return errors;
}

/** One row per case: its direct and gateway figures side by side, and their ratios. */
function printCaseTable(name: string, quick: boolean, cases: CaseResult[]): void {
  process.stdout.write(
    `\n${name}${quick ? ' (quick)' : ''}: ratios are gateway/direct for latency and direct/gateway for throughput, so each says how many times slower the gateway path is (1.00x: no cost)\n`,
  );
  printTable(
    [name, 'clients', ...LATENCY_COLUMNS, 'direct req/s', 'gateway req/s', 'req/s ratio'],
    cases.map((c) => [
      c.name,
      String(c.concurrency),
      ...latencyCells(c),
      formatPerSecond(c.direct.throughputPerSec),
      formatPerSecond(c.gateway.throughputPerSec),
      formatRatio(c.ratios.throughput),
    ]),
  );
}

// A side whose every request failed has no latency (null once through JSON).
const shown = (format: (n: number) => string) => (n: number | null) =>
  n === null || !Number.isFinite(n) ? '-' : format(n);
export const formatMs = shown((n) => (n < 10 ? n.toFixed(2) : n.toFixed(1)));
export const formatPerSecond = shown((n) => (n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US')));
export const formatRatio = shown((n) => `${n >= 0.1 ? n.toFixed(2) : n.toPrecision(2)}x`);

/** Writes bench/results/NAME.json: the name, the date, the machine, then `fields`; prints where. */
export async function saveResults(name: string, fields: Record<string, unknown>): Promise<void> {
  const cpus = os.cpus();
  const machine = {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  await writeFile(file, `${JSON.stringify({ name, date: new Date().toISOString(), machine, ...fields }, null, 2)}\n`);
  process.stdout.write(`results: ${path.relative(process.cwd(), file)}\n`);
}

/** With --cpu-prof: where each gateway profile is, and its top functions. */
export async function printProfiles(cpuProfiles: string[], processName = 'gateway'): Promise<void> {
  for (const profile of cpuProfiles) {
    process.stdout.write(`${processName} CPU profile: ${path.relative(process.cwd(), profile)}\n`);
    await printTopSelfTime(profile, undefined, processName);
  }
}

export function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`;
}
