/** promtool, from Debian's `prometheus` package (scripts/test.sh installs it when missing). */
import { spawn } from 'node:child_process';

/** promtool with `args` and `input` on its standard input: its exit code and everything it wrote. */
export function runPromtool(args: string[], input = ''): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (err) =>
      reject(new Error(`promtool could not run (scripts/test.sh installs Debian's prometheus): ${err.message}`)),
    );
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}
