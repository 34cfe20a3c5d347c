/** The shapes of a server-side table printer and of the meta.k8s.io/v1 Table parts it produces. */

/** meta.k8s.io/v1 TableColumnDefinition; every field is serialized, `format` even when empty. */
export interface TableColumnDefinition {
  name: string;
  /** An OpenAPI type: string, integer, number, boolean, or date. */
  type: string;
  /** An OpenAPI format; `name` marks the column that holds the object's name. */
  format: string;
  description: string;
  /** 0 for default output, higher for `-o wide` only. */
  priority: number;
}

/** meta.k8s.io/v1 TableRowCondition: extra row state for humans, such as a completed pod. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/**
 * Columns for one kind and the cells of one object. Like kube-apiserver, which always prints
 * wide, `cells` returns a cell for every column, priority 1 included; null stands for Go's nil.
 */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(object: any, now: Date): unknown[];
  conditions?(object: any): TableRowCondition[] | undefined;
}
