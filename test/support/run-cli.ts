/** The `paddock` command run as a process of its own from the build (`dist/cmd/cli.js`), with what it printed and its exit code. */
import { spawnProgram } from '../../processes/spawn-program.js';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../cmd/cli.js', import.meta.url));

export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnProgram(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }, reject);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
