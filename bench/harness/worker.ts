import { spawnProgram } from '../../processes/spawn-program.js';

/**
 * Runs a worker script in a node process of its own — the spec as JSON on its stdin, its result
 * as JSON on its stdout — so that the load it makes never shares a CPU queue with the process
 * it measures. `beforeSpec` runs once the process is up and before it gets its work (to read a
 * counter such as the gateway's CPU time).
 */
export async function runWorker<T>(
  label: string,
  script: string,
  spec: unknown,
  options: { nodeArgs?: string[]; beforeSpec?: () => Promise<void> } = {},
): Promise<T> {
  let failed: (err: Error) => void = () => {};
  const child = spawnProgram(process.execPath, [...(options.nodeArgs ?? []), script], { stdio: 'pipe' }, (err) =>
    failed(err),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    failed = reject;
    child.once('close', resolve);
  });
  await options.beforeSpec?.();
  child.stdin!.end(JSON.stringify(spec));
  const code = await exited;
  if (code !== 0) throw new Error(`${label} exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout) as T;
}
