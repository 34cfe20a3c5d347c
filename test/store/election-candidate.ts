/**
 * A leader-election candidate in its own process, for the hand-over test: it campaigns on an etcd
 * store, prints "leader" once elected and "lost" if leadership ends, and runs until killed.
 */
import { EtcdStore } from '../../store/etcd/etcd-store.js';

const [endpoint, prefix, name, ttl] = process.argv.slice(2);
const store = new EtcdStore({ endpoints: [endpoint], prefix: prefix });
const leadership = await store.elect(name, Number(ttl), { identity: `candidate-${process.pid}` });
process.stdout.write(`leader ${leadership.identity}\n`);
leadership.signal.addEventListener('abort', () => process.stdout.write('lost\n'));
setInterval(() => undefined, 60_000);
