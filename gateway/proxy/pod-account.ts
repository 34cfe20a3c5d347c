/**
 * kube's ServiceAccount admission mounts no token into a pod that says nothing of
 * `automountServiceAccountToken` when its account says false. The gateway adds the token volume
 * itself (translate/kinds/pod-api.ts), so before it converts a whole pod or pod template that
 * says nothing (a create, an update, a server-side apply) it reads the account named, in the
 * pod's namespace, and converts it without the volume when the account turns automount off. One
 * GET as the gateway per such write (kube's admission reads its informer); an account that is not
 * there leaves the mount on (kube refuses such a pod; a template's pods meet the cluster's own
 * admission when they are made). Other patches add no volume (PodApi.adds); one that names the
 * account has its result set right for it after its dry run (accountTokenCheck).
 */
import { isObject, type Json } from '../../apiserver/json.js';
import { isDNS1123Subdomain } from '../../apiserver/validation/names.js';
import { addPrefix, type TenantContext } from '../../translate/context.js';
import { objectAt } from '../../translate/kinds/convertor.js';
import { recordedAutomount, setGatewayToken } from '../../translate/kinds/pod-api.js';
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
  const path = podPathOf(r);
  if (!path || !isObject(parsed)) return ctx;
  const spec = objectAt(parsed, [...path, 'spec']);
  if (!spec || typeof spec.automountServiceAccountToken === 'boolean') return ctx;
  const account = spec.serviceAccountName || spec.serviceAccount || 'default';
  if (typeof account !== 'string' || (await accountMounts(r, account))) return ctx;
  return { ...ctx, podApi: { ...ctx.podApi, tokenVolume: false } };
}

/**
 * A patch other than an apply that names a pod's or template's ServiceAccount (`kubectl set
 * serviceaccount`): its dry-run result given the gateway's token volume, or relieved of it, as
 * the new account (and the tenant's own automountServiceAccountToken) call for; undefined when it
 * is right already. checked-write.ts then writes that result instead of the patch.
 */
export function accountTokenCheck(r: TenantRequest, contentType: string, raw: Buffer): TokenCheck | undefined {
  const { ctx, t } = r;
  if (!ctx.podApi || r.method !== 'PATCH' || contentType === APPLY || !t.namespaced || !t.info.namespace) return;
  const path = podPathOf(r);
  if (!path || !raw.includes('serviceAccount')) return;
  const namespace = t.info.namespace;
  return async (result) => {
    const copy = structuredClone(result);
    const holder = objectAt(copy, path);
    const spec = holder?.spec;
    if (!holder || !isObject(spec)) return undefined;
    const own = recordedAutomount(holder);
    if (own === 'unrecorded') return undefined;
    const wanted = own ?? (await accountMounts(r, String(spec.serviceAccountName || 'default')));
    return setGatewayToken(ctx, holder, wanted, namespace) ? copy : undefined;
  };
}

/** Where the kind the request writes holds its pod or template (pod-spec.ts POD_PATHS); undefined for any other kind. */
function podPathOf(r: TenantRequest): readonly string[] | undefined {
  const type = writeBodyType(r.t);
  return type && POD_PATHS.get(`${type.group}/${type.kind}`);
}

/** A patch's dry-run result, set right for its account; undefined when it is right. */
export type TokenCheck = (result: Json) => Promise<Json | undefined>;

/** Whether kube's admission mounts a token for `account` in the request's namespace: unless it says false. */
async function accountMounts(r: TenantRequest, account: string): Promise<boolean> {
  if (isDNS1123Subdomain(account).length > 0) return true;
  const res = await r.upstream.admin.request(
    'GET',
    `/api/v1/namespaces/${encodeURIComponent(addPrefix(r.ctx, r.t.info.namespace))}/serviceaccounts/${encodeURIComponent(account)}`,
  );
  return !(res.status === 200 && res.body?.automountServiceAccountToken === false);
}
