// CreateOptions, UpdateOptions and PatchOptions as far as this server acts on them: validated in
// one go (upstream Validate{Create,Update,Patch}Options: fieldManager, dryRun, fieldValidation,
// one 422 listing every bad option), before the body is looked at.
import { invalidOptions } from './errors.js';
import type { FieldError } from './field-errors.js';
import { dryRunErrors, dryRunFromQuery, isDryRun } from './dry-run.js';
import { FieldValidator, fieldValidationErrors } from './field-validation.js';
import type { ResolvedStrategy } from './strategy.js';

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

export interface WriteOptions {
  /** dryRun=All: run everything, persist nothing. */
  readonly dryRun: boolean;
  /** The request's fieldValidation, fed the body by the handler. */
  readonly fields: FieldValidator;
}

/**
 * Validates the write parameters of a request. `before` are errors of options checked elsewhere
 * that upstream lists first (force, fieldManager), so that one 422 names every bad option.
 */
export function writeOptions(q: URLSearchParams, kind: WriteOptionsKind, strategy: ResolvedStrategy, before: readonly FieldError[] = []): WriteOptions {
  const dryRun = dryRunFromQuery(q);
  const errs = [...before, ...dryRunErrors(dryRun), ...fieldValidationErrors(q)];
  if (errs.length) throw invalidOptions(kind, errs);
  return { dryRun: isDryRun(dryRun), fields: new FieldValidator(q, strategy) };
}
