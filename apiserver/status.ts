import { isStoreError } from '../store/index.js';
import { goQuote } from './go-quote.js';
import type { Cause } from './validation/cause.js';

/**
 * Kubernetes Status errors, worded as kube-apiserver words them, because kubectl prints
 * `Error from server (<reason>): <message>` and, for 422, rebuilds the text from `details`.
 */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Cause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
  get code(): number {
    return this.status.code;
  }
}

export function statusOf(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return status;
}

/**
 * The answer kube-apiserver's generic registry gives for an object it deleted at once, unless the
 * kind returns the deleted object (ResourceInfo.returnsDeletedObject): `kind` in the details is
 * the resource, and `group` is left out for the core group (omitempty), as kube writes it.
 */
export interface DeletedStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success';
  details: StatusDetails;
}

export function deletedStatus(gr: GroupResource, name: string, uid: string): DeletedStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, uid },
  };
}

/** A write that lost a race: the object changed since it was read (409 Conflict, not AlreadyExists). */
export function isConflict(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status.reason === 'Conflict';
}

function fail(code: number, reason: string, message: string, details?: StatusDetails): ApiError {
  return new ApiError(statusOf(code, reason, message, details));
}

/** A group-resource as kube prints it in messages: `pods`, `deployments.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export const notFound = (gr: GroupResource, name: string) =>
  fail(404, 'NotFound', `${qualifiedResource(gr)} ${goQuote(name)} not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });

export const alreadyExists = (gr: GroupResource, name: string) =>
  fail(409, 'AlreadyExists', `${qualifiedResource(gr)} ${goQuote(name)} already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });

export const conflict = (gr: GroupResource, name: string) =>
  fail(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${goQuote(name)}: the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: gr.group, kind: gr.resource },
  );

export function invalid(kind: string, group: string, name: string, causes: Cause[]): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = text.length === 1 ? text[0] : `[${text.join(', ')}]`;
  return fail(422, 'Invalid', `${qualifiedKind} ${goQuote(name)} is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes,
  });
}

export const badRequest = (message: string) => fail(400, 'BadRequest', message);

export const forbidden = (gr: GroupResource, name: string, reason: string) =>
  fail(403, 'Forbidden', `${qualifiedResource(gr)} ${name ? `${goQuote(name)} ` : ''}is forbidden: ${reason}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });

export const methodNotAllowed = (verb: string, gr: GroupResource) =>
  fail(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"`, {
    group: gr.group,
    kind: gr.resource,
  });

export const unsupportedMediaType = (accepted: string[]) =>
  fail(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );

export const notAcceptable = (accepted: string[]) =>
  fail(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);

/**
 * kube's answer for a path it does not serve: empty `details`, which kubectl reads (`kubectl debug`
 * tells a missing `ephemeralcontainers` subresource from a missing pod by `details.name`, and
 * crashes on a Status without details).
 */
export const pathNotFound = () => fail(404, 'NotFound', 'the server could not find the requested resource', {});

export const unauthorized = () => fail(401, 'Unauthorized', 'Unauthorized');

export const requestEntityTooLarge = (limit: number) =>
  fail(413, 'RequestEntityTooLarge', `the request entity is too large: limit is ${limit} bytes`);

export const expired = (message: string) => fail(410, 'Expired', message);

export const tooLargeResourceVersion = (requested: number, current: number) =>
  fail(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
    retryAfterSeconds: 1,
  });

export const internalError = (message: string) =>
  fail(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ reason: '', message, field: '' }] });

export const serviceUnavailable = (message: string) =>
  fail(503, 'ServiceUnavailable', message, { retryAfterSeconds: 1 });

/** Maps store failures that escaped a handler to their HTTP statuses (see store/errors.ts). */
export function toApiError(err: unknown, gr?: GroupResource, name?: string): ApiError {
  if (err instanceof ApiError) return err;
  if (isStoreError(err)) {
    switch (err.code) {
      case 'NotFound':
        return gr ? notFound(gr, name ?? '') : pathNotFound();
      case 'AlreadyExists':
        return gr ? alreadyExists(gr, name ?? '') : fail(409, 'AlreadyExists', err.message);
      case 'Conflict':
        return gr ? conflict(gr, name ?? '') : fail(409, 'Conflict', err.message);
      case 'Expired':
        return expired(err.message);
      case 'Invalid':
        return badRequest(err.message);
      case 'TooLargeRevision':
        return fail(504, 'Timeout', `Too large resource version: ${err.message}`, { retryAfterSeconds: 1 });
      case 'Unavailable':
        return serviceUnavailable(`storage is unavailable: ${err.message}`);
    }
  }
  return internalError(err instanceof Error ? err.message : String(err));
}
