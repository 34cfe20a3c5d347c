/**
 * References to other objects: ObjectReference (Event involvedObject, Endpoints targetRef, PV
 * claimRef, …) and OwnerReference. The namespace gets the prefix; the name gets it when the
 * referenced kind is cluster-scoped (by that kind's name rule); the apiVersion's group as everywhere.
 */
import type { Json } from '../../apiserver/json.js';
import { addPrefix, apiVersionDown, apiVersionUp, groupOfApiVersion, stripPrefix } from '../context.js';
import { referencedNameRule } from './names.js';
import type { StringRule, Convertor } from './convertor.js';

export const apiVersionRule: StringRule = { up: apiVersionUp, down: apiVersionDown };

/** `kindWhenAbsent` names the kind of references that usually omit it (PV claimRef: PersistentVolumeClaim). */
export function objectReference(kindWhenAbsent?: string): Convertor {
  const kindOf = (ref: Json): string | undefined => (typeof ref.kind === 'string' ? ref.kind : kindWhenAbsent);
  return {
    up: (ctx, ref) => {
      const kind = kindOf(ref);
      const group = groupOfApiVersion(typeof ref.apiVersion === 'string' ? ref.apiVersion : '');
      const nameRule = kind === undefined ? undefined : referencedNameRule(ctx, group, kind);
      if (nameRule && typeof ref.name === 'string' && ref.name !== '') ref.name = nameRule.up(ctx, ref.name);
      if (typeof ref.namespace === 'string' && ref.namespace !== '') ref.namespace = addPrefix(ctx, ref.namespace);
      if (typeof ref.apiVersion === 'string') ref.apiVersion = apiVersionUp(ctx, ref.apiVersion);
    },
    down: (ctx, ref) => {
      if (typeof ref.apiVersion === 'string') {
        const apiVersion = apiVersionDown(ctx, ref.apiVersion);
        if (apiVersion === null) return false;
        ref.apiVersion = apiVersion;
      }
      if (typeof ref.namespace === 'string' && ref.namespace !== '') {
        const namespace = stripPrefix(ctx, ref.namespace);
        if (namespace === null) return false;
        ref.namespace = namespace;
      }
      const kind = kindOf(ref);
      const group = groupOfApiVersion(typeof ref.apiVersion === 'string' ? ref.apiVersion : '');
      const nameRule = kind === undefined ? undefined : referencedNameRule(ctx, group, kind);
      if (nameRule && typeof ref.name === 'string' && ref.name !== '') {
        const name = nameRule.down(ctx, ref.name);
        if (name === null) return false;
        ref.name = name;
      }
      return true;
    },
  };
}
