/**
 * What the chosen benchmarks run besides Node, checked before any starts: scripts/prerequisites.sh
 * (the test command's too) installs a missing one from Debian as root, or prints one line naming
 * it and how to get it. So a machine without etcd gets that line, not a benchmark dying halfway.
 */
import { spawnProgram } from '../../processes/spawn-program.js';
import { PREREQUISITES_SCRIPT } from './locations.js';

export type Prerequisite = 'etcd' | 'haproxy';

/** Resolves to whether every one is there (the script has said what is not). */
export function ensurePrerequisites(needed: Prerequisite[]): Promise<boolean> {
  if (needed.length === 0) return Promise.resolve(true);
  return new Promise((resolve, reject) => {
    const child = spawnProgram('bash', [PREREQUISITES_SCRIPT, ...needed], { stdio: 'inherit' }, reject);
    child.once('exit', (code) => resolve(code === 0));
  });
}
