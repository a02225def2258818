import type { CaseResult, RunReport } from '../runner/results.js';

/** What the runner tells reporters before the first case starts. */
export interface RunPlan {
  runId: string;
  target: RunReport['target'];
  total: number;
  /** The load the cases run under (`run --background-nodes`), when there is one. */
  backgroundLoad?: RunReport['backgroundLoad'];
}

/** What the runner tells reporters when a case starts. */
export interface CaseStarted {
  id: string;
  title: string;
}

/**
 * A reporter renders a run. Live reporters (console) use the hooks; file reporters only `end`.
 * `end` returns the rendered text when the reporter writes to a file or stdout.
 */
export interface Reporter {
  readonly name: string;
  start?(plan: RunPlan): void;
  /** A case starts running (not called for cases skipped or never started). */
  caseStart?(c: CaseStarted): void;
  caseEnd?(result: CaseResult): void;
  end(report: RunReport): Promise<void> | void;
}
