import { pathNotFoundError, TranslationError } from './context.js';
import type { TranslatedRequest } from './request.js';

/** The kubelet paths a tenant may reach through `nodes/<name>/proxy`: none of them names a pod. */
const TENANT_KUBELET_PATHS = new Set(['/healthz']);

/**
 * The upstream path of a `proxy` subresource request (pods, services, nodes), or a 403.
 *
 * Pods and services are the tenant's own (their namespace is already prefixed); what they answer
 * is the tenant's workload speaking, passed on as it is. A node's proxy reaches its kubelet,
 * which serves every tenant's pods (`/pods`, `/stats/summary`, `/metrics`, `/exec`, `/logs`):
 * only its health is open to tenants. kube-apiserver hands on the path after `proxy` with its
 * trailing slash, which requestUp's segments lose, so it is put back from the raw request path.
 */
export function proxyPathUp(t: TranslatedRequest, rawPath: string): string {
  if (t.info.group === '' && t.info.resource === 'nodes') {
    const rest = `/${t.info.rest.join('/')}`;
    if (!TENANT_KUBELET_PATHS.has(rest)) {
      throw new TranslationError(
        403,
        'Forbidden',
        `nodes "${t.info.name}" is forbidden: a node's proxy reaches every tenant's pods on it; tenants may only reach ${[...TENANT_KUBELET_PATHS].join(', ')}`,
        { name: t.info.name, kind: 'nodes' },
      );
    }
  } else if (t.info.group !== '' || (t.info.resource !== 'pods' && t.info.resource !== 'services')) {
    throw pathNotFoundError();
  }
  return rawPath.endsWith('/') && !t.path.endsWith('/') ? `${t.path}/` : t.path;
}
