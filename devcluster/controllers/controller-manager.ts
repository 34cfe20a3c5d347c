import type { WriteOptions } from '../../apiserver/registry/generic-registry.js';

/**
 * The simulated controllers write as kube-controller-manager does: managedFields name that
 * manager on what they create, scale, adopt and report.
 */
export const AS_CONTROLLER: WriteOptions = { manager: 'kube-controller-manager' };
