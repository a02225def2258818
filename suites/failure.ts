// What a failed check and a skip are, apart from the verifier so that suites/findings.ts can use
// them without an import cycle. suites/verify.ts re-exports all of it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Exchange } from '../runner/results.js';

/**
 * The running case's exchange log (the runner sets it around each case): a failure notes how far
 * the log had got when it was thrown, so reports show the exchange the check was about rather than
 * the clean-up requests the case makes after it.
 */
export const caseExchanges = new AsyncLocalStorage<readonly Exchange[]>();

export class CaseFailure extends Error {
  /** Index of the last exchange made before this failure, when the case had made any. */
  readonly exchangeIndex?: number;

  constructor(message: string, readonly expected: string, readonly actual: string) {
    super(message);
    this.name = 'CaseFailure';
    const made = caseExchanges.getStore()?.length ?? 0;
    if (made > 0) this.exchangeIndex = made - 1;
  }
}

/**
 * Thrown when a case finds that this target does not let it observe its rule (the server ignored
 * `limit`, so no continue token can expire; an optional endpoint is not served). The runner reports
 * the case as skipped with this reason: a rule nobody could check is never passed.
 */
export class CaseSkip extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CaseSkip';
  }
}

/** Skips the running case with the reason (see CaseSkip). */
export function skip(reason: string): never {
  throw new CaseSkip(reason);
}

export function show(v: unknown): string {
  if (v === undefined) return 'undefined (absent)';
  if (typeof v === 'string') return JSON.stringify(v);
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 500 ? `${s.slice(0, 500)}…` : s;
}

export function fail(what: string, expected: string, actual: string): never {
  throw new CaseFailure(what, expected, actual);
}
