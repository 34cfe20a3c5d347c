/**
 * The floor under the gateway's watch fan-out (tls-write-floor.ts drives it): a node:https server
 * that holds N watch responses and writes one pre-framed event of the given size to each of them,
 * at the given rate, the way the gateway's watch sets write (gateway/cached/cached-watch.ts) — but with
 * no cache, conversion, routing or metrics. Its CPU per event is what one TLS write per event per
 * watcher costs Node on this machine.
 *
 * `node tls-write-floor-server.js WATCHERS EVENTS_PER_SEC SECONDS EVENT_BYTES` prints its URL and
 * CA, then, once every watcher is connected and the events are written, a JSON line with what
 * it wrote and the CPU seconds it used, and exits.
 */
import { createServer } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority } from '../../certs/index.js';

const [watchers, perSecond, seconds, eventBytes] = process.argv.slice(2).map(Number);
if (!(watchers > 0 && perSecond > 0 && seconds > 0 && eventBytes > 2)) {
  process.stderr.write('usage: tls-write-floor-server.js WATCHERS EVENTS_PER_SEC SECONDS EVENT_BYTES\n');
  process.exit(2);
}
const ca = await createCertificateAuthority({ commonName: 'tls-write-floor-ca' });
const serving = await ca.issueServingCertificate({ hosts: ['127.0.0.1', 'localhost'] });
const line = `{"type":"MODIFIED","object":"${'x'.repeat(eventBytes - 32)}"}\n`;
const chunk = Buffer.from(`${Buffer.byteLength(line).toString(16)}\r\n${line}\r\n`);

const held: ServerResponse[] = [];
const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.flushHeaders();
  held.push(res);
  if (held.length === watchers) setImmediate(write);
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(
    `${JSON.stringify({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca: ca.certPem })}\n`,
  ),
);

function write(): void {
  const before = process.cpuUsage();
  const rounds = Math.round(perSecond * seconds);
  let round = 0;
  const timer = setInterval(() => {
    for (const res of held) res.socket!.write(chunk);
    if (++round < rounds) return;
    clearInterval(timer);
    const cpu = process.cpuUsage(before);
    process.stdout.write(
      `${JSON.stringify({ events: rounds * held.length, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`,
    );
    process.exit(0);
  }, 1000 / perSecond);
}
