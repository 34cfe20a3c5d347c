import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceCatalog } from '../catalog.js';
import {
  acceptsAggregatedDiscovery,
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
} from '../discovery/aggregated.js';
import { apiGroupList, apiResourceList, apiVersions } from '../discovery/legacy.js';
import { sendJson } from './http-io.js';

/**
 * `/api`, `/apis`, `/apis/<group>`, `/api/v1`, `/apis/<group>/<version>`. The aggregated (v2)
 * form is served only when the client asks for it, with the exact Content-Type client-go keys
 * on; otherwise the legacy documents. Returns false when the path is not a discovery path.
 */
export function handleDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  catalog: ResourceCatalog,
  serverAddress: string,
): boolean {
  const parts = path.split('/').filter(Boolean);
  const resources = catalog.resources();
  if (parts.length === 1 && (parts[0] === 'api' || parts[0] === 'apis')) {
    const which = parts[0];
    const aggregated = acceptsAggregatedDiscovery(req.headers.accept ?? '');
    if (aggregated) {
      sendJson(req, res, 200, aggregatedDiscovery(resources, which, aggregated), {
        'Content-Type': aggregatedDiscoveryContentType(aggregated),
        Vary: 'Accept',
      });
    } else {
      sendJson(
        req,
        res,
        200,
        which === 'api' ? apiVersions(serverAddress) : apiGroupList(resources.filter((r) => r.group !== '')),
        { Vary: 'Accept' },
      );
    }
    return true;
  }
  if (parts[0] === 'api' && parts.length === 2) {
    const matching = resources.filter((r) => r.group === '' && r.version === parts[1]);
    if (matching.length === 0) return false;
    sendJson(req, res, 200, apiResourceList(parts[1], matching));
    return true;
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    const group = apiGroupList(resources.filter((r) => r.group === parts[1])).groups[0];
    if (!group) return false;
    sendJson(req, res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...group });
    return true;
  }
  if (parts[0] === 'apis' && parts.length === 3) {
    const matching = resources.filter((r) => r.group === parts[1] && r.version === parts[2]);
    if (matching.length === 0) return false;
    sendJson(req, res, 200, apiResourceList(`${parts[1]}/${parts[2]}`, matching));
    return true;
  }
  return false;
}
