import { expect } from 'chai';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The docs name files of the repository (`gateway/server/pipeline.ts`, `kinds/rbac.ts`,
 * `dist/test/run.js`, docs/isolation.md); when a file is renamed or removed, each of those names
 * must change with it. And the project was designed from notes that are not part of the
 * repository: no file may point at them, since a reader could not follow the pointer.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Top-level folders of the project: a path that starts with one of them names a repository file. */
const PROJECT_FOLDERS = new Set([
  '.ci',
  'apiserver',
  'bench',
  'bin',
  'certs',
  'clusters',
  'cmd',
  'devcluster',
  'docs',
  'eviction',
  'gateway',
  'informer',
  'log',
  'processes',
  'scripts',
  'search',
  'store',
  'tenants',
  'test',
  'translate',
]);

/** Never part of the repository, whatever .gitignore says. */
const NEVER_SCANNED = new Set(['.git', 'node_modules', 'dist']);

/** Names of the external design notes, built so that this file does not mention them itself. */
const FORBIDDEN = [
  ...['DESIGN', 'KUBECTL', 'KARMADA'].map((name) => `${name}.md`),
  ['..', 'shared'].join('/'),
  ['', 'work', 'shared'].join('/'),
];

/** The directories .gitignore excludes (`dist/`, `bench/results/`, …), relative to the root. */
function ignoredDirectories(root: string): Set<string> {
  const ignored = new Set(NEVER_SCANNED);
  const gitignore = path.join(root, '.gitignore');
  if (!existsSync(gitignore)) return ignored;
  for (const line of readFileSync(gitignore, 'utf8').split('\n')) {
    const entry = line.trim();
    if (entry.endsWith('/') && !entry.startsWith('#') && !/[*?[]/.test(entry))
      ignored.add(entry.replace(/^\//, '').replace(/\/$/, ''));
  }
  return ignored;
}

/** Every file of the repository, as a path relative to the root with `/` separators; symbolic links are not followed. */
function repositoryFiles(root: string): string[] {
  const ignored = ignoredDirectories(root);
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(root, relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (ignored.has(child) || NEVER_SCANNED.has(name)) continue;
      const stat = lstatSync(path.join(root, child));
      if (stat.isDirectory()) walk(child);
      else if (stat.isFile()) files.push(child);
    }
  };
  walk('');
  return files;
}

interface Reference {
  /** The path as the document writes it. */
  written: string;
  line: number;
}

/** A path-like token: segments of letters, digits, `_`, `.`, `-` joined by `/`, not inside a longer path or URL. */
const PATH_TOKEN = /(?<![\w./<>$@:-])((?:[\w.-]+\/)+[\w.-]*)/g;
/** A file name on its own (`mvcc.ts`, `README.md`): lowercase, or an all-capitals Markdown file. */
const BARE_FILE = /(?<![\w./<>$@:-])([a-z0-9][\w.-]*\.(?:ts|js|md)|[A-Z][A-Z0-9_]*\.md)(?![\w/])/g;
/** A Markdown link target that is not a URL or an anchor. */
const LINK_TARGET = /\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g;

/** Every name of a repository file or folder a Markdown text makes: paths, bare file names, link targets. */
export function referencesIn(markdown: string): { paths: Reference[]; bareFiles: Reference[]; links: Reference[] } {
  const paths: Reference[] = [];
  const bareFiles: Reference[] = [];
  const links: Reference[] = [];
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    for (const match of text.matchAll(LINK_TARGET))
      if (!/^[a-z][a-z0-9+.-]*:/i.test(match[1])) links.push({ written: match[1], line });
    const withoutLinkTargets = text.replace(LINK_TARGET, ']()');
    for (const match of withoutLinkTargets.matchAll(PATH_TOKEN))
      paths.push({ written: match[1].replace(/\.+$/, ''), line });
    for (const match of withoutLinkTargets.matchAll(BARE_FILE)) bareFiles.push({ written: match[1], line });
  });
  return { paths, bareFiles, links };
}

/**
 * Whether a path a document writes names something in the repository; undefined when it is not a
 * repository path at all (a media type, an API group, a path on another machine). A path under a
 * project folder must exist as written (a `.js` file may be its `.ts` source; `dist/X.js` is
 * `X.ts`); a relative path such as `kinds/rbac.ts` must end the path of some repository file.
 */
export function resolves(
  written: string,
  documentDir: string,
  files: readonly string[],
  ignored: ReadonlySet<string>,
): boolean | undefined {
  const isFile = (relative: string) => files.includes(relative);
  const isDirectory = (relative: string) => files.some((file) => file.startsWith(`${relative}/`));
  const segments = written.split('/');
  if (segments[0] === '.' || segments[0] === '..') {
    const relative = path.posix.normalize(path.posix.join(documentDir, written)).replace(/\/$/, '');
    return written.endsWith('/') ? isDirectory(relative) : isFile(relative) || isDirectory(relative);
  }
  const root = segments[0] === 'dist' ? segments[1] : segments[0];
  if (root === undefined || !PROJECT_FOLDERS.has(root)) {
    // Not under a project folder: a source or document path only when it has such an extension.
    if (!/\.(ts|js|md)$/.test(written)) return undefined;
    return files.some((file) => file === written || file.endsWith(`/${written}`) || file === toSource(written));
  }
  const relative = (segments[0] === 'dist' ? segments.slice(1).join('/') : written).replace(/\/$/, '');
  if ([...ignored].some((dir) => relative === dir || relative.startsWith(`${dir}/`))) return undefined;
  if (!relative.includes('/')) return undefined; // `cache/`, `test/`: a folder name in prose, planned or not
  if (written.endsWith('/')) return isDirectory(relative);
  return isFile(relative) || isFile(toSource(relative)) || isDirectory(relative);
}

/** `cmd/cli.js` → `cmd/cli.ts`. */
function toSource(file: string): string {
  return file.replace(/\.js$/, '.ts');
}

/** Every reference in one Markdown file that names no repository file, as `file:line: path`. */
export function brokenReferences(
  document: string,
  markdown: string,
  files: readonly string[],
  ignored: ReadonlySet<string>,
): { checked: number; broken: string[] } {
  const dir = path.posix.dirname(document);
  const { paths, bareFiles, links } = referencesIn(markdown);
  const broken: string[] = [];
  let checked = 0;
  for (const reference of paths) {
    const ok = resolves(reference.written, dir, files, ignored);
    if (ok === undefined) continue;
    checked++;
    if (!ok) broken.push(`${document}:${reference.line}: ${reference.written}`);
  }
  for (const reference of bareFiles) {
    checked++;
    const name = reference.written;
    if (!files.some((file) => file === name || file.endsWith(`/${name}`)))
      broken.push(`${document}:${reference.line}: ${name}`);
  }
  for (const reference of links) {
    checked++;
    const target = path.posix.normalize(path.posix.join(dir, reference.written)).replace(/\/$/, '');
    if (!files.includes(target) && !files.some((file) => file.startsWith(`${target}/`)))
      broken.push(`${document}:${reference.line}: link ${reference.written}`);
  }
  return { checked, broken };
}

/** Each place a text mentions one of the external notes, as `line: name`. */
export function forbiddenMentions(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const name of FORBIDDEN) if (line.includes(name)) found.push(`${index + 1}: ${name}`);
  });
  return found;
}

describe('docs: every file a document names exists', () => {
  const files = repositoryFiles(REPO_ROOT);
  const ignored = ignoredDirectories(REPO_ROOT);
  const documents = files.filter((file) => file.endsWith('.md'));

  it('finds the documents: the README, BENCHMARKS.md and docs/', () => {
    expect(documents).to.include.members(['README.md', 'BENCHMARKS.md', 'docs/design.md', 'docs/architecture.md']);
    expect(files.filter((file) => /^(dist|node_modules|\.git)\//.test(file))).to.deep.equal([]);
  });

  it('resolves paths under project folders, relative paths, compiled files and links, and reports the rest', () => {
    const sample = [
      'The proxy is `gateway/server/pipeline.ts`; rules in kinds/rbac.ts and `mvcc.ts`.',
      'Run `node dist/test/run.js`; see docs/isolation.md. and [the design](design.md#layout).',
      'Gone: `gateway/no-such-file.ts`, translate/kinds/nothing-here.ts, `no-such-name.ts`.',
      'A folder `apiserver/table/printers/`; a missing one `apiserver/no-such-folder/`.',
      'Links: [missing](no-such-doc.md), [up](../README.md), [web](https://example.com/x.md).',
      'Not paths: `application/json`, `kubezoo.io/tenant`, `/api/v1/namespaces/default/pods/x.ts`,',
      '`<data-dir>/admin.kubeconfig`, `bench/results/NAME.json`, `cache/`, Node.js.',
    ].join('\n');
    const { checked, broken } = brokenReferences('docs/sample.md', sample, files, ignored);
    expect(broken).to.deep.equal([
      'docs/sample.md:3: gateway/no-such-file.ts',
      'docs/sample.md:3: translate/kinds/nothing-here.ts',
      'docs/sample.md:4: apiserver/no-such-folder/',
      'docs/sample.md:3: no-such-name.ts',
      'docs/sample.md:5: link no-such-doc.md',
    ]);
    expect(checked).to.equal(13);
  });

  it('every path, file name and link in every Markdown file of the repository names a file or folder that exists', () => {
    let checked = 0;
    const broken: string[] = [];
    for (const document of documents) {
      const result = brokenReferences(document, readFileSync(path.join(REPO_ROOT, document), 'utf8'), files, ignored);
      checked += result.checked;
      broken.push(...result.broken);
    }
    expect(broken, 'references to files that do not exist').to.deep.equal([]);
    // The docs name close to 300 files; finding few means the scan broke, not that the docs are clean.
    expect(checked).to.be.greaterThan(150);
  });
});

describe('docs: nothing points at design notes outside the repository', () => {
  it('finds a mention in any line', () => {
    const text = ['fine', `as ${FORBIDDEN[0]} says`, `see ${FORBIDDEN[3]}/kubectl-samples`].join('\n');
    expect(forbiddenMentions(text)).to.deep.equal([`2: ${FORBIDDEN[0]}`, `3: ${FORBIDDEN[3]}`]);
  });

  it('no file of the repository mentions them', () => {
    const files = repositoryFiles(REPO_ROOT);
    const mentions: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(path.join(REPO_ROOT, file));
      if (bytes.subarray(0, 8000).includes(0)) continue; // binary
      for (const mention of forbiddenMentions(bytes.toString('utf8'))) mentions.push(`${file}:${mention}`);
    }
    expect(files.length).to.be.greaterThan(100);
    expect(mentions).to.deep.equal([]);
  });
});
