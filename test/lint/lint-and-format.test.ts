/**
 * The lint and format checks, as tests of the run so that their findings land in its summary:
 * ESLint with the project's type-checked rules (eslint.config.js), and Prettier's check.
 */
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { execFileSync } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The files git knows, as a fresh clone has them (dist/ and node_modules/ are not among them). */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root });
  return out.toString('utf8').split('\0').filter(Boolean);
}

describe('lint and format', function () {
  this.timeout(300_000);

  it('ESLint finds nothing (floating promises, misused promises, unused names, ...)', async () => {
    const eslint = new ESLint({ cwd: root });
    const results = await eslint.lintFiles(['.']);
    const findings = results.flatMap((result) =>
      result.messages.map(
        (m) => `${path.relative(root, result.filePath)}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`,
      ),
    );
    expect(findings, findings.join('\n')).to.deep.equal([]);
  });

  it('every file is formatted as Prettier writes it', async () => {
    const unformatted: string[] = [];
    for (const file of trackedFiles()) {
      const full = path.join(root, file);
      const info = await prettier.getFileInfo(full, { ignorePath: path.join(root, '.prettierignore') });
      if (info.ignored || !info.inferredParser) continue;
      const options = { ...(await prettier.resolveConfig(full)), filepath: full };
      if (!(await prettier.check(await readFile(full, 'utf8'), options))) unformatted.push(file);
    }
    expect(unformatted, `run \`npm run format\`: ${unformatted.join(', ')}`).to.deep.equal([]);
  });
});
