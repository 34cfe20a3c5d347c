import type { ApiServer } from '../../apiserver/api-server.js';
import { aggregatedRules, type PolicyRule } from '../../apiserver/authorization/rbac-authorizer.js';
import { mutate } from '../../apiserver/registry/object-mutation.js';
import { labelSelectorFromObject, type LabelSelector } from '../../apiserver/selectors/label-selector.js';
import type { Store } from '../../store/index.js';
import { WatchLoop } from '../../store/watch-loop.js';
import { errorMessage, logger } from '../../log/log.js';

const log = logger('clusterrole-aggregation controller');

const CLUSTER_ROLES = '/registry/rbac.authorization.k8s.io/clusterroles/';

/**
 * kube-controller-manager's clusterrole-aggregation controller: the `rules` of every ClusterRole
 * with an aggregationRule are kept equal to the rules of the ClusterRoles its selectors select,
 * so reading the role shows what it grants. The rules come from `aggregatedRules`, the settled
 * result the authorizer decides with, so the stored rules and the decisions never disagree.
 *
 * kube's controller queues every aggregated ClusterRole on any ClusterRole change; here a change
 * queues only the aggregated roles whose selectors match the changed role's labels, before or
 * after (and the role itself when it aggregates), with the same result: a tenant's new
 * ClusterRole, which no aggregated role selects, costs no pass over every ClusterRole, so
 * creating tenants does not slow down as their ClusterRoles accumulate.
 */
export class ClusterRoleAggregationController {
  private readonly loop: WatchLoop;
  private readonly clusterRoles = new Map<string, any>();
  /** The aggregated roles (with an aggregationRule) by key, with their parsed selectors. */
  private readonly aggregators = new Map<string, LabelSelector[]>();
  /** Keys of aggregated roles whose rules may have to change. */
  private readonly queued = new Set<string>();
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly api: ApiServer,
    store: Store,
  ) {
    this.loop = new WatchLoop(
      store,
      CLUSTER_ROLES,
      {
        onList: (items) => {
          this.clusterRoles.clear();
          this.aggregators.clear();
          for (const kv of items) this.set(kv.key, JSON.parse(kv.value));
          for (const key of this.aggregators.keys()) this.queued.add(key);
          this.schedule();
        },
        onEvent: (event) => {
          const before = this.clusterRoles.get(event.key);
          const after = event.type === 'delete' ? undefined : JSON.parse(event.value);
          if (after === undefined) {
            this.clusterRoles.delete(event.key);
            this.aggregators.delete(event.key);
          } else this.set(event.key, after);
          this.queueSelecting(before?.metadata?.labels);
          this.queueSelecting(after?.metadata?.labels);
          if (after?.aggregationRule) this.queued.add(event.key);
          this.schedule();
        },
      },
      'clusterrole-aggregation controller',
    );
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.running;
  }

  private set(key: string, role: any): void {
    this.clusterRoles.set(key, role);
    if (!role.aggregationRule) {
      this.aggregators.delete(key);
      return;
    }
    let selectors: LabelSelector[];
    try {
      selectors = (role.aggregationRule.clusterRoleSelectors ?? []).map(labelSelectorFromObject);
    } catch {
      // A selector that cannot be parsed leaves the role's rules as they are (aggregatedRules).
      selectors = [];
    }
    this.aggregators.set(key, selectors);
  }

  /** Queues the aggregated roles that select a role with these labels. */
  private queueSelecting(labels: Record<string, string> | undefined): void {
    if (labels === undefined) return;
    for (const [key, selectors] of this.aggregators)
      if (selectors.some((selector) => selector.matches(labels))) this.queued.add(key);
  }

  /** One pass at a time; changes during a pass ask for one more. */
  private schedule(): void {
    if (this.queued.size === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.aggregateAll().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.schedule();
      }
    });
  }

  private async aggregateAll(): Promise<void> {
    const keys = [...this.queued];
    this.queued.clear();
    const roles = [...this.clusterRoles.values()];
    const registry = this.api.registryOf('rbac.authorization.k8s.io', 'clusterroles')!;
    for (const key of keys) {
      if (this.stopped) return;
      const role = this.clusterRoles.get(key);
      if (!role?.aggregationRule) continue;
      const rules = aggregatedRules(role, roles);
      if (sameRules(rules, role.rules ?? [])) continue;
      try {
        await mutate(registry, '', role.metadata.name, (current) => {
          if (!current.aggregationRule) return false;
          current.rules = rules;
          return true;
        });
      } catch (err) {
        if (!this.stopped) log.warn(role.metadata.name, { clusterRole: role.metadata.name, error: errorMessage(err) });
      }
    }
  }
}

/** equality.Semantic.DeepEqual on rule lists, for which a missing list equals an empty one. */
function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  const normal = (rules: readonly PolicyRule[]) =>
    JSON.stringify(
      rules.map((rule) => [
        rule.verbs ?? [],
        rule.apiGroups ?? [],
        rule.resources ?? [],
        rule.resourceNames ?? [],
        rule.nonResourceURLs ?? [],
      ]),
    );
  return normal(a) === normal(b);
}
