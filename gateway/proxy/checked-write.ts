/**
 * Every write the tenant proxy sends keeps the isolation invariants of what it stores
 * (translate/stored-object.ts, from the kind records of translate/kinds/kind-records.ts).
 *
 * - Create and update (and their protobuf bodies, and subresources whose body is the object):
 *   the body is converted already, and checked once more before it goes, so a gap in a convertor
 *   is a 403, not an object outside the tenant: a JSON body as it was converted (body-up.ts, by
 *   storedObjectUp, which a failover's replay shares), a protobuf body here, by its JSON shadow.
 * - Patches (JSON, merge, strategic merge, apply) of a kind with invariants of its own, or that
 *   mention ownerReferences (the one metadata invariant a patch can reach): only the upstream
 *   knows what the patch makes of the stored object. The same patch, with the same impersonation,
 *   is sent with `dryRun=All`; its answer is the object as it would be stored, and it is checked.
 *   If it holds, the patch is sent for real with a resourceVersion precondition equal to the dry
 *   run's, so what is stored is exactly what was checked; if the object changed meanwhile (409),
 *   the whole round is tried again after a pause, a few times. If it does not hold but can be
 *   made to without guessing (a webhook's tenant requirement, a rule's scope, a Namespace's
 *   tenant label), the normalized dry-run result is written with a PUT carrying the same
 *   resourceVersion; anything else is 403 naming the fields.
 *
 * Both also check the object's new blocking owner references (owner-lookup.ts): a reference with
 * `blockOwnerDeletion` to no object of the tenant's is 403.
 *
 * Why the patch itself with a precondition, and not the dry-run result as a PUT: the patch keeps
 * its own semantics upstream — an apply stays an apply (its field ownership, its manager), a
 * patch's managedFields entry stays the client's — while the precondition pins the base it is
 * applied to, so the result is the one checked. A PUT is used only where the gateway changed the
 * result, which no patch could express.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject } from '../../apiserver/json.js';
import { TranslationError, type TenantContext } from '../../translate/context.js';
import { protobufBodyShadow } from '../../translate/protobuf-body.js';
import type { TranslatedRequest } from '../../translate/request.js';
import { checkStored, normalizedStored, patchNeedsDryRun, type StoredType } from '../../translate/stored-object.js';
import { writeBodyType } from '../../translate/write-body.js';
import type { OwnerCheck } from './owner-lookup.js';
import type { TokenCheck } from './pod-account.js';
import type { UpstreamResponse } from '../../clusters/cluster-connection.js';

/** Sends one request upstream as the tenant, with the request's headers (and another content type where given). */
export type Send = (
  verb: string,
  method: string,
  query: URLSearchParams,
  body: string | Buffer,
  contentType?: string,
) => Promise<UpstreamResponse>;

export interface WriteRequest {
  ctx: TenantContext;
  t: TranslatedRequest;
  method: string;
  /** The upstream query (the path is the send's). */
  query: URLSearchParams;
  contentType: string;
  /** The body as it goes upstream. */
  body: string | Buffer;
  /** The same body parsed (JSON bodies). */
  converted: unknown;
  /** A patch that names a pod's ServiceAccount: its result set right for the account's token (pod-account.ts). */
  tokenCheck?: TokenCheck;
}

/**
 * Rounds of dry run and write before a patch whose object keeps changing is answered 409, and the
 * pause before each round after the first. kube-apiserver applies a patch again on a conflict
 * (5 times) within microseconds; a round here is two requests upstream, and a Deployment its
 * controllers are still updating (just made, rolling out) changed under four rounds in a row
 * (70 ms). The pauses, doubling and jittered as client-go's retry.DefaultBackoff, wait that out:
 * 10 ms, then 20, … 640, about 1.3 s in all before the client gets its 409.
 */
const ATTEMPTS = 8;
const FIRST_PAUSE_MS = 10;
const APPLY = 'application/apply-patch+yaml';

export async function checkedWrite(
  request: WriteRequest,
  send: Send,
  checkOwners: OwnerCheck,
): Promise<UpstreamResponse> {
  const { ctx, t, method, query, body } = request;
  const bodyType = writeBodyType(t);
  if (!bodyType) return send(t.info.verb, method, query, body);
  const type: StoredType = { group: bodyType.group, kind: bodyType.kind, name: t.info.name };
  if (method !== 'PATCH') {
    const object = Buffer.isBuffer(body)
      ? protobufBodyShadow(body, { apiVersion: bodyType.apiVersion, kind: bodyType.kind })
      : request.converted;
    if (isObject(object)) {
      // A JSON body was checked as it was converted (body-up.ts); a protobuf one only here.
      if (Buffer.isBuffer(body)) checkStored(ctx, type, object);
      await checkOwners(object, body);
    }
    return send(t.info.verb, method, query, body);
  }
  // The body went up re-serialized: a patch that changes owner references names them in plain text.
  const namesOwners = typeof body === 'string' && body.includes('ownerReferences');
  if (!patchNeedsDryRun(type) && !namesOwners) return send(t.info.verb, method, query, body);
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) await pause(attempt);
    const dryQuery = new URLSearchParams(query);
    dryQuery.set('dryRun', 'All');
    const dry = await send('dryrun', method, dryQuery, body);
    const dryText = await dry.body.text();
    const result = dry.status < 300 ? parseObject(dryText) : undefined;
    // The upstream's refusal (or an answer that is no object) is what the real write would get.
    if (!result || query.has('dryRun')) return answered(dry, dryText);
    const resourceVersion =
      typeof result.metadata?.resourceVersion === 'string' && result.metadata.resourceVersion !== ''
        ? result.metadata.resourceVersion
        : undefined;
    const checked =
      request.contentType === APPLY ? (checkStored(ctx, type, result), undefined) : normalizedStored(ctx, type, result);
    const normalized = (await request.tokenCheck?.(checked ?? result)) ?? checked;
    // A patch that does not name them leaves the stored owner references as they are.
    if (namesOwners) await checkOwners(normalized ?? result, dryText);
    let written: UpstreamResponse;
    if (normalized) {
      if (!resourceVersion)
        throw new TranslationError(
          403,
          'Forbidden',
          `${type.kind} "${type.name}" is forbidden: the patch would leave the tenant`,
        );
      delete normalized.metadata.managedFields;
      const putQuery = new URLSearchParams(query);
      putQuery.delete('force');
      written = await send('update', 'PUT', putQuery, JSON.stringify(normalized), 'application/json');
    } else {
      // An apply that creates the object has no resourceVersion to pin: its config was converted
      // whole, and nothing of the check's answer can differ but by a create of the tenant's own.
      const pinned = resourceVersion ? withResourceVersion(request.converted, resourceVersion) : body;
      written = await send(t.info.verb, method, query, pinned);
    }
    if (written.status !== 409 || attempt >= ATTEMPTS) return written;
    const text = await written.body.text();
    if (parseObject(text)?.reason !== 'Conflict' || (request.contentType === APPLY && !resourceVersion))
      return answered(written, text);
  }
}

/**
 * The pause before round `attempt` (2 or more), up to a tenth longer, so that rounds do not keep
 * step with a writer's.
 */
function pause(attempt: number): Promise<void> {
  return sleep(FIRST_PAUSE_MS * 2 ** (attempt - 2) * (1 + Math.random() * 0.1));
}

/**
 * The patch with a precondition on the object's resourceVersion: JSON patch gets a last operation
 * setting it (the patched object then carries it, and the apiserver refuses a write on any other
 * with 409; a `test` operation would fail with 422, not a conflict to retry); the other patch types
 * get it in their metadata.
 */
function withResourceVersion(patch: unknown, resourceVersion: string): string {
  if (Array.isArray(patch))
    return JSON.stringify([...patch, { op: 'add', path: '/metadata/resourceVersion', value: resourceVersion }]);
  const object = patch as Record<string, any>;
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return JSON.stringify({ ...object, metadata: { ...metadata, resourceVersion } });
}

/** An answer already read, handed on as if it had just come. */
function answered(response: UpstreamResponse, text: string): UpstreamResponse {
  const body = Object.assign(Readable.from([text]), { text: async () => text });
  return { status: response.status, headers: response.headers, body };
}

function parseObject(text: string): Record<string, any> | undefined {
  try {
    const parsed = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
