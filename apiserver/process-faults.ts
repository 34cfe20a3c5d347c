/**
 * What escapes every handler of a long-running server: a promise nobody awaits that rejects, an
 * exception thrown inside an event listener. Node's default is to end the process, which in a
 * gateway means one tenant's hang-up at an unlucky moment stops every tenant. So the servers
 * (`paddock serve`, `paddock devcluster`) report such faults instead — a JSON line on stderr with
 * what was running, and `paddock_process_faults_total` — and keep serving: the request the fault
 * came from is lost, the shared state is not, since every shared structure here is updated in
 * synchronous steps that a throw in a later listener cannot leave half done.
 */
import { Counter } from 'prom-client';
import { errorText, logger } from '../log/log.js';

/**
 * Faults are JSON in either format: in text mode the line they always were,
 * `{"level":"error","msg":"fault","kind":…,"context":…,"error":…}`; in json mode an entry like any other.
 */
const log = logger('process', {
  text: ({ level, msg, fields }) => JSON.stringify({ level, msg, ...fields }),
});

export type FaultKind = 'unhandledRejection' | 'uncaughtException' | 'detached';

/** Registered by each server's metrics registry (gateway/observability/metrics.ts); counts for the whole process. */
export const processFaults = new Counter({
  name: 'paddock_process_faults_total',
  help: 'Errors no handler caught (a rejected promise nobody awaited, a throw in an event listener), by kind.',
  labelNames: ['kind'] as const,
  registers: [],
});

/** Set once writing to stderr failed (its reader is gone): faults are then only counted. */
let stderrGone = false;

export function reportFault(kind: FaultKind, context: string, err: unknown): void {
  processFaults.inc({ kind });
  if (stderrGone) return;
  log.error('fault', { kind, context, error: errorText(err) });
}

/**
 * Work that runs beside the caller (a watch's pump, a controller's worker): its failure is
 * reported under `context` rather than left to end the process.
 */
export function detach(work: Promise<unknown>, context: string): void {
  work.catch((err: unknown) => reportFault('detached', context, err));
}

let installed = false;

/** Once per process, by the commands that run servers (not by libraries: tests run many in one process). */
export function installFaultHandlers(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason) => reportFault('unhandledRejection', 'a promise nobody awaited', reason));
  process.on('uncaughtException', (err, origin) => reportFault('uncaughtException', origin, err));
  // A reader of the output that went away (the pipe of a parent that died) is no fault of the
  // server: what it writes there is dropped. Unheard, the error would be an uncaught exception,
  // reported on the same broken stderr, failing again: a loop that kept an orphaned devcluster
  // at full CPU, deaf to SIGTERM.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => (stderrGone = true));
}
