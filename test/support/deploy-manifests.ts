/** The repository's deploy/ directory: its manifests as files and as the objects they hold. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** The checkout's root, from dist/test/support/. */
export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEPLOY = path.join(REPOSITORY, 'deploy');

export interface Manifest {
  /** `etcd.yaml` */
  file: string;
  path: string;
  text: string;
  objects: Record<string, any>[];
}

/** Every `*.yaml` in deploy/, by name. */
export function deployManifests(): Manifest[] {
  return readdirSync(DEPLOY)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const full = path.join(DEPLOY, file);
      const text = readFileSync(full, 'utf8');
      const objects = parseAllDocuments(text).map((document) => {
        if (document.errors.length) throw new Error(`${file}: ${document.errors[0].message}`);
        return document.toJS() as Record<string, any>;
      });
      return { file, path: full, text, objects: objects.filter((object) => object !== null) };
    });
}

/** Every object of every manifest, with the file it is in. */
export function deployObjects(): { file: string; object: Record<string, any> }[] {
  return deployManifests().flatMap(({ file, objects }) => objects.map((object) => ({ file, object })));
}

/** The one object of this kind and name in deploy/. */
export function deployObject(kind: string, name: string): Record<string, any> {
  const found = deployObjects().filter(({ object }) => object.kind === kind && object.metadata?.name === name);
  if (found.length !== 1) throw new Error(`deploy/ holds ${found.length} ${kind} ${name}, not one`);
  return found[0].object;
}
