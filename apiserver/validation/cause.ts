/**
 * One entry of a 422 Status's `details.causes`, shaped as kube-apiserver shapes a `field.Error`:
 * kubectl prints `<field>: <message>` for each cause and ignores the Status message, so the
 * message must read exactly like apimachinery's `ErrorBody()` (`Invalid value: "x": detail`).
 */
import { goQuote } from '../go-quote.js';

/** metav1.CauseType's values; '' is what kube leaves in an internal error's cause. */
export type CauseReason =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'
  | 'FieldValueTypeInvalid'
  | 'FieldManagerConflict'
  | 'NamespaceTerminating'
  | 'ResourceVersionTooLarge'
  | 'UnexpectedServerResponse'
  | 'InternalError'
  | '';

export interface Cause {
  reason: CauseReason;
  field: string;
  message: string;
}

export function invalid(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${renderValue(value)}`, detail) };
}

export function required(field: string, detail = ''): Cause {
  return { reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

export function forbidden(field: string, detail: string): Cause {
  return { reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): Cause {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: withDetail(`Unsupported value: ${renderValue(value)}`, detail),
  };
}

export function duplicate(field: string, value: unknown): Cause {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${renderValue(value)}` };
}

export function notFound(field: string, value: unknown): Cause {
  return { reason: 'FieldValueNotFound', field, message: `Not found: ${renderValue(value)}` };
}

/** `field.TooLong` never echoes the (long) value. */
export function tooLong(field: string, maxBytes: number): Cause {
  return {
    reason: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${maxBytes} ${maxBytes === 1 ? 'byte' : 'bytes'}`,
  };
}

function withDetail(head: string, detail: string): string {
  return detail ? `${head}: ${detail}` : head;
}

/** Strings as Go's %q, scalars bare, anything else as JSON (kube prints Go's %#v there, which has no JS equivalent). */
function renderValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}
