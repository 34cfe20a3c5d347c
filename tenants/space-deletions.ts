/**
 * The heal pass's watch: what tenants' spaces are made of upstream — ClusterRoles,
 * ClusterRoleBindings and the grant RoleBindings (labelled with the tenant) — watched for
 * deletions, so a deleted `<tid>-cluster-admin` role or binding, or a deleted grant, is made
 * again at once rather than at the next periodic pass. Only deletions: creations are what
 * tenant creation makes by the thousand, and need no healing.
 */
import type { IncomingMessage } from 'node:http';
import type { RestClient } from '../apiserver/client/rest-client.js';
import { TENANT_LABEL } from '../translate/kinds/tenant-label.js';

const RBAC_V1 = '/apis/rbac.authorization.k8s.io/v1';
const WATCHED = [
  `${RBAC_V1}/clusterroles?watch=1`,
  `${RBAC_V1}/clusterrolebindings?watch=1`,
  `${RBAC_V1}/rolebindings?watch=1&labelSelector=${encodeURIComponent(TENANT_LABEL)}`,
];
/** After a broken watch, before watching again. */
const REWATCH_MS = 1000;

/** Calls `deleted` on every deletion upstream of what tenants' spaces are made of, until `signal` aborts. */
export async function watchSpaceDeletions(client: RestClient, deleted: () => void, signal: AbortSignal): Promise<void> {
  await Promise.all(WATCHED.map((path) => follow(client, path, deleted, signal)));
}

async function follow(client: RestClient, path: string, deleted: () => void, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      const req = client.open('GET', path, { accept: 'application/json' });
      const stop = () => req.destroy();
      signal.addEventListener('abort', stop, { once: true });
      const done = () => {
        signal.removeEventListener('abort', stop);
        resolve();
      };
      // Whichever comes: an error, the request's close, the answer's close (done is idempotent).
      req.on('error', done);
      req.on('close', done);
      req.on('response', (res: IncomingMessage) => {
        res.setEncoding('utf8');
        // kube writes an event's `type` first; a deletion's line starts so, whatever the chunking, up to a split inside these bytes.
        res.on('data', (chunk: string) => {
          if (chunk.includes('{"type":"DELETED"')) deleted();
        });
        res.on('close', done);
        res.on('error', () => undefined);
      });
      req.end();
    });
    if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, REWATCH_MS).unref());
  }
}
