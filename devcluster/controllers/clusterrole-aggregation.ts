import type { ApiServer } from '../../apiserver/api-server.js';
import { aggregatedRules, type PolicyRule } from '../../apiserver/authorization/rbac-authorizer.js';
import { mutate } from '../../apiserver/registry/object-mutation.js';
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
 */
export class ClusterRoleAggregationController {
  private readonly loop: WatchLoop;
  private readonly clusterRoles = new Map<string, any>();
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
          for (const kv of items) this.clusterRoles.set(kv.key, JSON.parse(kv.value));
          this.schedule();
        },
        onEvent: (event) => {
          if (event.type === 'delete') this.clusterRoles.delete(event.key);
          else this.clusterRoles.set(event.key, JSON.parse(event.value));
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

  /** One pass at a time; changes during a pass ask for one more. */
  private schedule(): void {
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
    const roles = [...this.clusterRoles.values()];
    const registry = this.api.registryOf('rbac.authorization.k8s.io', 'clusterroles')!;
    for (const role of roles) {
      if (this.stopped) return;
      if (!role.aggregationRule) continue;
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
