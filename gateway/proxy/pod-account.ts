/**
 * kube's ServiceAccount admission mounts no token into a pod that says nothing of
 * `automountServiceAccountToken` when its account says false. The gateway adds the token volume
 * itself (translate/kinds/pod-api.ts), so before it converts a whole pod or pod template that
 * says nothing (a create, an update, a server-side apply) it reads the account named, in the
 * pod's namespace, and converts it without the volume when the account turns automount off. One
 * GET as the gateway per such write (kube's admission reads its informer); an account that is not
 * there leaves the mount on (kube refuses such a pod; a template's pods meet the cluster's own
 * admission when they are made). Patches other than an apply add no volume (PodApi.adds).
 */
import { isObject } from '../../apiserver/json.js';
import { isDNS1123Subdomain } from '../../apiserver/validation/names.js';
import { addPrefix, type TenantContext } from '../../translate/context.js';
import { objectAt } from '../../translate/kinds/convertor.js';
import { POD_PATHS } from '../../translate/kinds/pod-spec.js';
import { writeBodyType } from '../../translate/write-body.js';
import type { TenantRequest } from '../server/tenant-request.js';

const APPLY = 'application/apply-patch+yaml';

/** The tenant's context for converting `parsed`, narrowed when the pod's account turns automount off. */
export async function podAccountContext(
  r: TenantRequest,
  contentType: string,
  parsed: unknown,
): Promise<TenantContext> {
  const { ctx, t } = r;
  if (!ctx.podApi || !t.namespaced || !t.info.namespace) return ctx;
  if (!(r.method === 'POST' || r.method === 'PUT' || (r.method === 'PATCH' && contentType === APPLY))) return ctx;
  const type = writeBodyType(t);
  const path = type && POD_PATHS.get(`${type.group}/${type.kind}`);
  if (!path || !isObject(parsed)) return ctx;
  const spec = objectAt(parsed, [...path, 'spec']);
  if (!spec || typeof spec.automountServiceAccountToken === 'boolean') return ctx;
  const account = spec.serviceAccountName || spec.serviceAccount || 'default';
  // A name kube would refuse is not looked up: the cluster refuses the pod.
  if (typeof account !== 'string' || isDNS1123Subdomain(account).length > 0) return ctx;
  const res = await r.upstream.admin.request(
    'GET',
    `/api/v1/namespaces/${encodeURIComponent(addPrefix(ctx, t.info.namespace))}/serviceaccounts/${encodeURIComponent(account)}`,
  );
  if (res.status !== 200 || res.body?.automountServiceAccountToken !== false) return ctx;
  return { ...ctx, podApi: { ...ctx.podApi, tokenVolume: false } };
}
