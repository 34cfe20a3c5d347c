/**
 * RBAC objects indexed as kube's rule resolver reads them through its listers: RoleBindings and
 * Roles by namespace, ClusterRoles by name, and the ClusterRoleBindings. A decision in one
 * namespace then reads that namespace's RoleBindings and the ClusterRoleBindings only, so its cost
 * does not grow with the other namespaces (every tenant's) of the cluster.
 */
import { aggregatedRules, type PolicyRule, type RbacObjects, type RbacObjectSource } from './rbac-authorizer.js';

export type RbacKind = keyof RbacObjects;

/** Where a key's object is held, so that a delete by key finds it. */
interface Location {
  kind: RbacKind;
  namespace: string;
  name: string;
}

export class RbacIndex implements RbacObjectSource {
  private readonly locations = new Map<string, Location>();
  /** By namespace, then by key: in the order they were first put, as a lister lists them. */
  private readonly roleBindingsByNamespace = new Map<string, Map<string, any>>();
  private readonly rolesByNamespace = new Map<string, Map<string, any>>();
  private readonly clusterRoleBindingsByKey = new Map<string, any>();
  private readonly clusterRolesByName = new Map<string, any>();
  /** Each ClusterRole's settled rules: aggregation reads every ClusterRole, so it is done once per change of them. */
  private readonly clusterRoleRulesByName = new Map<string, PolicyRule[]>();

  /** An index of plain lists; where names repeat, the first object of a name is the one found. */
  static of(objects: RbacObjects): RbacIndex {
    const index = new RbacIndex();
    for (const kind of ['roles', 'roleBindings', 'clusterRoles', 'clusterRoleBindings'] as const) {
      objects[kind].forEach((object, position) => {
        const { namespace, name } = namespaceAndName(kind, object);
        if (kind === 'roles' && index.role(namespace, name)) return;
        if (kind === 'clusterRoles' && index.clusterRolesByName.has(name)) return;
        index.set(`${kind}/${position}`, kind, object);
      });
    }
    return index;
  }

  /** Puts (or replaces, keeping its place in the order) the object stored under key. */
  set(key: string, kind: RbacKind, object: any): void {
    const location = { kind, ...namespaceAndName(kind, object) };
    const previous = this.locations.get(key);
    const moved =
      previous &&
      (previous.kind !== kind || previous.namespace !== location.namespace || previous.name !== location.name);
    if (moved) this.delete(key);
    this.locations.set(key, location);
    switch (kind) {
      case 'roleBindings':
        return void inNamespace(this.roleBindingsByNamespace, location.namespace).set(key, object);
      case 'roles':
        return void inNamespace(this.rolesByNamespace, location.namespace).set(location.name, object);
      case 'clusterRoleBindings':
        return void this.clusterRoleBindingsByKey.set(key, object);
      case 'clusterRoles':
        this.clusterRolesByName.set(location.name, object);
        return this.clusterRoleRulesByName.clear();
    }
  }

  delete(key: string): void {
    const location = this.locations.get(key);
    if (!location) return;
    this.locations.delete(key);
    switch (location.kind) {
      case 'roleBindings':
        return removeFromNamespace(this.roleBindingsByNamespace, location.namespace, key);
      case 'roles':
        return removeFromNamespace(this.rolesByNamespace, location.namespace, location.name);
      case 'clusterRoleBindings':
        return void this.clusterRoleBindingsByKey.delete(key);
      case 'clusterRoles':
        this.clusterRolesByName.delete(location.name);
        return this.clusterRoleRulesByName.clear();
    }
  }

  clear(): void {
    this.locations.clear();
    this.roleBindingsByNamespace.clear();
    this.rolesByNamespace.clear();
    this.clusterRoleBindingsByKey.clear();
    this.clusterRolesByName.clear();
    this.clusterRoleRulesByName.clear();
  }

  clusterRoleBindings(): Iterable<any> {
    return this.clusterRoleBindingsByKey.values();
  }

  roleBindings(namespace: string): Iterable<any> {
    return this.roleBindingsByNamespace.get(namespace)?.values() ?? [];
  }

  role(namespace: string, name: string): any {
    return this.rolesByNamespace.get(namespace)?.get(name);
  }

  clusterRoleRules(name: string): PolicyRule[] | undefined {
    const cached = this.clusterRoleRulesByName.get(name);
    if (cached) return cached;
    const clusterRole = this.clusterRolesByName.get(name);
    if (!clusterRole) return undefined;
    const rules = aggregatedRules(clusterRole, [...this.clusterRolesByName.values()]);
    this.clusterRoleRulesByName.set(name, rules);
    return rules;
  }
}

/** A cluster-scoped kind's objects count as in no namespace, whatever their metadata says. */
function namespaceAndName(kind: RbacKind, object: any): { namespace: string; name: string } {
  const namespaced = kind === 'roles' || kind === 'roleBindings';
  return { namespace: namespaced ? (object?.metadata?.namespace ?? '') : '', name: object?.metadata?.name ?? '' };
}

function inNamespace(index: Map<string, Map<string, any>>, namespace: string): Map<string, any> {
  let objects = index.get(namespace);
  if (!objects) index.set(namespace, (objects = new Map()));
  return objects;
}

function removeFromNamespace(index: Map<string, Map<string, any>>, namespace: string, key: string): void {
  const objects = index.get(namespace);
  objects?.delete(key);
  if (objects?.size === 0) index.delete(namespace);
}
