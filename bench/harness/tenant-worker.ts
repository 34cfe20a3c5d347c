/**
 * The client process of the tenant benchmarks: creates Tenants through the gateway's admin API,
 * `concurrency` at a time, and times each from its POST until the tenant is Active, as the
 * tenant watch reports it: a watch, not polling, so a creation is timed to the event and the
 * gateway serves no GETs on the side. Reads a TenantSpec as JSON on stdin, prints a TenantRun.
 */
import { Client, Pool } from 'undici';
import { LineSplitter } from '../../apiserver/client/line-splitter.js';
import type { TenantRun, TenantSpec } from './tenant-creations.js';

const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';

const spec = JSON.parse(await readStdin()) as TenantSpec;
const connect = { ca: spec.ca, cert: spec.cert, key: spec.key };
const headers = { ...spec.headers, accept: 'application/json', 'accept-encoding': 'identity' };
const pool = new Pool(spec.origin, { connections: spec.concurrency, connect });
const watchClient = new Client(spec.origin, { connect, bodyTimeout: 0 });

/** When each tenant was first seen Active; waiters for those not yet. */
const activeAt = new Map<string, number>();
const waiting = new Map<string, () => void>();
let errors = 0;
let firstError: string | undefined;

function fail(message: string): void {
  errors++;
  firstError ??= message;
}

const listed = await pool.request({ method: 'GET', path: `${TENANTS}?limit=1`, headers });
const list = (await listed.body.json()) as { metadata?: { resourceVersion?: string } };
if (listed.statusCode !== 200)
  throw new Error(`listing tenants: ${listed.statusCode} ${JSON.stringify(list).slice(0, 300)}`);
const watch = await watchClient.request({
  method: 'GET',
  path: `${TENANTS}?watch=1&resourceVersion=${list.metadata?.resourceVersion}`,
  headers,
});
if (watch.statusCode !== 200)
  throw new Error(`watching tenants: ${watch.statusCode} ${(await watch.body.text()).slice(0, 300)}`);
const splitter = new LineSplitter();
watch.body.setEncoding('utf8');
watch.body.on('data', (chunk: string) => {
  const now = performance.now();
  for (const line of splitter.push(chunk)) {
    if (!line) continue;
    const event = JSON.parse(line) as {
      type: string;
      object: { metadata?: { name?: string }; status?: { phase?: string } };
    };
    const name = event.object.metadata?.name;
    if (event.type === 'ERROR') fail(`tenant watch: ${line.slice(0, 300)}`);
    if (!name || event.object.status?.phase !== 'Active' || activeAt.has(name)) continue;
    activeAt.set(name, now);
    waiting.get(name)?.();
  }
});
watch.body.on('error', () => undefined);

async function create(id: string): Promise<number | undefined> {
  const started = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: TENANTS,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: id } }),
  });
  const text = await res.body.text();
  if (res.statusCode !== 201) return void fail(`creating tenant ${id}: ${res.statusCode} ${text.slice(0, 300)}`);
  if (!activeAt.has(id)) {
    let timer: NodeJS.Timeout | undefined;
    const active = new Promise<boolean>((resolve) => {
      waiting.set(id, () => resolve(true));
      timer = setTimeout(() => resolve(false), spec.timeoutMs);
    });
    const inTime = await active;
    clearTimeout(timer);
    waiting.delete(id);
    if (!inTime) return void fail(`tenant ${id} not Active within ${spec.timeoutMs / 1000} s`);
  }
  return activeAt.get(id)! - started;
}

const latenciesMs: number[] = [];
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Math.min(spec.concurrency, spec.ids.length) }, async () => {
    while (next < spec.ids.length) {
      const id = spec.ids[next++];
      try {
        const ms = await create(id);
        if (ms !== undefined) latenciesMs.push(ms);
      } catch (err) {
        fail(`creating tenant ${id}: ${(err as Error).message}`);
      }
    }
  }),
);
const run: TenantRun = { seconds: (performance.now() - started) / 1000, latenciesMs, errors, firstError };
await watchClient.destroy();
await pool.close();
process.stdout.write(`${JSON.stringify(run)}\n`);

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
