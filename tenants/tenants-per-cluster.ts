/**
 * Where each tenant is placed and how many tenants each cluster holds, kept together so that the
 * count placement spreads by is read in one step, not counted over every tenant for each new one
 * (at 10,000 tenants that count was the quadratic part of creating them).
 */
export class TenantsPerCluster {
  private readonly clusterOf = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** The number of tenants on each cluster that holds any. */
  get load(): ReadonlyMap<string, number> {
    return this.counts;
  }

  get(tenant: string): string | undefined {
    return this.clusterOf.get(tenant);
  }

  set(tenant: string, cluster: string): void {
    this.delete(tenant);
    this.clusterOf.set(tenant, cluster);
    this.counts.set(cluster, (this.counts.get(cluster) ?? 0) + 1);
  }

  delete(tenant: string): void {
    const cluster = this.clusterOf.get(tenant);
    if (cluster === undefined) return;
    this.clusterOf.delete(tenant);
    const left = this.counts.get(cluster)! - 1;
    if (left) this.counts.set(cluster, left);
    else this.counts.delete(cluster);
  }

  clear(): void {
    this.clusterOf.clear();
    this.counts.clear();
  }
}
