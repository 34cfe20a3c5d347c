// @ts-check
/**
 * Builds dist/ when the sources changed since the last build, and only then: `npm run paddock`,
 * `npm start` and `npm run bench` go through here on every run, and a full tsc takes 12-15 s.
 *
 * "Changed" is a hash of every .ts file's path and text, tsconfig.json and the installed
 * packages' lock (a new TypeScript or @types changes the output); a build with that hash is
 * recorded in dist/.build-stamp once tsc succeeds. Paths are in the hash, so adding or deleting
 * a source rebuilds too, and the build first deletes the output of every deleted source: tsc
 * never does, and a stale dist/test/x.test.js would still run, a stale module still load.
 * tsc runs incrementally (dist/.tsbuildinfo), so a rebuild recompiles what a change reaches.
 *
 * Progress goes to stderr, and so does tsc's own output: `npm run --silent paddock -- tenant
 * kubeconfig X > file` must leave nothing but the kubeconfig in the file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp');
const buildInfo = path.join(dist, '.tsbuildinfo');
/** Besides the sources, what decides tsc's output. */
const INPUTS = ['tsconfig.json', 'package-lock.json', 'node_modules/.package-lock.json'];

/**
 * Files under `dir` (relative to root) whose name ends with one of `suffixes`; dot-directories,
 * node_modules and dist hold no sources.
 * @param {string} dir
 * @param {string[]} suffixes
 * @returns {string[]}
 */
function filesUnder(dir, suffixes) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const skipped = entry.name.startsWith('.') || (dir === '' && ['node_modules', 'dist'].includes(entry.name));
      return skipped ? [] : filesUnder(relative, suffixes);
    }
    return entry.isFile() && suffixes.some((suffix) => entry.name.endsWith(suffix)) ? [relative] : [];
  });
}

/** @param {string} source a .ts file relative to root @returns {string} its output's path */
const outputOf = (source) => path.join(dist, source.replace(/\.ts$/, '.js'));

const sources = filesUnder('', ['.ts'])
  .filter((file) => !file.endsWith('.d.ts'))
  .sort();
const hash = createHash('sha256');
for (const file of [...sources, ...INPUTS]) {
  const full = path.join(root, file);
  hash.update(`${file}\0${existsSync(full) ? readFileSync(full, 'utf8') : ''}\0`);
}
const digest = hash.digest('hex');
const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
const outputsMissing = sources.some((source) => !existsSync(outputOf(source)));

if (stamp !== digest || outputsMissing) {
  const started = Date.now();
  process.stderr.write(
    !existsSync(buildInfo)
      ? 'building Paddock (first run only, about 15 s) … '
      : 'rebuilding Paddock (the sources changed since the last build) … ',
  );
  // A build that fails leaves tsc's output of the broken sources: it must not pass for the last good one.
  rmSync(stampFile, { force: true });
  if (existsSync(dist)) {
    const expected = new Set(sources.map(outputOf));
    for (const output of filesUnder('dist', ['.js', '.js.map'])) {
      const full = path.join(root, output);
      if (!expected.has(full.replace(/\.map$/, ''))) rmSync(full);
    }
  }
  // An output deleted by hand is not re-emitted by an incremental build that sees no change.
  if (outputsMissing) rmSync(buildInfo, { force: true });
  const tsc = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/typescript/bin/tsc'),
      '-p',
      path.join(root, 'tsconfig.json'),
      '--incremental',
      '--tsBuildInfoFile',
      buildInfo,
    ],
    { stdio: ['ignore', process.stderr, process.stderr] },
  );
  if (tsc.status !== 0) {
    process.stderr.write('\nthe build failed (tsc above); nothing was run\n');
    process.exit(tsc.status ?? 1);
  }
  writeFileSync(stampFile, `${digest}\n`);
  process.stderr.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
