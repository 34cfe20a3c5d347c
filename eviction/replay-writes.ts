/**
 * A failover's writes on the tenant's new cluster, once its space is made there: each step of the
 * replay plan (tenant-replay.ts) admitted or skipped (replay-admission.ts), then written in an
 * order each write can be made in:
 *
 * 1. cluster-scoped objects, with the gateway's credentials: CRDs, namespaces, then the rest (the
 *    tenant's ClusterRoles among them) and the tenant's ClusterRoleBindings, stored as RoleBindings
 *    in its kube-system (translate/kinds/stored-cluster-role-binding.ts);
 * 2. the grants the tenant's bindings call for in its namespaces, made by the gateway from the
 *    namespaces and ClusterRoleBindings it wrote (tenants/upstream-space.ts, grantReplayedSpace),
 *    as after a tenant's write of a binding or a namespace;
 * 3. namespaced objects, ServiceAccounts first (pods are admitted against them), as the tenant's
 *    administrator `<tid>-admin`, impersonated as the tenant proxy does: the new cluster's RBAC
 *    decides them as it decides the tenant's writes. Its authorizer learns of the grants just made
 *    by watch, so a 403 is tried again until GRANT_PROPAGATION_MS after them.
 *
 * The steps of one phase go REPLAY_AT_ONCE at a time. An object already there (a retried move) is
 * fine; a 4xx is the cluster refusing that object, the others may not be; a 5xx throws, and the
 * whole move is tried again.
 */
import type { RequestHeaders, RestResponse } from '../apiserver/client/rest-client.js';
import type { Json } from '../apiserver/json.js';
import type { Logger } from '../log/log.js';
import type { TenantContext } from '../translate/context.js';
import { grantReplayedSpace } from '../tenants/upstream-space.js';
import { isStoredBindingName, storedBindingDown } from '../translate/kinds/stored-cluster-role-binding.js';
import { impersonationHeaders, tenantAdminIdentity } from '../tenants/upstream-identity.js';
import type { Clock } from '../clusters/clock.js';
import { admitReplay } from './replay-admission.js';
import { REPLAY_PHASES, replayPhaseOf, type ReplayStep } from './tenant-replay.js';

/** Replay requests of one phase in flight at once: a tenant with thousands of objects does not open thousands of them. */
const REPLAY_AT_ONCE = 16;
/** How long after its grants are made a 403 to the tenant's administrator is taken for RBAC not there yet. */
export const GRANT_PROPAGATION_MS = 10_000;
const RETRY_403_MS = 100;
/** How many objects a task's message names of each list, and how long it grows at most. */
const NAMED_IN_MESSAGE = 3;
const MESSAGE_CHARS = 400;
/** How many skipped objects the warning names, each with why. */
const NAMED_IN_LOG = 10;

/** What the replay needs of the new cluster's API: a JSON request with the gateway's credentials, and headers. */
export interface ReplayApi {
  request(method: string, path: string, body?: unknown, headers?: RequestHeaders): Promise<RestResponse>;
}

export interface ReplayOutcome {
  /** The objects to replay (the gateway's grants, made again rather than copied, not among them). */
  readonly planned: number;
  /** Created, or there already. */
  readonly replayed: number;
  /** What the new cluster refused, as `resource namespace/name: code`. */
  readonly refused: readonly string[];
  /** What the tenant's own write would be refused, as `resource namespace/name`, with why. */
  readonly skipped: readonly { readonly object: string; readonly reason: string }[];
}

interface Write {
  readonly step: ReplayStep;
  readonly path: string;
  readonly body: Json;
  readonly as: 'gateway' | 'tenant-admin';
}

/** Replays the steps on the cluster of `client`; what is skipped is logged as a warning on `log`. */
export async function replayOnCluster(
  client: ReplayApi,
  ctx: TenantContext,
  steps: readonly ReplayStep[],
  clock: Clock,
  log: Logger,
): Promise<ReplayOutcome> {
  const writes: Write[] = [];
  const skipped: { object: string; reason: string }[] = [];
  for (const step of steps) {
    const admission = admitReplay(ctx, step);
    if (admission.verdict === 'write') writes.push({ step, ...admission });
    else if (admission.verdict === 'skip') skipped.push({ object: objectName(step), reason: admission.reason });
  }
  if (skipped.length)
    log.warn(
      `tenant ${ctx.tenantId}: ${skipped.length} objects not replayed, as the tenant's own writes would be refused: ${skipped
        .slice(0, NAMED_IN_LOG)
        .map(({ object, reason }) => `${object} (${reason})`)
        .join('; ')}${skipped.length > NAMED_IN_LOG ? `; and ${skipped.length - NAMED_IN_LOG} more` : ''}`,
      { tenant: ctx.tenantId, skipped: skipped.length },
    );
  const refused: string[] = [];
  /** What the cluster has now, written or there already. */
  const made: Write[] = [];
  const send = async (write: Write, headers: RequestHeaders, retry403Until: number) => {
    for (;;) {
      const res = await client.request('POST', write.path, write.body, headers);
      if (res.status === 201 || res.status === 409) {
        made.push(write);
        return;
      }
      if (res.status === 403 && clock.now() < retry403Until) {
        await new Promise((resolve) => clock.setTimer(() => resolve(undefined), RETRY_403_MS));
        continue;
      }
      // The cluster answered: this object is refused there, the others may not be.
      if (res.status < 500) {
        refused.push(`${objectName(write.step)}: ${res.status}`);
        return;
      }
      throw new Error(`replaying ${objectName(write.step)}: ${res.status} ${res.text.slice(0, 200)}`);
    }
  };
  const inPhases = async (selected: Write[], headers: RequestHeaders, retry403Until: number) => {
    for (const phase of phases(selected))
      for (let i = 0; i < phase.length; i += REPLAY_AT_ONCE)
        await Promise.all(phase.slice(i, i + REPLAY_AT_ONCE).map((write) => send(write, headers, retry403Until)));
  };
  await inPhases(
    writes.filter((write) => write.as === 'gateway'),
    {},
    0,
  );
  const madeOf = (group: string, resource: string) =>
    made.filter((write) => write.step.resource.group === group && write.step.resource.resource === resource);
  // The tenant's ClusterRoleBindings, written where they are stored (RoleBindings), in their upstream form.
  const storedBindings = madeOf('rbac.authorization.k8s.io', 'rolebindings').flatMap((write) =>
    isStoredBindingName(write.body.metadata?.name) ? [storedBindingDown(ctx, structuredClone(write.body))] : [],
  );
  await grantReplayedSpace(
    client,
    ctx.tenantId,
    [
      ...madeOf('rbac.authorization.k8s.io', 'clusterrolebindings').map((write) => write.body),
      ...storedBindings.filter((binding): binding is Json => binding !== null),
    ],
    madeOf('', 'namespaces').map((write) => write.step.name),
  );
  await inPhases(
    writes.filter((write) => write.as === 'tenant-admin'),
    impersonationHeaders(tenantAdminIdentity(ctx.tenantId)),
    clock.now() + GRANT_PROPAGATION_MS,
  );
  return { planned: writes.length + skipped.length, replayed: writes.length - refused.length, refused, skipped };
}

/** The task's message: how much was replayed, and the first few objects refused and skipped, bounded. */
export function replayMessage(outcome: ReplayOutcome, cluster: string): string {
  const { planned, replayed, refused, skipped } = outcome;
  let message = `replayed ${replayed} of ${planned} objects on ${cluster}`;
  if (refused.length) message += `; refused there: ${named(refused)}`;
  if (skipped.length)
    message += `; not replayed, as the tenant's own writes would be refused: ${named(skipped.map((s) => s.object))}`;
  return message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS - 1)}…` : message;
}

function named(objects: readonly string[]): string {
  const more = objects.length - NAMED_IN_MESSAGE;
  return `${objects.slice(0, NAMED_IN_MESSAGE).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function objectName(step: ReplayStep): string {
  return `${step.resource.resource} ${step.namespace ? `${step.namespace}/` : ''}${step.name}`;
}

/** The writes cut where the phase changes (replayPlan's order). */
function phases(writes: readonly Write[]): Write[][] {
  const cut: Write[][] = Array.from({ length: REPLAY_PHASES }, () => []);
  for (const write of writes) cut[replayPhaseOf(write.step.resource)].push(write);
  return cut.filter((phase) => phase.length > 0);
}
