// The pieces every printer is made of: column definitions as a Table carries them, the cell values,
// and small readers for the loosely typed JSON objects the store holds.
import type { ApiObject } from '../strategy.js';
import { age } from './age.js';

/** One column of a Table (upstream metav1.TableColumnDefinition: every field always written). */
export interface ColumnDefinition {
  readonly name: string;
  /** An OpenAPI type: string, integer, number, boolean, date. */
  readonly type: string;
  /** An OpenAPI format hint; `name` marks the column holding the object's name. */
  readonly format: string;
  readonly description: string;
  /** 0: always shown; 1 and more: only with `kubectl get -o wide`. */
  readonly priority: number;
}

export type Cell = string | number | boolean;

/** A condition on a row (upstream metav1.TableRowCondition); pods that have finished carry `Completed`. */
export interface RowCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** How one kind is shown: its columns and, for an object, one cell per column. */
export interface Printer {
  readonly columns: readonly ColumnDefinition[];
  /** The cells of `obj`'s row; `now` (ms since the epoch) is when the Table is served, for ages. */
  cells(obj: ApiObject, now: number): Cell[];
  conditions?(obj: ApiObject): RowCondition[] | undefined;
}

export function column(name: string, type: string, description: string, opts: { format?: string; priority?: number } = {}): ColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** The Name column most kinds start with. */
export const NAME_COLUMN = column('Name', 'string', "The object's name, unique among objects of its kind in its namespace (or in the cluster).", { format: 'name' });
/** The Age column: how long ago metadata.creationTimestamp was, when the Table was served. */
export const AGE_COLUMN = column('Age', 'string', 'How long ago the object was created (metadata.creationTimestamp).');

export const nameOf = (obj: ApiObject): string => str(obj.metadata?.name);
export const ageOf = (obj: ApiObject, now: number): string => age(obj.metadata?.creationTimestamp, now);

// ---- Readers: the stored objects are JSON whose shape was validated on write, but a printer must
// not throw on an odd one (a bookmark carries metadata only), so every step tolerates absence.

export type Json = Record<string, unknown>;

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const rec = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(rec) : []);
/** A field of a field: `at(obj, 'status', 'nodeInfo')`. */
export const at = (v: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => rec(o)[k], v);

/** Present and not null (Go: a non-nil pointer). */
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;
/** The first non-empty string, or ''. */
export const firstNonEmpty = (...values: string[]): string => values.find((s) => s !== '') ?? '';
/** `<none>` for an empty cell, as upstream prints missing values in wide columns. */
export const orNone = (s: string): string => (s === '' ? '<none>' : s);
