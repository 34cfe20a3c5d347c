/**
 * scripts/build.mjs, which `npm start`, `npm run paddock`, `npm run bench` and `npm run build`
 * run first: nothing to do when no source changed; a changed, added or deleted source, or a
 * deleted output, is rebuilt, and a deleted source leaves no output behind. Run on a small project
 * of its own with the real build script, the project's compiler options and the installed
 * node_modules linked: the script walks whatever sources a project has, and a project of a few
 * files builds in a second where a copy of this one took a minute for each of its builds.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../support/temp-dir.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The small project: a few sources in folders as this project's, one importing another. */
const SOURCES: Record<string, string> = {
  'log/log.ts': 'export const log = (line: string): void => void process.stderr.write(`${line}\\n`);\n',
  'gateway/observability/request-log.ts':
    "import { log } from '../../log/log.js';\nexport const requestLine = (path: string) => log(`GET ${path}`);\n",
  'cmd/serve-banner.ts': 'export const banner = (address: string): string => `Paddock is up on ${address}`;\n',
  'cmd/cli.ts': "import { banner } from './serve-banner.js';\nprocess.stdout.write(banner('127.0.0.1:6443'));\n",
  'test/cli.test.ts': "import { banner } from '../cmd/serve-banner.js';\nit('says where', () => banner('here'));\n",
};

describe('scripts/build.mjs: builds only what changed, and never leaves a stale output', function () {
  this.timeout(300_000);
  let project: string;
  let remove: () => Promise<void>;

  before(async () => {
    const temp = await makeTempDir('build');
    remove = temp.remove;
    project = path.join(temp.dir, 'paddock');
    const tsconfig = JSON.parse(await readFile(path.join(REPO_ROOT, 'tsconfig.json'), 'utf8'));
    const files: Record<string, string> = {
      ...SOURCES,
      'tsconfig.json': JSON.stringify({
        ...tsconfig,
        include: ['log', 'gateway', 'cmd', 'test'].map((d) => `${d}/**/*.ts`),
      }),
      'package.json': '{ "type": "module" }\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(inProject(file)), { recursive: true });
      await writeFile(inProject(file), text);
    }
    for (const file of ['scripts/build.mjs', 'package-lock.json']) {
      await mkdir(path.dirname(inProject(file)), { recursive: true });
      await copyFile(path.join(REPO_ROOT, file), inProject(file));
    }
    await symlink(path.join(REPO_ROOT, 'node_modules'), inProject('node_modules'));
    const first = await build();
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.match(/^building Paddock \(first run only, about 15 s\) … done in [\d.]+ s\n$/);
  });
  after(async () => remove?.());

  const inProject = (file: string) => path.join(project, file);

  function build(): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['scripts/build.mjs'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }
  const REBUILT = /^rebuilding Paddock \(the sources changed since the last build\) … done in [\d.]+ s\n$/;

  it('does nothing when nothing changed since the last build', async () => {
    expect(await build()).to.deep.equal({ code: 0, stdout: '', stderr: '' });
  });

  it('rebuilds a changed or added source, with progress and tsc on stderr only', async () => {
    await appendFile(
      inProject('gateway/observability/request-log.ts'),
      '\nexport const CHANGED_FOR_THE_BUILD_TEST = 1;\n',
    );
    await writeFile(inProject('test/zz-stale.test.ts'), "it('would still run from dist/', () => undefined);\n");
    const rebuilt = await build();
    expect(rebuilt.code).to.equal(0);
    expect(rebuilt.stdout).to.equal('');
    expect(rebuilt.stderr).to.match(REBUILT);
    expect(await readFile(inProject('dist/gateway/observability/request-log.js'), 'utf8')).to.contain(
      'CHANGED_FOR_THE_BUILD_TEST',
    );
    expect(existsSync(inProject('dist/test/zz-stale.test.js'))).to.equal(true);
    expect(await build()).to.deep.equal({ code: 0, stdout: '', stderr: '' });
  });

  it("deletes a deleted source's output and source map, and restores an output deleted by hand", async () => {
    await rm(inProject('test/zz-stale.test.ts'));
    await rm(inProject('dist/cmd/cli.js'));
    expect((await build()).stderr).to.match(REBUILT);
    expect(existsSync(inProject('dist/test/zz-stale.test.js')), 'the stale test').to.equal(false);
    expect(existsSync(inProject('dist/test/zz-stale.test.js.map')), 'its source map').to.equal(false);
    expect(existsSync(inProject('dist/cmd/cli.js')), 'the output deleted by hand').to.equal(true);
  });

  it('fails on a type error and does not take the broken output for built once the error is undone', async () => {
    const file = inProject('cmd/serve-banner.ts');
    const good = await readFile(file, 'utf8');
    await appendFile(file, "\nexport const BROKEN_FOR_THE_BUILD_TEST: number = 'text';\n");
    const failed = await build();
    expect(failed.code).to.not.equal(0);
    expect(failed.stdout).to.equal('');
    expect(failed.stderr).to.contain("error TS2322: Type 'string' is not assignable to type 'number'");
    expect(failed.stderr).to.match(/the build failed \(tsc above\); nothing was run\n$/);
    await writeFile(file, good);
    expect((await build()).stderr).to.match(REBUILT);
    expect(await readFile(inProject('dist/cmd/serve-banner.js'), 'utf8')).not.to.contain('BROKEN_FOR_THE_BUILD_TEST');
  });
});
