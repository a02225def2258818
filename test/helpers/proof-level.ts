// What a proof expects of a case against a target broken in its rule: the failure at the case's own
// level. Proof runs are not strict, so a MUST case must fail on its own verdict (what the spec states),
// not merely warn on upstream's shape (SHOULD findings, suites/findings.ts); a SHOULD case warns.
import type { Case } from '../../suites/case.js';
import type { CaseStatus } from '../../runner/results.js';

export function failedAtLevel(c: Pick<Case, 'level'>): CaseStatus {
  return c.level === 'MUST' ? 'failed' : 'warned';
}
