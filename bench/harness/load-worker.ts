/**
 * The load generator process: reads a LoadSpec (load.ts) as JSON on stdin, runs it over an
 * undici Pool with keep-alive (one connection per client), and prints a LoadRun as JSON (every
 * latency, so that runs can be pooled; load.ts summarizes). Every response is read to its last
 * byte before its latency is taken.
 */
import { Pool } from 'undici';
import type { LoadRun, LoadSpec, RequestTemplate } from './load.js';

interface Outcome {
  ms: number;
  bytes: number;
  error?: string;
}

class Step {
  readonly latencies: number[] = [];
  requests = 0;
  errors = 0;
  bytes = 0;
  firstError: string | undefined;
  checked = false;

  constructor(readonly template: RequestTemplate) {}

  record(outcome: Outcome, measuring: boolean): void {
    if (outcome.error !== undefined) {
      this.errors++;
      this.firstError ??= outcome.error;
    }
    if (!measuring) return;
    this.requests++;
    if (outcome.error === undefined) {
      this.latencies.push(outcome.ms);
      this.bytes += outcome.bytes;
    }
  }
}

const spec = JSON.parse(await readStdin()) as LoadSpec;
if ((spec.iterations === undefined) === (spec.durationMs === undefined))
  throw new Error('the spec needs exactly one of iterations and durationMs');
const pool = new Pool(spec.origin, {
  connections: spec.concurrency,
  connect: { ca: spec.ca, cert: spec.cert, key: spec.key },
  headersTimeout: 600_000,
  bodyTimeout: 600_000,
});
const steps = spec.templates.map((template) => new Step(template));
let next = 0;

async function send(step: Step, n: number): Promise<Outcome> {
  const { method, path, body, contentType, accept, expectItems } = step.template;
  const fill = (text: string) => text.replaceAll('{n}', String(n));
  const headers: Record<string, string> = {
    ...spec.headers,
    accept: accept ?? 'application/json',
    'accept-encoding': 'identity',
  };
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  const started = performance.now();
  try {
    const res = await pool.request({
      method: method,
      path: fill(path),
      headers,
      body: body === undefined ? undefined : fill(body),
    });
    const failed = res.statusCode < 200 || res.statusCode > 299;
    const check = !failed && expectItems !== undefined && !step.checked;
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (failed || check) chunks.push(chunk);
    }
    const ms = performance.now() - started;
    const where = `${method} ${fill(path)}`;
    if (failed)
      return {
        ms,
        bytes,
        error: `${res.statusCode} ${where}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`,
      };
    if (check) {
      step.checked = true;
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { items?: unknown[]; rows?: unknown[] };
      const count = (parsed.items ?? parsed.rows ?? []).length;
      if (count !== expectItems) return { ms, bytes, error: `${where}: ${count} items, expected ${expectItems}` };
    }
    return { ms, bytes };
  } catch (err) {
    return { ms: performance.now() - started, bytes: 0, error: `${method} ${fill(path)}: ${(err as Error).message}` };
  }
}

async function client(more: () => boolean, measuring: boolean): Promise<void> {
  while (more()) {
    const n = next++;
    for (const step of steps) step.record(await send(step, n), measuring);
  }
}

async function phase(count: number | undefined, durationMs: number | undefined, measuring: boolean): Promise<number> {
  const started = performance.now();
  let issued = 0;
  const more = () => (count !== undefined ? issued++ < count : performance.now() - started < durationMs!);
  await Promise.all(Array.from({ length: spec.concurrency }, () => client(more, measuring)));
  return (performance.now() - started) / 1000;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

await phase(spec.warmup, undefined, false);
const seconds = await phase(spec.iterations, spec.durationMs, true);
await pool.close();
const run: LoadRun = {
  seconds,
  steps: steps.map((s) => ({
    request: `${s.template.method} ${s.template.path}`,
    requests: s.requests,
    errors: s.errors,
    firstError: s.firstError,
    latenciesMs: s.latencies,
    bytes: s.bytes,
  })),
};
process.stdout.write(`${JSON.stringify(run)}\n`);
