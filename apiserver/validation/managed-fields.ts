/**
 * kube's ValidateManagedFields, run on the managedFields a write will store: an entry a client
 * sets that does not decode never gets here (the write keeps the live entries instead,
 * apiserver/apply/managed-fields.ts), but one that decodes is stored, so its manager must be a
 * field manager kube accepts.
 */
import { isGoPrintable } from '../go-quote.js';
import { isObject } from '../json.js';
import { invalid, tooLong, type Cause } from './cause.js';

/** apimachinery's FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;
/** apimachinery's MaxSubresourceNameLength. */
const SUBRESOURCE_MAX_LENGTH = 256;

export function validateManagedFields(managedFields: unknown): Cause[] {
  if (!Array.isArray(managedFields)) return [];
  return managedFields.flatMap((entry, i) => {
    if (!isObject(entry)) return [];
    const path = `metadata.managedFields[${i}]`;
    const causes: Cause[] = [];
    if (entry.operation !== 'Apply' && entry.operation !== 'Update')
      causes.push(invalid(`${path}.operation`, entry.operation ?? '', 'must be `Apply` or `Update`'));
    if (typeof entry.fieldsType === 'string' && entry.fieldsType !== '' && entry.fieldsType !== 'FieldsV1')
      causes.push(invalid(`${path}.fieldsType`, entry.fieldsType, 'must be `FieldsV1`'));
    causes.push(...validateFieldManager(String(entry.manager ?? ''), `${path}.manager`));
    if (typeof entry.subresource === 'string' && Buffer.byteLength(entry.subresource) > SUBRESOURCE_MAX_LENGTH)
      causes.push(tooLong(`${path}.subresource`, SUBRESOURCE_MAX_LENGTH));
    return causes;
  });
}

/** At most 128 bytes, every character printable. */
export function validateFieldManager(manager: string, field: string): Cause[] {
  const causes: Cause[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) causes.push(tooLong(field, FIELD_MANAGER_MAX_LENGTH));
  let position = 0;
  for (const character of manager) {
    if (!isGoPrintable(character)) {
      const code = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push(invalid(field, manager, `invalid character U+${code} (at position ${position})`));
    }
    position += Buffer.byteLength(character);
  }
  return causes;
}
