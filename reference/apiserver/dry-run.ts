// The `dryRun` write and delete parameter: `All` runs a request through every stage (decoding,
// defaulting, admission, validation) and answers with the object as it would be stored, but
// nothing is written: no watch event, no resourceVersion consumed. Any other value is refused
// before anything happens (upstream ValidateDryRun, part of the options validation: write-options.ts
// for create, update and patch, delete-options.ts for DeleteOptions). The store's `dryRun` option
// does the rest: every stage up to the storage write, which is skipped.
import { type FieldError, OMIT } from './field-errors.js';
import { goQuote } from './field-validation.js';

export const DRY_RUN_ALL = 'All';

/**
 * The dryRun values of a query: undefined when the parameter is absent. Like upstream's
 * conversion of url.Values to a []string, an empty value is a value (and not a valid one).
 */
export function dryRunFromQuery(q: URLSearchParams): string[] | undefined {
  return q.has('dryRun') ? q.getAll('dryRun') : undefined;
}

/**
 * Upstream ValidateDryRun: every value must be `All`. The bad value prints as Go prints a
 * []string with %#v, e.g. `dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"`.
 */
export function dryRunErrors(values: readonly string[] | undefined): FieldError[] {
  if (!values || values.every((v) => v === DRY_RUN_ALL)) return [];
  const shown = `[]string{${values.map(goQuote).join(', ')}}`;
  return [{ type: 'FieldValueNotSupported', field: 'dryRun', badValue: OMIT, detail: `${shown}: supported values: ${goQuote(DRY_RUN_ALL)}` }];
}

/** Whether valid dryRun values ask for a dry run (any value at all: they are all `All`). */
export function isDryRun(values: readonly string[] | undefined): boolean {
  return (values?.length ?? 0) > 0;
}

