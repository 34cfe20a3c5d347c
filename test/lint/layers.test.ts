/**
 * The layer rule (.dependency-cruiser.mjs): imports run down the folders and never in a circle,
 * type-only imports included, and translate/ imports nothing with I/O. It is checked over the
 * sources, shown to fail on a small tree that breaks it, and held against docs/design.md's
 * "Layout" table, whose last column must name exactly the folders each folder's code imports.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const CONFIG = path.join(root, '.dependency-cruiser.mjs');
const CLI = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Cruise {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
}

/** dependency-cruiser over `cwd` with the project's rules, as `npm run lint` runs it. */
function cruise(cwd: string): Cruise {
  const run = spawnSync(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'json', '.'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  if (!run.stdout) throw new Error(`dependency-cruiser wrote nothing: ${run.stderr}`);
  return JSON.parse(run.stdout) as Cruise;
}

const violations = (result: Cruise) => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('layers', function () {
  this.timeout(120_000);
  let layers: string[];
  let sources: Cruise;

  before(async () => {
    ({ LAYERS: layers } = (await import(pathToFileURL(CONFIG).href)) as { LAYERS: string[] });
    sources = cruise(root);
  });

  it('the sources import down the layers, never in a circle', () => {
    expect(sources.modules.length, 'the sources were cruised').to.be.above(100);
    const found = violations(sources);
    expect(found, found.join('\n')).to.deep.equal([]);
  });

  it('the rule fails on a tree that imports upward, in a circle of types, or I/O into translate/', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paddock-layers-'));
    try {
      const files: Record<string, string> = {
        'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
        'gateway/connection.ts': 'export const connection = 1;\n',
        'gateway/server/gateway.ts':
          "import { roster } from '../clusters/roster.js';\nexport const gateway = roster;\n",
        'clusters/roster.ts':
          "import { connection } from '../gateway/connection.js';\nexport const roster = connection;\n",
        'certs/ca.ts':
          "import { issue } from './issue.js';\nexport interface Ca { name: string }\nexport const ca = issue;\n",
        'certs/issue.ts': "import type { Ca } from './ca.js';\nexport const issue = (ca: Ca) => ca.name;\n",
        'log/log.ts': 'export const log = console.error;\n',
        'translate/paths.ts': "import { log } from '../log/log.js';\nexport const paths = log;\n",
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      expect(violations(cruise(dir)).sort()).to.deep.equal([
        // One report per circle, where it is first met.
        'no-circular: certs/ca.ts → certs/issue.ts',
        'no-upward-from-clusters: clusters/roster.ts → gateway/connection.ts',
        'translate-is-pure: translate/paths.ts → log/log.ts',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("docs/design.md's Layout table lists the layers bottom up, each with the folders it imports", () => {
    const design = readFileSync(path.join(root, 'docs/design.md'), 'utf8');
    const table = design.slice(design.indexOf('| folder | holds | imports from |'));
    const rows = new Map<string, string>();
    for (const line of table.split('\n').slice(2)) {
      if (!line.startsWith('|')) break;
      const cells = line.split(' | ');
      rows.set(cells[0].replace(/[|`/\s]/g, ''), cells[cells.length - 1].replace(/\s*\|$/, ''));
    }
    expect(
      [...rows.keys()].filter((folder) => layers.includes(folder)),
      'the rows of the layers, in order',
    ).to.deep.equal(layers);

    const imported = new Map(layers.map((layer) => [layer, new Set<string>()]));
    for (const module of sources.modules) {
      const from = module.source.split('/')[0];
      for (const { resolved } of module.dependencies) {
        const to = resolved.split('/')[0];
        if (to !== from && layers.includes(to)) imported.get(from)?.add(to);
      }
    }
    for (const layer of layers) {
      // "a, b (a note), c", or "—" for none; a note says what of a folder, never another folder.
      const column = rows.get(layer)!.replace(/\([^)]*\)/g, '');
      const listed = column.trim() === '—' ? [] : column.split(',').map((name) => name.trim());
      const actual = layers.filter((folder) => imported.get(layer)!.has(folder));
      expect(listed, `docs/design.md, "Layout": what ${layer}/ imports`).to.deep.equal(actual);
    }
  });
});
