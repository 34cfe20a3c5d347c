/**
 * The one authorizer of tenants' requests per cluster (request-authorizer.ts), made on a
 * cluster's first decision and following its RBAC objects from then on.
 */
import type { UpstreamConnection } from '../upstream/upstream-connection.js';
import { RequestAuthorizer } from './request-authorizer.js';

export class ClusterAuthorizers {
  /** By cluster name: a cluster given new credentials gets a new connection, and its authorizer with it. */
  private readonly authorizers = new Map<string, { upstream: UpstreamConnection; authorizer: RequestAuthorizer }>();

  /** The cluster's authorizer. */
  of(upstream: UpstreamConnection): RequestAuthorizer {
    const known = this.authorizers.get(upstream.name);
    if (known?.upstream === upstream) return known.authorizer;
    // The connection was replaced: the old authorizer's informers use credentials that are gone.
    known?.authorizer.stop();
    const authorizer = new RequestAuthorizer(upstream);
    authorizer.start();
    this.authorizers.set(upstream.name, { upstream, authorizer });
    return authorizer;
  }

  stop(): void {
    for (const { authorizer } of this.authorizers.values()) authorizer.stop();
    this.authorizers.clear();
  }
}
