/** Column definitions shared by the printers, with the descriptions kube takes from the API docs. */
import type { TableColumnDefinition } from './printer.js';

/** ObjectMeta's API documentation of `name` and `creationTimestamp`, as of Kubernetes 1.32. */
export const METADATA_DESCRIPTIONS = {
  name: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  creationTimestamp:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
};

export function column(name: string, type: string, description = '', priority = 0): TableColumnDefinition {
  return { name, type, format: '', description, priority };
}

/** The wide-only column, shown by `kubectl get -o wide`. */
export function wideColumn(name: string, type: string, description = ''): TableColumnDefinition {
  return column(name, type, description, 1);
}

export const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: METADATA_DESCRIPTIONS.name,
  priority: 0,
};

export const ageColumn = column('Age', 'string', METADATA_DESCRIPTIONS.creationTimestamp);

/** The wide columns of every workload printer that shows its pod template. */
export const containersColumn = wideColumn('Containers', 'string', 'Names of each container in the template.');
export const imagesColumn = wideColumn('Images', 'string', 'Images referenced by each container in the template.');
