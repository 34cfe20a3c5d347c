import type { Cause } from './cause.js';

interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** apimachinery's ValidateOwnerReferences: every reference names its owner fully; one controller at most. */
export function validateOwnerReferences(references: OwnerReference[] | undefined): Cause[] {
  const causes: Cause[] = [];
  const field = 'metadata.ownerReferences';
  for (const ref of references ?? []) {
    if (!ref.apiVersion)
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}.apiVersion`,
        message: 'Invalid value: "": version must not be empty',
      });
    if (!ref.kind)
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}.kind`,
        message: 'Invalid value: "": kind must not be empty',
      });
    if (!ref.name)
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}.name`,
        message: 'Invalid value: "": name must not be empty',
      });
    if (!ref.uid)
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${field}.uid`,
        message: 'Invalid value: "": uid must not be empty',
      });
  }
  const controllers = (references ?? []).filter((ref) => ref.controller === true);
  if (controllers.length > 1) {
    const names = controllers.map((ref) => `${ref.kind}/${ref.name}`).join(', ');
    causes.push({
      reason: 'FieldValueInvalid',
      field,
      message: `Invalid value: []v1.OwnerReference{...}: Only one reference can have Controller set to true. Found "true" in references for ${names}`,
    });
  }
  return causes;
}
