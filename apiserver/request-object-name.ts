/**
 * The name in a create's body, kept with its request: an audit event names the object a create
 * made as kube-apiserver's does (it reads the name from the request object), though the path of
 * a create names none. Noted where a body is parsed anyway (the API server's create, the tenant
 * proxy's writes, JSON or protobuf); a body sent on unparsed (the admin's pass-through) notes nothing.
 */
import type { IncomingMessage } from 'node:http';
import { isObject } from './json.js';

const names = new WeakMap<IncomingMessage, string>();

export function noteRequestObjectName(req: IncomingMessage, object: unknown): void {
  const name = isObject(object) && isObject(object.metadata) ? object.metadata.name : undefined;
  if (typeof name === 'string' && name !== '') names.set(req, name);
}

export function requestObjectName(req: IncomingMessage): string | undefined {
  return names.get(req);
}
