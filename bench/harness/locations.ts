import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file runs as dist/bench/harness/locations.js. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The `paddock` command, as built. */
export const CLI = path.join(REPO_ROOT, 'dist/gateway/cli.js');
export const LOAD_WORKER = path.join(REPO_ROOT, 'dist/bench/harness/load-worker.js');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');
export const PROFILES_DIR = path.join(RESULTS_DIR, 'profiles');
