// A Table (upstream metav1.Table) of objects of one kind: the printer's columns, a row per object
// with its cells, and the object itself as the client asked (includeObject).
import type { ApiObject } from '../strategy.js';
import type { Cell, ColumnDefinition, Printer, RowCondition } from './columns.js';

/** includeObject: what each row carries of its object. Default Metadata. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';
export const INCLUDE_OBJECT_VALUES: readonly IncludeObject[] = ['Metadata', 'None', 'Object'];

export interface TableRow {
  cells: Cell[];
  conditions?: RowCondition[];
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** null after the first event of a watch: the client has them already. */
  columnDefinitions: readonly ColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  /** meta.orch.io/v1 or another group version the client asked for. */
  readonly apiVersion: string;
  readonly includeObject: IncludeObject;
  /** Leave the column definitions out (upstream TableOptions.NoHeaders, set for later watch events). */
  readonly noHeaders?: boolean;
}

/** The object's metadata alone, as a PartialObjectMetadata of `apiVersion`. */
export function partialObjectMetadata(obj: ApiObject, apiVersion: string): { kind: 'PartialObjectMetadata'; apiVersion: string; metadata: unknown } {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/**
 * The Table of `objects`; `metadata` is the list's (resourceVersion, continue, remainingItemCount)
 * or, for one object, its resourceVersion. Every column is filled, wide ones too: the client picks
 * what to show by priority.
 */
export function buildTable(printer: Printer, objects: readonly ApiObject[], metadata: Table['metadata'], opts: TableOptions, now = Date.now()): Table {
  const rows = objects.map((obj): TableRow => {
    const cells = printer.cells(obj, now);
    const conditions = printer.conditions?.(obj);
    return conditions ? { cells, conditions, object: rowObject(obj, opts) } : { cells, object: rowObject(obj, opts) };
  });
  return { kind: 'Table', apiVersion: opts.apiVersion, metadata, columnDefinitions: opts.noHeaders ? null : printer.columns, rows };
}

function rowObject(obj: ApiObject, opts: TableOptions): unknown {
  switch (opts.includeObject) {
    case 'None':
      return null;
    case 'Object':
      return obj;
    default:
      return partialObjectMetadata(obj, opts.apiVersion);
  }
}
