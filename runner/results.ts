// Results of a run: what reporters render and what `report` reads back from JSON.
import type { Level, SpecDoc } from '../suites/requirements/types.js';
import type { Impact, TargetKind } from '../suites/case.js';
import type { Finding } from '../suites/findings.js';

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
  /**
   * The `curl` command that sends this request again (reporters/reproducer.ts): set by the JSON
   * reporter, at render time, on the failing exchange of each failed, errored or warned case.
   * Absent on other exchanges and in reports written before it existed.
   */
  reproducer?: string;
}

/**
 * What happened to a case. `warned`: a SHOULD case whose check failed, or a case whose own verdict
 * held but which recorded SHOULD findings (upstream's shape where the spec is silent), in a run
 * without `--strict` (reported with expected vs actual, counted apart, does not fail the run). `interrupted`: the run
 * was stopped (Ctrl-C, SIGTERM) while the case ran; not a verdict about the target.
 */
export type CaseStatus = 'passed' | 'failed' | 'warned' | 'skipped' | 'errored' | 'interrupted' | 'flaky' | 'unstarted';

/**
 * `flaky`: failed or errored, then passed on a retry (`run --retries`): counted apart, passes the run
 * unless `--strict`; `attempts` keeps each attempt's evidence. `unstarted`: the run was interrupted
 * before the case started (not a skip: nothing about the target kept it from running).
 */

/** One attempt of a case run more than once (`run --retries`): what it ended with and its evidence. */
export interface CaseAttempt {
  status: CaseStatus;
  durationMs: number;
  message: string;
  expected?: string;
  actual?: string;
  exchanges: Exchange[];
}

export interface CaseResult {
  id: string;
  title: string;
  suite: string;
  requirements: string[];
  spec: { doc: SpecDoc; section: string };
  level: Level;
  impact: Impact;
  /** The targets the case needed (older reports lack it): only cases that observe an agent count for agent rules. */
  needs?: TargetKind[];
  /** The controllers the case observed (older reports lack it): only those cases count for controller rules. */
  controllers?: string[];
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
  /**
   * What the case recorded beside its verdict (suites/findings.ts): SHOULD findings (upstream's
   * shape where the spec is silent) and MAY notes (which permitted outcome the target took). Absent
   * when there were none, and in reports written before findings existed.
   */
  findings?: Finding[];
  /** Recorded HTTP exchanges; kept for failed and errored cases only. */
  exchanges: Exchange[];
  /** With `run --retries`, every attempt when there was more than one, in order (the last is the result). */
  attempts?: CaseAttempt[];
  /**
   * For a failed check: the index in `exchanges` of the last exchange made before the check failed
   * (the one the failure is about), so reports show it rather than the clean-up requests the case
   * made after it. Absent when the failure came before any exchange, and in older reports.
   */
  failedExchange?: number;
  /**
   * `run --differential` / `report --differential`: the same case run against the embedded
   * reference, and the first exchange where the two answers differ in a way that matters.
   * Absent for cases that neither failed nor warned, and in runs without the flag.
   */
  differential?: Differential;
}

/** What the reference did with a case the target failed or warned (runner/differential.ts). */
export interface Differential {
  /** The case's status against the reference (anything but `passed` makes the comparison weak, and says so). */
  referenceStatus: CaseStatus;
  referenceMessage?: string;
  /** One line for an implementer, e.g. "the reference answered 422 with cause `provisioner`; the target answered 201". */
  summary: string;
  /** The first exchange that differs; absent when every compared exchange agreed (or none could be). */
  exchange?: DifferentialExchange;
  /** Why no comparison was made (the reference could not be started, or the case is not in this kit). */
  unavailable?: string;
}

export interface DifferentialExchange {
  /** Index in the target's `exchanges` and in the reference's run of the case. */
  targetIndex: number;
  referenceIndex: number;
  /** Method and path (query included), with the run ids made alike. */
  request: string;
  /** Set when the two runs made a different request at this step (the target's answers led the case elsewhere). */
  referenceRequest?: string;
  target: { status?: number; error?: string; body?: string };
  reference: { status?: number; error?: string; body?: string };
  /** Structural body differences, `path: reference → target`; fields the case treats as free are left out. */
  fields: Array<{ path: string; change: 'added' | 'missing' | 'changed'; reference?: string; target?: string }>;
}

/**
 * Counts by outcome; the buckets are disjoint and add up to `total`. A listed (known) failure counts
 * under `knownFailures`, not `failed`; a listed case that passed under `unexpectedPasses`, not `passed`.
 */
export interface RunSummary {
  total: number;
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  errored: number;
  interrupted: number;
  /** Passed on a retry after failing (absent in reports written before retries existed). */
  flaky?: number;
  /** Never started: the run was interrupted first (absent in older reports). */
  unstarted?: number;
  knownFailures: number;
  unexpectedPasses: number;
}

export interface RunReport {
  tool: string;
  version: string;
  /** `metrics`: the component URLs given with `run --metrics` (`apiserver` is the API URL unless named). */
  target: { api?: string; embedded: boolean; metrics?: Record<string, string>; agent?: { url: string; node: string }; criControl?: string; agentExec?: string };
  runId: string;
  startedAt: string;
  durationMs: number;
  summary: RunSummary;
  cases: CaseResult[];
  /** Objects labelled with this run that were still present after cleanup (paths). */
  leaks: string[];
  /**
   * Collections whose cleanup could not be checked, each with why (e.g. the list answered 403):
   * nothing is known to be left behind, so these are not leaks and do not fail the run by
   * themselves, but every report that shows leaks names them, for the operator to check by hand.
   * Absent in reports written before it existed.
   */
  cleanupUnverified: string[];
  /** True when the run was interrupted (Ctrl-C, SIGTERM) before every case finished. */
  interrupted: boolean;
  /** `run --strict`: failed SHOULD cases fail the run instead of warning. */
  strict: boolean;
  /** What the operator asked for (runner/selection.ts). Absent in reports written before it existed. */
  selection?: RunSelection;
  /** Per spec section: what the catalogue asks, what the kit covers, what this run found (reporters/coverage.ts). */
  coverage?: RunCoverage;
  /** `run --shard i/n`: this run is slice i (1-based) of n. */
  shard?: ShardSpec;
  /** A report made by `report merge`: the runs (shards) it was merged from. */
  merged?: ShardRecord[];
  /**
   * What else the run required to pass (`run --fail-on-skip`, `--min-coverage`): the verdict and the
   * exit code apply it. Absent when neither was given, and in older reports.
   */
  policy?: VerdictPolicy;
  /**
   * The run's arguments after the program name (`run --api ... --focus ...`), with secrets
   * (`--token`) redacted and, with `--rerun-failed`, the target options it took from its file
   * appended: what a failure's `--id <id>` rerun command starts from.
   * Absent in reports written before it existed and in runs not started from the command line.
   */
  command?: string[];
  /** `run --retries <n>`: how many times a failed or errored case was run again at most. */
  retries?: number;
  /**
   * `run --label <text>`: what the operator calls this run (an implementation and its version, say),
   * the column heading of `report matrix`. Absent without the flag.
   */
  label?: string;
  /**
   * The load the cases ran under: `run --background-nodes <n>` hollow nodes the run started, or
   * Nodes labelled orch-conformance.io/hollow=true found on the target at start (a `nodes` process
   * the operator runs). Absent when there was none, and in older reports.
   */
  backgroundLoad?: BackgroundLoad;
}

/** What load the run ran under (`run --background-nodes`, runner/background-nodes.ts). */
export interface BackgroundLoad {
  /** Hollow nodes registered on the target while the cases ran: the run's own, else those found there. */
  hollowNodes: number;
  /** `started by the run` (`--background-nodes`), or `already running`: labelled hollow Nodes present at start. */
  source: 'started by the run' | 'already running';
  /** With `started by the run`: hollow Nodes that were there already, beside the run's own. */
  alreadyRunning?: number;
  /** Set when the run's nodes process ended before the run stopped it: the cases after that ran without the load. */
  endedEarly?: string;
}

/** Conditions beyond the cases' verdicts that a run must meet to pass. */
export interface VerdictPolicy {
  /** `--fail-on-skip`: any skipped selected case fails the run. */
  failOnSkip?: boolean;
  /** `--min-coverage`: the least share (percent) of the selected requirements the run must check. */
  minCoverage?: number;
}

/** `--shard 2/4`: index 2 (1-based) of 4 slices. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** One run a merged report was made from, as `report merge` records it. */
export interface ShardRecord {
  runId: string;
  shard?: ShardSpec;
  target: RunReport['target'];
  selection?: RunSelection;
  startedAt: string;
  durationMs: number;
  cases: number;
  /** The shard's own background load (each shard's `--background-nodes` starts its own nodes). */
  backgroundLoad?: BackgroundLoad;
}

/** A target fact the operator stated (runner/facts.ts), with its value unless it is a secret. */
export interface StatedFact {
  fact: string;
  flag: string;
  value?: string;
}

/** The run's selection as given on the command line, and whether it leaves cases out. */
export interface RunSelection {
  focus?: string;
  skip?: string;
  /** `--suite` values; empty for every suite. */
  suites: string[];
  level?: Level;
  /** `--gates`: the gates stated that differ from the 1.37 defaults; absent without the flag. */
  gates?: Record<string, boolean>;
  /** Target facts the operator stated; empty for the embedded run, which configures its own. */
  facts: StatedFact[];
  /** `--expect`: the file and its entries, case id to reason. */
  expect?: { file: string; entries: Record<string, string> };
  strict: boolean;
  /** Cases selected, out of every case in the kit. */
  selectedCases: number;
  totalCases: number;
  /** True when the selection leaves cases of the kit out: the verdict is about those cases only. */
  partial: boolean;
  /** `--id`: the exact case ids selected (with `--rerun-failed`, the failed cases of its file). */
  ids?: string[];
  /** `--rerun-failed`: the results file whose failed cases this run selected. */
  rerunFailed?: string;
}

/** Requirement counts; every catalogue requirement is in exactly one of the result buckets. */
export interface CoverageCounts {
  /** Requirements in the catalogue. */
  requirements: number;
  /** Named by at least one case of the kit. */
  covered: number;
  /** The worst result of the cases of this run that name it. */
  passed: number;
  failed: number;
  errored: number;
  warned: number;
  interrupted: number;
  /** Every case naming it was skipped. */
  skipped: number;
  /** Covered, but no case naming it was selected (partial run). */
  notRun: number;
  /** No case in the kit names it. */
  notCovered: number;
  /**
   * Its worst result is a listed (known) failure (`--expect`): counted here, not under failed,
   * errored or warned. Absent in older reports.
   */
  knownFailures?: number;
}

export interface SectionCoverage extends CoverageCounts {
  doc: SpecDoc;
  section: string;
  title: string;
  /** Ids of the requirements no case names, for the auditor to read. */
  notCoveredIds: string[];
  /** Ids of covered requirements no selected case names. */
  notRunIds: string[];
}

export interface RunCoverage {
  sections: SectionCoverage[];
  total: CoverageCounts;
}
