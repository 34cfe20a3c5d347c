/** A tenant's name must still fit the upstream limit once the prefix is in front of it. */
import { TranslationError, type TenantContext } from '../context.js';

export interface NamedField {
  /** The field in the tenant's own object (`metadata.name`, `spec.group`). */
  field: string;
  /** The object the field belongs to, as the tenant named it. */
  name: string;
  kind: string;
  group: string;
}

/** Throws 422 Invalid, worded as the apiserver words it, when `value` would outgrow `upstreamLimit`. */
export function checkLength(ctx: TenantContext, value: string, upstreamLimit: number, target: NamedField): void {
  const limit = upstreamLimit - ctx.prefix.length;
  if (value.length <= limit) return;
  const detail = `Invalid value: "${value}": must be no more than ${limit} characters`;
  throw new TranslationError(422, 'Invalid', `${target.kind} "${target.name}" is invalid: ${target.field}: ${detail}`, {
    name: target.name,
    kind: target.kind,
    group: target.group,
    causes: [{ reason: 'FieldValueInvalid', field: target.field, message: detail }],
  });
}
