// The case model. A case checks one rule of the spec against any implementation's URLs.
// Its metadata is a small declarative header (test262 style); `run` holds the behaviour.
import type { Level, SpecDoc } from './requirements/types.js';
import type { ApiClient } from '../runner/client.js';
import type { CaseFacts, FactName } from '../runner/facts.js';
import type { AgentLauncher, CriControlClient } from '../runner/agent-target.js';
import type { ControlPlanePart } from '../runner/controllers.js';

/**
 * What a case may touch on the target: the dry run (`list`) shows it to operators. `node`: creates
 * pods (in the run's namespace) that the agent under test runs on its node; `disruptive`: starts,
 * stops or restarts agent processes (`--agent-exec`), each with its own runtime and root dir.
 */
export type Impact = 'read-only' | 'namespaced' | 'cluster-scoped' | 'node' | 'disruptive';

/** Impacts whose cases work in the run's namespace, created before they start (disruptive cases may
 *  run pods on the agents they start; cluster-scoped ones may create pods for the Nodes they register). */
export const NAMESPACE_IMPACTS: ReadonlySet<Impact> = new Set(['namespaced', 'cluster-scoped', 'node', 'disruptive']);

/**
 * Which target a case needs: 'api' the control-plane API; 'metrics' the metrics and debug endpoints
 * of the components named in `components` (`run --metrics name=url`); 'agent' a running node agent
 * (`--agent <url> --node <name>`); 'cri' the control socket of the mock CRI that agent uses
 * (`--cri-control <path>`); 'agent-exec' a command that starts agents (`--agent-exec '<command>'`),
 * which the case runs itself (runner/agent-exec.ts has the flag contract); 'agent-socket' the pod info
 * socket of the agent under test, local to the runner (`--agent-pod-socket <path>`, spec 001 §4.2).
 */
export type TargetKind = 'api' | 'metrics' | 'agent' | 'cri' | 'agent-exec' | 'agent-socket';

/** Target kinds through which a case observes a node agent: only those count as agent coverage. */
export const AGENT_KINDS: ReadonlySet<TargetKind> = new Set(['agent', 'cri', 'agent-exec', 'agent-socket']);

export interface CaseMeta {
  /** Stable dotted id, e.g. `api.storageclass.reclaim-policy.default`. */
  readonly id: string;
  readonly title: string;
  /** Suite name, used by `--suite` (e.g. `storageclass`). */
  readonly suite: string;
  /** Requirement ids from the catalogue in suites/requirements. */
  readonly requirements: readonly string[];
  readonly spec: { readonly doc: SpecDoc; readonly section: string };
  readonly level: Level;
  /**
   * The case also checks upstream's shape where the spec is silent (an exact error code, a Status
   * reason, details.causes, wording) and records each difference as a SHOULD finding beside its own
   * verdict (suites/findings.ts; expectStatus does it for every error answer). CONFORMANCE.md shows
   * it per requirement; the legal-variant tests check that every case recording an upstream finding
   * declares it. A SHOULD case checks upstream's behaviour by its level alone and needs no flag.
   */
  readonly upstreamShape?: boolean;
  /** Feature gates the case needs in a given state; others it does not care about. */
  readonly gates?: Readonly<Record<string, boolean>>;
  readonly impact: Impact;
  readonly needs: readonly TargetKind[];
  /**
   * For needs 'metrics': the components whose debug endpoints the case reads (default
   * ['apiserver']). A run without one of them skips the case, saying which --metrics is missing.
   */
  readonly components?: readonly string[];
  /**
   * For needs 'metrics': the rule holds for every component (spec 002 "Every component exposes
   * ..."), so the case checks it on each component the run has metrics and debug endpoints for
   * (`apiserver` always, then each `--metrics name=url`; the agent's are checked by the agent cases),
   * failing with the component named. The loop is suites/002-metrics-debug/debug-common.ts
   * `onEveryComponent`.
   */
  readonly everyComponent?: boolean;
  /**
   * Facts about the target the case needs and cannot bring about itself (runner/facts.ts), e.g. a
   * continue-token validity it can outwait. A run that is not told them skips the case.
   */
  readonly facts?: readonly FactName[];
  /**
   * Controllers (and the scheduler) whose work the case observes (runner/controllers.ts). A run
   * told the target lacks one (`--controllers`) skips the case with the reason.
   */
  readonly controllers?: readonly ControlPlanePart[];
}

export interface CaseContext {
  /** Client for the control-plane API; records every exchange for the reports. */
  readonly api: ApiClient;
  readonly runId: string;
  /** Label every created object carries: `conformance.orch.io/run=<runId>`. */
  readonly labels: Readonly<Record<string, string>>;
  /** Namespace unique to the run, created before namespaced cases start. */
  readonly namespace: string;
  /** A name unique to this run and case (DNS-1123), with an optional readable hint. */
  uniqueName(hint?: string): string;
  /**
   * Registers an object for deletion at the end of the run, pass or fail.
   * `path` is the item path, e.g. `/apis/storage.orch.io/v1/storageclasses/<name>`.
   */
  track(path: string): void;
  /** Aborted when the case times out or the run is interrupted. */
  readonly signal: AbortSignal;
  /**
   * Client for a component's metrics and debug endpoints (`/metrics`, `/healthz`, `/statusz`, ...),
   * at the URL given by `run --metrics <name>=<url>`; `apiserver` defaults to the API URL. It records
   * its exchanges with those of `api`. Throws for a component the run does not have (the runner
   * skips cases whose `components` it lacks, so only an undeclared name gets here).
   */
  component(name?: string): ApiClient;
  /**
   * The components the run has metrics and debug endpoints for: `apiserver` first, then those of
   * `run --metrics` in the order given. Within a check `onEveryComponent` runs for one component,
   * just that one (and `component()` defaults to it).
   */
  componentNames(): string[];
  /** The target facts the case declared (`facts`), e.g. the corrupt object assigned to it. */
  readonly facts: CaseFacts;
  /**
   * needs 'agent': the agent under test: a client for its HTTPS endpoints (recording exchanges with
   * the others) and the name of the Node it registered. Throws when the run has none.
   */
  agent(): { readonly client: ApiClient; readonly nodeName: string };
  /** needs 'cri': the control API of the mock CRI the agent under test uses. */
  cri(): CriControlClient;
  /** needs 'agent-socket': the path of the agent under test's pod info socket (gRPC, spec 001 §4.2). */
  podInfoSocket(): string;
  /** needs 'agent-exec': starts agent processes of the implementation under test. */
  readonly agents: AgentLauncher;
}

export interface Case extends CaseMeta {
  run(ctx: CaseContext): Promise<void>;
}

/** Defines a case; a function (not a bare literal) so that the type checks each header field. */
export function defineCase(c: Case): Case {
  return c;
}
