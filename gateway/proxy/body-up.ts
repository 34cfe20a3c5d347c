/** Request bodies converted up: JSON objects, patches and protobuf; a DELETE's options as they came. */
import { noteRequestObjectName } from '../../apiserver/request-object-name.js';
import {
  decodeObjectBody,
  MAX_JSON_DEPTH,
  MAX_REQUEST_BYTES,
  nestedDeeperThan,
  readBody,
} from '../../apiserver/handlers/http-io.js';
import { TranslationError, type TenantContext } from '../../translate/context.js';
import { patchUp, type PatchBodyType } from '../../translate/patch.js';
import { protobufFieldsOf } from '../../translate/kinds/kind-records.js';
import { POD_KINDS } from '../../translate/kinds/pod-spec.js';
import { protobufBodyShadow, protobufBodyUp } from '../../translate/protobuf-body.js';
import { storedObjectUp } from '../../translate/stored-object.js';
import { writeBodyType } from '../../translate/write-body.js';
import { parseJson } from './answer-down.js';
import type { WriteRequest } from './checked-write.js';
import { accountTokenCheck, podAccountContext } from './pod-account.js';
import type { TenantRequest } from '../server/tenant-request.js';

const PATCH_TYPES = new Set([
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
]);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The media type of the request's body, without parameters (JSON when unsaid). */
export function contentTypeOf(r: TenantRequest): string {
  return (r.req.headers['content-type'] ?? 'application/json').split(';')[0].trim();
}

/** The request's body as it came, within `--max-request-bytes` (413 beyond). */
export function readRequestBody(r: TenantRequest): Promise<Buffer> {
  return readBody(r.req, r.services.maxRequestBytes ?? MAX_REQUEST_BYTES);
}

/**
 * A write's body converted up and set as the request's upstream body; returns the write as
 * checked-write.ts checks it. A pod or template is converted in the light of its ServiceAccount
 * (pod-account.ts).
 */
export async function writeUp(r: TenantRequest, raw: Buffer): Promise<WriteRequest> {
  let contentType = contentTypeOf(r);
  if (contentType === PROTOBUF && goesUpAsJson(r)) {
    raw = Buffer.from(JSON.stringify(decodeObjectBody(raw, PROTOBUF)));
    contentType = 'application/json';
  }
  // The parse is translation time too; the account read between it and the conversion is not.
  const parseStarted = performance.now();
  const parsed = contentType === PROTOBUF ? undefined : jsonBodyOf(r, raw);
  const parsing = performance.now() - parseStarted;
  const ctx = parsed === undefined ? r.ctx : await podAccountContext(r, contentType, parsed);
  const converted = r.metrics.time(
    'up',
    () => (contentType === PROTOBUF ? protobufUp(r, raw) : jsonBodyUp(r, ctx, contentType, parsed)),
    parsing,
  );
  const body = Buffer.isBuffer(converted) ? converted : JSON.stringify(converted);
  r.body = body;
  r.headers['content-type'] = contentType;
  const tokenCheck = accountTokenCheck(r, contentType, raw);
  return { ctx, t: r.t, method: r.method, query: r.t.query, contentType, body, converted, tokenCheck };
}

/**
 * Bodies a rewrite in place cannot convert, decoded whole to go up as JSON: TokenRequests and
 * TokenReviews (`kubectl create token` sends protobuf), whose audiences are filled in when none
 * are asked for (translate/kinds/token-request.ts), and pods and their templates (`kubectl
 * create deployment` sends protobuf), which are pointed at the gateway (translate/kinds/pod-api.ts).
 */
function goesUpAsJson(r: TenantRequest): boolean {
  const type = writeBodyType(r.t);
  if (!type) return false;
  if (r.method === 'POST' && (type.kind === 'TokenRequest' || type.kind === 'TokenReview')) return true;
  return (r.method === 'POST' || r.method === 'PUT') && POD_KINDS.has(`${type.group}/${type.kind}`);
}

/** A DELETE's body (DeleteOptions) goes up as it came: it names nothing of the tenant's. */
export async function deleteOptionsUp(r: TenantRequest): Promise<void> {
  const raw = await readRequestBody(r);
  if (!raw.length) return;
  r.body = raw.toString('utf8');
  r.headers['content-type'] = 'application/json';
}

/**
 * A protobuf body (kubectl's `create` generators and `auth can-i`) rewritten in place and sent
 * on as protobuf (translate/protobuf-body.ts). A subresource other than status carries a kind
 * of its own (TokenRequest, Scale, Eviction) with nothing to rewrite, and goes as it came.
 */
function protobufUp(r: TenantRequest, raw: Buffer): Buffer {
  const { t } = r;
  if (r.method === 'PATCH') throw unsupportedPatch();
  const type = writeBodyType(t);
  if (!type) return raw;
  const request = {
    apiVersion: type.apiVersion,
    kind: type.kind,
    namespace: t.namespaced ? t.info.namespace : undefined,
  };
  const up = protobufBodyUp(r.ctx, raw, request);
  // The tenant's own name, read from the body it sent where its kind's table reads names: what its audit event names.
  if (r.method === 'POST' && protobufFieldsOf(type.apiVersion, type.kind))
    noteRequestObjectName(r.req, protobufBodyShadow(raw, request));
  return up;
}

/** A JSON body parsed, within kube's depth. */
function jsonBodyOf(r: TenantRequest, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new TranslationError(
      400,
      'BadRequest',
      `the body of the request is nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  const parsed = parseJson(text);
  if (parsed === undefined) throw new TranslationError(400, 'BadRequest', 'the request body is not valid JSON');
  // The tenant's own name (before the prefix goes on): what its audit event names.
  if (r.method === 'POST') noteRequestObjectName(r.req, parsed);
  return parsed;
}

function jsonBodyUp(r: TenantRequest, ctx: TenantContext, contentType: string, parsed: unknown): unknown {
  const { t } = r;
  const type = writeBodyType(t);
  if (!type) return parsed;
  if (r.method === 'PATCH') {
    if (!PATCH_TYPES.has(contentType)) throw unsupportedPatch();
    const namespace = t.namespaced ? t.info.namespace : undefined;
    return patchUp(ctx, contentType as PatchBodyType, parsed, type.apiVersion, type.kind, namespace);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new TranslationError(400, 'BadRequest', 'the body of the request must be a JSON object');
  const object = parsed as Record<string, any>;
  if (
    t.namespaced &&
    t.info.namespace &&
    object.metadata &&
    typeof object.metadata === 'object' &&
    object.metadata.namespace === undefined
  ) {
    object.metadata = { ...object.metadata, namespace: t.info.namespace };
  }
  // Converted and checked as whatever the URL writes, whatever kind the body says it is.
  return storedObjectUp(
    ctx,
    { group: type.group, kind: type.kind, name: t.info.name },
    { ...object, apiVersion: object.apiVersion ?? type.apiVersion, kind: object.kind ?? type.kind },
  );
}

function unsupportedPatch(): TranslationError {
  return new TranslationError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${[...PATCH_TYPES].join(', ')}`,
  );
}
