// Findings: what a case records beside its verdict. A case checks what the spec states and fails
// (throws) when that does not hold; in the same run it may also look at upstream's shape where the
// spec is silent (HTTP 422 vs 400, a Status reason, details.causes, a message's wording). Such a
// check is a SHOULD finding: recorded with expected vs actual, reported apart from the verdict,
// counted as a warning in a default run and as a failure only with `--strict`. And where the spec
// says "may", every permitted outcome passes: a case can note which one the target took (a MAY
// note), which never warns nor fails.
//
// Findings are gathered per case through AsyncLocalStorage, so that shared helpers (expectStatus)
// record them without every case passing a collector around.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CaseFailure } from './failure.js';

/**
 * `SHOULD`: upstream's shape or a recommendation did not hold (a warning; a failure with --strict).
 * `MAY`: which of the outcomes the spec permits the target took (information only).
 */
export type FindingLevel = 'SHOULD' | 'MAY';

/**
 * Where the expectation comes from: `upstream`, real Kubernetes' behaviour where the spec is silent
 * ("not shown"); `spec`, a recommendation the spec words itself ("should").
 */
export type FindingBasis = 'upstream' | 'spec';

export interface Finding {
  level: FindingLevel;
  basis: FindingBasis;
  /** What was looked at, e.g. `second create with the same name: Status reason`. */
  message: string;
  expected: string;
  actual: string;
}

const current = new AsyncLocalStorage<Finding[]>();

/** Runs a case's body with a collector: every finding recorded inside lands in `findings`. */
export function collectFindings<T>(findings: Finding[], body: () => Promise<T>): Promise<T> {
  return current.run(findings, body);
}

/**
 * Records a finding. Outside a collector (a unit test calling a verifier directly) a SHOULD finding
 * throws as a failed check would: the strict reading, so that nothing is silently dropped.
 */
export function record(f: Finding): void {
  const list = current.getStore();
  if (list) {
    // One finding per check: a check repeated in a loop (the same bad answer to several requests)
    // is reported once, with its first actual value.
    if (!list.some((x) => x.level === f.level && x.message === f.message)) list.push(f);
    return;
  }
  if (f.level === 'SHOULD') throw new CaseFailure(f.message, f.expected, f.actual);
}

/**
 * Runs checks of upstream's shape (where the spec is silent): a check that fails inside becomes a
 * SHOULD finding instead of failing the case, and the case goes on. Errors other than a failed
 * check (a bug, an abort) propagate.
 */
export function upstream(checks: () => void, basis: FindingBasis = 'upstream'): void {
  try {
    checks();
  } catch (err) {
    if (!(err instanceof CaseFailure)) throw err;
    record({ level: 'SHOULD', basis, message: err.message, expected: err.expected, actual: err.actual });
  }
}

/** The async form of `upstream`, for checks that read more from the target. */
export async function upstreamAsync(checks: () => Promise<void>, basis: FindingBasis = 'upstream'): Promise<void> {
  try {
    await checks();
  } catch (err) {
    if (!(err instanceof CaseFailure)) throw err;
    record({ level: 'SHOULD', basis, message: err.message, expected: err.expected, actual: err.actual });
  }
}

/**
 * Notes which permitted outcome of a "may" rule the target took, when it is not upstream's: shown
 * in reports as information, never a warning or a failure (at any level, `--strict` included).
 */
export function noteMay(what: string, upstreamChoice: string, actual: string): void {
  record({ level: 'MAY', basis: 'upstream', message: what, expected: upstreamChoice, actual });
}

/** How reports name a finding's kind: `SHOULD (upstream)`, `SHOULD (spec)`, `MAY (noted)`. */
export function findingLabel(f: Finding): string {
  return f.level === 'MAY' ? 'MAY (noted)' : `SHOULD (${f.basis})`;
}
