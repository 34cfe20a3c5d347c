/**
 * kube-apiserver 1.32's validation of a PersistentVolumeClaim's spec on create
 * (ValidatePersistentVolumeClaimSpec): access modes, the storage request, the storage class
 * name and the selector. The StatefulSet controller creates its claims through it, so a bad
 * volumeClaimTemplate is refused there, as on a cluster.
 */
import { isObject } from '../../json.js';
import { invalid, notSupported, required, type Cause } from '../cause.js';
import { isDNS1123Subdomain } from '../names.js';
import { quantitySign, validateLabelSelector } from '../values.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

export function validatePersistentVolumeClaim(claim: Record<string, any>): Cause[] {
  const spec: Record<string, any> = isObject(claim.spec) ? claim.spec : {};
  const causes: Cause[] = [];
  const modes: unknown[] = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) causes.push(required('spec.accessModes', 'at least 1 access mode is required'));
  for (const mode of modes)
    if (typeof mode !== 'string' || !ACCESS_MODES.includes(mode))
      causes.push(notSupported('spec.accessModes', mode, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1)
    causes.push(invalid('spec.accessModes', modes, 'may not use ReadWriteOncePod with other access modes'));
  causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {};
  const storage: unknown = requests.storage;
  // kube prints a quantity as its text; anything but a number or a string fails kube's decoding (400) before this.
  const quantity = typeof storage === 'number' ? String(storage) : typeof storage === 'string' ? storage : undefined;
  if (storage === undefined) causes.push(required('spec.resources[storage]'));
  else if (quantity !== undefined && !isPositiveQuantity(quantity))
    causes.push(invalid('spec.resources[storage]', quantity, 'must be greater than zero'));
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '')
    causes.push(
      ...isDNS1123Subdomain(spec.storageClassName).map((msg) =>
        invalid('spec.storageClassName', spec.storageClassName, msg),
      ),
    );
  if (spec.volumeMode != null && !VOLUME_MODES.includes(spec.volumeMode))
    causes.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return causes;
}

/** Whether a quantity is above zero; one kube could not parse is its decoder's business (400), not this. */
function isPositiveQuantity(quantity: string): boolean {
  return (quantitySign(quantity) ?? 1) > 0;
}
