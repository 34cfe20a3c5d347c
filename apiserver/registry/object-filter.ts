import type { FieldSelector } from '../selectors/field-selector.js';
import type { LabelSelector } from '../selectors/label-selector.js';
import { checkFieldSelectorSupported, selectableFields } from '../selectors/selectable-fields.js';
import { badRequest } from '../status.js';
import type { ResourceInfo } from '../resources/resource-info.js';
import type { ApiObject } from './object-store.js';

/** Label and field selectors of one list or watch, checked against what the resource supports. */
export class ObjectFilter {
  readonly everything: boolean;

  constructor(
    private readonly info: ResourceInfo,
    readonly labels: LabelSelector,
    readonly fields: FieldSelector,
  ) {
    try {
      checkFieldSelectorSupported(info.group, info.resource, info.namespaced, fields);
    } catch (err) {
      throw badRequest((err as Error).message);
    }
    this.everything = labels.empty && fields.empty;
  }

  matches(object: ApiObject): boolean {
    if (this.everything) return true;
    if (!this.labels.matches(object.metadata?.labels)) return false;
    return (
      this.fields.empty ||
      this.fields.matches(selectableFields(this.info.group, this.info.resource, this.info.namespaced, object))
    );
  }

  /** `metadata.name=x`: the one object the list can be narrowed to. */
  get exactName(): string | undefined {
    return this.fields.requiresExactMatch('metadata.name');
  }

  /** `metadata.namespace=x`: the one namespace the list can be narrowed to. */
  get exactNamespace(): string | undefined {
    return this.info.namespaced ? this.fields.requiresExactMatch('metadata.namespace') : undefined;
  }
}
