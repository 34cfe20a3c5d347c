/**
 * The two URL families of karmada-search, as the gateway serves them to the admin:
 *
 * - the proxy, `/apis/search.karmada.io/v1alpha1/proxying/<any>/proxy/<kubernetes path>`: a
 *   whole Kubernetes API under a prefix, so `kubectl --server https://<gw>/apis/…/proxy` works.
 *   Karmada never reads `<any>` (its docs write `karmada`), and the path it proxies is
 *   everything after `proxy`, with a leading `/` (just `/` when nothing follows).
 * - the search API, `/apis/search.karmada.io/v1alpha1/search/<category>/<kubernetes path>`,
 *   where only the `cache` category reads anything (`opensearch` answers an empty 200).
 */
import { SEARCH_GROUP, SEARCH_VERSION } from './resource-registry.js';

const PREFIX = `/apis/${SEARCH_GROUP}/${SEARCH_VERSION}/`;

export type SearchPath =
  { kind: 'proxy'; path: string } | { kind: 'search'; category: string; path: string } | { kind: 'none' };

/** What `pathname` (already without its query) asks of karmada-search, if anything. */
export function parseSearchPath(pathname: string): SearchPath {
  if (!pathname.startsWith(PREFIX)) return { kind: 'none' };
  const parts = pathname.slice(PREFIX.length).split('/');
  if (parts[0] === 'proxying' && parts.length >= 3 && parts[1] !== '' && parts[2] === 'proxy')
    return { kind: 'proxy', path: `/${parts.slice(3).join('/')}` };
  if (parts[0] === 'search' && parts.length >= 2 && parts[1] !== '')
    return { kind: 'search', category: parts[1], path: `/${parts.slice(2).join('/')}` };
  return { kind: 'none' };
}
