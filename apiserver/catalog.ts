import { createHash } from 'node:crypto';
import type { ResourceInfo } from './resources/resource-info.js';

/**
 * The resources a server serves right now: the built-in ones plus those of established CRDs.
 * Discovery, OpenAPI and routing all read it; `version` changes whenever the set changes, so
 * documents derived from it can be cached until then.
 */
export class ResourceCatalog {
  private readonly builtin: readonly ResourceInfo[];
  private custom = new Map<string, ResourceInfo[]>();
  private all: ResourceInfo[];
  private index = new Map<string, ResourceInfo>();
  version = '';
  private readonly listeners = new Set<() => void>();

  constructor(builtin: readonly ResourceInfo[]) {
    this.builtin = builtin;
    this.all = [...builtin];
    this.rebuild();
  }

  resources(): readonly ResourceInfo[] {
    return this.all;
  }

  lookup(group: string, version: string, resource: string): ResourceInfo | undefined {
    return this.index.get(`${group}/${version}/${resource}`);
  }

  /** Every version of a group-resource (the same objects are served at each version). */
  versionsOf(group: string, resource: string): ResourceInfo[] {
    return this.all.filter((r) => r.group === group && r.resource === resource);
  }

  /** Replace the resources contributed by one CRD (none: the CRD is gone or not established). */
  setCustom(crdName: string, resources: ResourceInfo[]): void {
    const before = JSON.stringify(this.custom.get(crdName) ?? []);
    if (before === JSON.stringify(resources)) return;
    if (resources.length === 0) this.custom.delete(crdName);
    else this.custom.set(crdName, resources);
    const customGroups = [...this.custom.values()]
      .flat()
      .sort((a, b) => (a.group + a.resource < b.group + b.resource ? -1 : 1));
    this.all = [...this.builtin, ...customGroups];
    this.rebuild();
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private rebuild(): void {
    this.index = new Map(this.all.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));
    this.version = createHash('sha256').update(JSON.stringify(this.all)).digest('hex').slice(0, 16);
  }
}
