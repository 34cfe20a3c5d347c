import type { IncomingHttpHeaders } from 'node:http';
import { statusOf, type Status } from '../../apiserver/status.js';

/**
 * A tenant's own `Impersonate-*` headers (`kubectl --as`, `--as-group`, `--as-uid`). The gateway
 * impersonates upstream on the tenant user's behalf, so it cannot pass them on, and dropping them
 * would run the request as someone the client did not ask for: it is refused, whole.
 */
export function clientImpersonationRefusal(headers: IncomingHttpHeaders): Status | undefined {
  // Asked of every tenant request: nothing is allocated unless there is something to refuse.
  let any = false;
  for (const name in headers)
    if (name.startsWith('impersonate-')) {
      any = true;
      break;
    }
  if (!any) return undefined;
  const sent = Object.keys(headers).filter((name) => name.startsWith('impersonate-'));
  // The user first, as kubectl's flags read: --as, then --as-group and --as-uid.
  const names = sent
    .sort((a, b) => Number(b === 'impersonate-user') - Number(a === 'impersonate-user') || a.localeCompare(b))
    .map((name) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()));
  return statusOf(
    403,
    'Forbidden',
    `impersonation is not available through the gateway: the request carries ${names.join(', ')} (kubectl --as, --as-group, --as-uid); run kubectl without them, as the user of your kubeconfig`,
  );
}
