import { Histogram, type Registry } from 'prom-client';
import type { ClusterRoleBindingsWalked } from '../apiserver/authorization/rbac-authorizer.js';

/**
 * How many ClusterRoleBindings RBAC reads to decide one request, on the devcluster's `/metrics`
 * (`paddock_devcluster_rbac_clusterrolebindings_walked`). kube's rule resolver lists every
 * ClusterRoleBinding and checks its subjects on every request, whoever makes it, until one grants
 * (a namespaced request granted by a RoleBinding reads them all first): every binding upstream is
 * a cost each request of every tenant pays, which is what this measures (docs/isolation.md,
 * "A tenant's footprint upstream").
 */
export class ClusterRoleBindingWalks {
  private readonly histogram: Histogram;

  constructor(registry: Registry) {
    this.histogram = new Histogram({
      name: 'paddock_devcluster_rbac_clusterrolebindings_walked',
      help: 'ClusterRoleBindings the RBAC authorizer read to decide one request or access review (every one, unless one granted first).',
      buckets: [0, 1, 10, 100, 1000, 10_000, 100_000],
      registers: [registry],
    });
  }

  /** The authorizer's report of each decision's walk. */
  readonly observe: ClusterRoleBindingsWalked = (count) => this.histogram.observe(count);
}
