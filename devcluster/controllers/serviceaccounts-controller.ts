/**
 * kube-controller-manager's `serviceaccount` controller: every Active namespace has the
 * ServiceAccount `default`, created as soon as the namespace is and again whenever it is deleted.
 * It creates the bare object (a name, nothing else), as kube does.
 */
import type { ApiServer } from '../../apiserver/api-server.js';
import type { Store } from '../../store/index.js';
import { NamespaceObjectLoop } from './namespace-object-loop.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export function serviceAccountsController(api: ApiServer, store: Store): NamespaceObjectLoop {
  return new NamespaceObjectLoop(api, store, {
    controller: 'serviceaccount controller',
    resource: 'serviceaccounts',
    name: DEFAULT_SERVICE_ACCOUNT,
    fresh: () => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } }),
  });
}
