/**
 * The load generator process: reads LoadSpecs (load.ts), one JSON line each on stdin, runs each
 * over undici Pools of its own with keep-alive (one connection per client, closed when the run
 * ends), and prints its LoadRun as one JSON line (every latency, so that runs can be pooled;
 * load.ts summarizes). Every response is read to its last byte before its latency is taken. It
 * serves runs one after another until stdin ends: a process a run cost 0.3 s of CPU to start,
 * a good part of a quick benchmark's.
 */
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import type { LoadRun, LoadSpec, RequestTemplate } from './load.js';
import type { Target } from './target.js';

interface Outcome {
  ms: number;
  bytes: number;
  error?: string;
  /** A page of a paged list: its item count and continue token. */
  page?: { items: number; continue: string };
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

const poolOf = (spec: LoadSpec, target: Target) =>
  new Pool(target.origin, {
    connections: spec.concurrency,
    connect: { ca: target.ca, cert: target.cert, key: target.key },
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });

/** One spec's run: its pools, its steps' records, its iterations. */
class LoadRunner {
  private readonly pool: Pool;
  private readonly otherPools: Pool[];
  private readonly steps: Step[];
  private readonly iterationsMs: number[] = [];
  private next = 0;

  constructor(private readonly spec: LoadSpec) {
    if ((spec.iterations === undefined) === (spec.durationMs === undefined))
      throw new Error('the spec needs exactly one of iterations and durationMs');
    this.pool = poolOf(spec, spec);
    this.otherPools = (spec.targets ?? []).map((target) => poolOf(spec, target));
    this.steps = spec.templates.map((template) => new Step(template));
  }

  async run(): Promise<LoadRun> {
    await this.phase(this.spec.warmup, undefined, false);
    const seconds = await this.phase(this.spec.iterations, this.spec.durationMs, true);
    await Promise.all([this.pool, ...this.otherPools].map((p) => p.close()));
    return {
      seconds,
      iterationsMs: this.iterationsMs,
      steps: this.steps.map((s) => ({
        request: `${s.template.method} ${s.template.path}`,
        requests: s.requests,
        errors: s.errors,
        firstError: s.firstError,
        latenciesMs: s.latencies,
        bytes: s.bytes,
      })),
    };
  }

  /** A template's request, or with `pages` every page of it, read to the last byte. */
  private async send(step: Step, n: number): Promise<Outcome> {
    const { path, pages, expectItems } = step.template;
    if (!pages) return this.sendOne(step, n, path);
    let total: Outcome = { ms: 0, bytes: 0 };
    let items = 0;
    let page = path;
    for (;;) {
      const outcome = await this.sendOne(step, n, page, true);
      total = { ms: total.ms + outcome.ms, bytes: total.bytes + outcome.bytes, error: outcome.error };
      if (outcome.error !== undefined || outcome.page === undefined) return total;
      items += outcome.page.items;
      if (outcome.page.continue === '') break;
      page = `${path}${path.includes('?') ? '&' : '?'}continue=${encodeURIComponent(outcome.page.continue)}`;
    }
    if (expectItems !== undefined && items !== expectItems)
      return {
        ...total,
        error: `${step.template.method} ${path}: ${items} items over all pages, expected ${expectItems}`,
      };
    return total;
  }

  private async sendOne(step: Step, n: number, path: string, paging = false): Promise<Outcome> {
    const { method, body, contentType, accept, expectItems, target } = step.template;
    const fill = (text: string) => text.replaceAll('{n}', String(n));
    const headers: Record<string, string> = {
      ...(target === undefined ? this.spec : this.spec.targets![target]).headers,
      accept: accept ?? 'application/json',
      'accept-encoding': 'identity',
    };
    if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
    const started = performance.now();
    try {
      const res = await (target === undefined ? this.pool : this.otherPools[target]).request({
        method: method,
        path: fill(path),
        headers,
        body: body === undefined ? undefined : fill(body),
      });
      const failed = res.statusCode < 200 || res.statusCode > 299;
      const check = !failed && (paging || (expectItems !== undefined && !step.checked));
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
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          items?: unknown[];
          rows?: unknown[];
          metadata?: { continue?: string };
        };
        const count = (parsed.items ?? parsed.rows ?? []).length;
        if (paging) return { ms, bytes, page: { items: count, continue: parsed.metadata?.continue ?? '' } };
        step.checked = true;
        if (count !== expectItems) return { ms, bytes, error: `${where}: ${count} items, expected ${expectItems}` };
      }
      return { ms, bytes };
    } catch (err) {
      return { ms: performance.now() - started, bytes: 0, error: `${method} ${fill(path)}: ${(err as Error).message}` };
    }
  }

  private async client(more: () => boolean, measuring: boolean): Promise<void> {
    while (more()) {
      const n = this.next++;
      const started = performance.now();
      const outcomes: Outcome[] = [];
      if (this.spec.stepsAtOnce) outcomes.push(...(await Promise.all(this.steps.map((step) => this.send(step, n)))));
      else for (const step of this.steps) outcomes.push(await this.send(step, n));
      outcomes.forEach((outcome, i) => this.steps[i].record(outcome, measuring));
      if (measuring && outcomes.every((outcome) => outcome.error === undefined))
        this.iterationsMs.push(performance.now() - started);
    }
  }

  private async phase(count: number | undefined, durationMs: number | undefined, measuring: boolean): Promise<number> {
    const started = performance.now();
    let issued = 0;
    const more = () => (count !== undefined ? issued++ < count : performance.now() - started < durationMs!);
    await Promise.all(Array.from({ length: this.spec.concurrency }, () => this.client(more, measuring)));
    return (performance.now() - started) / 1000;
  }
}

// One spec a line, its run a line, in order, until stdin ends.
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const run = await new LoadRunner(JSON.parse(line) as LoadSpec).run();
  process.stdout.write(`${JSON.stringify(run)}\n`);
}
