// Results of a run: what reporters render and what `report` reads back from JSON.
import type { Level, SpecDoc } from '../suites/requirements/types.js';
import type { Impact } from '../suites/case.js';

/** One HTTP request and its response, as a case's client saw it. */
export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  /** Absent when no response arrived (connection error, timeout). */
  status?: number;
  responseHeaders?: Record<string, string>;
  /** Truncated to a bounded size; watch streams record what was read. */
  responseBody?: string;
  error?: string;
  durationMs: number;
}

export type CaseStatus = 'passed' | 'failed' | 'skipped' | 'errored';

export interface CaseResult {
  id: string;
  title: string;
  suite: string;
  requirements: string[];
  spec: { doc: SpecDoc; section: string };
  level: Level;
  impact: Impact;
  status: CaseStatus;
  durationMs: number;
  /** Failure, error or skip reason; empty for a plain pass. */
  message: string;
  /** For failed assertions: what the spec wants and what the target did. */
  expected?: string;
  actual?: string;
  /** Set when the case is listed in the --expect file; such a failure does not fail the run. */
  knownFailure?: { reason: string };
  /** True for a case listed as a known failure that passed: reported, and it fails the run. */
  unexpectedPass?: boolean;
  /** Recorded HTTP exchanges; kept for failed and errored cases only. */
  exchanges: Exchange[];
}

export interface RunSummary {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  errored: number;
}

export interface RunReport {
  tool: string;
  version: string;
  /** `metrics`: the component URLs given with `run --metrics` (`apiserver` is the API URL unless named). */
  target: { api?: string; embedded: boolean; metrics?: Record<string, string> };
  runId: string;
  startedAt: string;
  durationMs: number;
  summary: RunSummary;
  cases: CaseResult[];
  /** Objects labelled with this run that were still present after cleanup (paths). */
  leaks: string[];
  /** True when the run was interrupted (Ctrl-C) before every case finished. */
  interrupted: boolean;
}
