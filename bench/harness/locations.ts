import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file runs as dist/bench/harness/locations.js. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The `paddock` command, as built; PADDOCK_BENCH_CLI runs another build's (an older commit's, to measure what a change gained). */
export const CLI = process.env.PADDOCK_BENCH_CLI ?? path.join(REPO_ROOT, 'dist/cmd/cli.js');
/** The `paddock` launcher (bin/paddock): node with the allocator a user's `paddock` gets. */
export const LAUNCHER = path.join(REPO_ROOT, 'bin/paddock');
export const LOAD_WORKER = path.join(REPO_ROOT, 'dist/bench/harness/load-worker.js');
export const WATCH_WORKER = path.join(REPO_ROOT, 'dist/bench/harness/watch-worker.js');
export const CACHE_MEMORY_WORKER = path.join(REPO_ROOT, 'dist/bench/harness/cache-memory-worker.js');
export const BARE_PROXY = path.join(REPO_ROOT, 'dist/bench/harness/bare-proxy.js');
export const TLS_WRITE_FLOOR_SERVER = path.join(REPO_ROOT, 'dist/bench/harness/tls-write-floor-server.js');
export const TENANT_WORKER = path.join(REPO_ROOT, 'dist/bench/harness/tenant-worker.js');
/** `PADDOCK_BENCH_RESULTS` moves the results (and profiles) elsewhere, e.g. to a test's temp dir. */
export const RESULTS_DIR = process.env.PADDOCK_BENCH_RESULTS
  ? path.resolve(process.env.PADDOCK_BENCH_RESULTS)
  : path.join(REPO_ROOT, 'bench/results');
export const PROFILES_DIR = path.join(RESULTS_DIR, 'profiles');
/** Checks what tests and benchmarks run besides Node (etcd, haproxy…), installing it as root. */
export const PREREQUISITES_SCRIPT = path.join(REPO_ROOT, 'scripts/prerequisites.sh');
