/**
 * `watch`'s floor: what one TLS write per event per watcher costs Node here, measured by a
 * process that does nothing else (tls-write-floor-server.ts) while this one holds the watches
 * and reads them.
 */
import { spawnProgram } from '../../processes/spawn-program.js';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { TLS_WRITE_FLOOR_SERVER } from './locations.js';

export interface TlsWriteFloor {
  events: number;
  cpuSeconds: number;
  eventsPerCpuSecond: number;
}

export async function measureTlsWriteFloor(
  watchers: number,
  eventsPerSec: number,
  seconds: number,
  eventBytes: number,
): Promise<TlsWriteFloor> {
  let startError: Error | undefined;
  const child = spawnProgram(
    process.execPath,
    [TLS_WRITE_FLOOR_SERVER, ...[watchers, eventsPerSec, seconds, Math.max(64, Math.round(eventBytes))].map(String)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
    (err) => (startError = err),
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw startError ?? new Error('the TLS write floor server exited early');
    return line.value;
  };
  const { url, ca } = JSON.parse(await next()) as { url: string; ca: string };
  const pool = new Pool(url, { connections: watchers, connect: { ca }, bodyTimeout: 0, headersTimeout: 60_000 });
  try {
    await Promise.all(
      Array.from({ length: watchers }, async () => {
        const answer = await pool.request({ method: 'GET', path: '/' });
        answer.body.on('data', () => {}).on('error', () => {});
      }),
    );
    const { events, cpuSeconds } = JSON.parse(await next()) as { events: number; cpuSeconds: number };
    return { events, cpuSeconds, eventsPerCpuSecond: events / cpuSeconds };
  } finally {
    child.kill();
    await pool.destroy();
  }
}
