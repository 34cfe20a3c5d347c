/**
 * The lint and format checks, as tests of the run so that their findings land in its summary:
 * ESLint with the project's type-checked rules (eslint.config.js), and Prettier's check.
 */
import { expect } from 'chai';
import { ESLint } from 'eslint';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Never the project's own text, whatever the ignore files say. */
const NEVER_FORMATTED = new Set(['.git', 'node_modules', 'dist']);

/** Every file of the project as a fresh clone has it (no git needed: CI may run from a copy). */
function projectFiles(dir = ''): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return NEVER_FORMATTED.has(entry.name) ? [] : projectFiles(relative);
    return entry.isFile() ? [relative] : [];
  });
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
    for (const file of projectFiles()) {
      const full = path.join(root, file);
      const info = await prettier.getFileInfo(full, {
        ignorePath: [path.join(root, '.prettierignore'), path.join(root, '.gitignore')],
      });
      if (info.ignored || !info.inferredParser) continue;
      const options = { ...(await prettier.resolveConfig(full)), filepath: full };
      if (!(await prettier.check(await readFile(full, 'utf8'), options))) unformatted.push(file);
    }
    expect(unformatted, `run \`npm run format\`: ${unformatted.join(', ')}`).to.deep.equal([]);
  });
});
