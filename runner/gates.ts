// The feature gates a target has: what `run --gates` states, else what each component reports in
// `orch_feature_enabled` (spec 002 §9), else the release 1.37 defaults (reference/features.ts). A
// case that needs another gate state is skipped with the reason, which says where the state came
// from: an assumption must never read as something the target said.
import { UsageError } from './errors.js';
import { FeatureGates, FeatureGateError, GATES_1_37 } from '../reference/features.js';
import { parseExposition, samplesOf } from '../suites/002-metrics-debug/exposition.js';
import type { Case } from '../suites/case.js';
import { ApiClient, type TargetConnection } from './client.js';
import type { Dispatcher } from 'undici';

export { GATES_1_37 };

export function defaultGates(): Record<string, boolean> {
  return new FeatureGates().all();
}

/** Parses `Name=true,Other=false` over the defaults; unknown names, bad values and locked gates are usage errors. */
export function parseGates(spec: string | undefined): Record<string, boolean> {
  try {
    return FeatureGates.parse(spec).all();
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--gates: ${err.message}`);
    throw err;
  }
}

/** The names `--gates` gives (checked as parseGates checks them): those states hold whatever the target reports. */
export function statedGateNames(spec: string | undefined): string[] {
  parseGates(spec);
  return (spec ?? '').split(',').map((p) => p.trim()).filter(Boolean).map((p) => p.slice(0, p.indexOf('=')));
}

/**
 * Where a gate state came from: 'run' the run states it (`--gates`, or the gates the embedded run
 * started its reference with); 'target' the component reports it in orch_feature_enabled;
 * 'default' nobody said, so the 1.37 default is assumed.
 */
export type GateSource = 'run' | 'target' | 'default';

export interface GateState {
  readonly on: boolean;
  readonly source: GateSource;
}

/** One component's gates, each with its source. */
export type ComponentGates = Readonly<Record<string, GateState>>;

/**
 * A component's gates: `gates` (the run's, 1.37 defaults included) where `stated` names the gate or
 * it differs from the default (only a statement makes it so), else what the component `reported`,
 * else the default, assumed.
 */
export function resolveGates(gates: Readonly<Record<string, boolean>>, stated: Iterable<string> = [], reported?: Readonly<Record<string, boolean>>): ComponentGates {
  const defaults = defaultGates();
  const said = new Set(stated);
  const out: Record<string, GateState> = {};
  for (const name of new Set([...Object.keys(defaults), ...Object.keys(gates), ...Object.keys(reported ?? {})])) {
    const run = gates[name] ?? defaults[name] ?? false;
    if (said.has(name) || run !== (defaults[name] ?? false)) out[name] = { on: run, source: 'run' };
    else if (reported && name in reported) out[name] = { on: reported[name]!, source: 'target' };
    else out[name] = { on: run, source: 'default' };
  }
  return out;
}

/**
 * Why a case cannot run with a component's gates, or undefined when it can. The one place a gate
 * mismatch is worded: it names the component(s) when given (the API server's gates need no name in
 * a case about the API), and where the state came from.
 */
export function gateMismatch(needs: Readonly<Record<string, boolean>> | undefined, has: ComponentGates, component?: string | readonly string[]): string | undefined {
  const names = component === undefined ? '' : typeof component === 'string' ? component : component.join(', ');
  for (const [name, want] of Object.entries(needs ?? {})) {
    const state = has[name] ?? { on: false, source: 'default' as const };
    if (state.on === want) continue;
    const got = `${name}=${state.on}`;
    const why = state.source === 'target'
      ? `the target reports ${got} (orch_feature_enabled${names ? ` of ${names}` : ''})`
      : state.source === 'run'
        ? `the run declares (--gates) ${got}`
        : `${got} is the assumed 1.37 default (the target does not report it; say otherwise with --gates ${name}=${want})`;
    return `needs feature gate ${name}=${want}${names ? ` on ${names}` : ''}; ${why}`;
  }
  return undefined;
}

/** Gates of the node agent (spec 001; the CRI stats of spec 002): only the agent's state counts. */
const AGENT_GATES: ReadonlySet<string> = new Set(['ContainerCheckpoint', 'PodAndContainerStatsFromCRI', 'InPlacePodVerticalScaling', 'NodeDeclaredFeatures', 'KubeletPSI']);

/**
 * Gates each component has on its own (spec 002 §9: "independently per component"): what counts is
 * the state on the component whose endpoints the case reads.
 */
export const PER_COMPONENT_GATES: ReadonlySet<string> = new Set(['NativeHistograms', 'ComponentStatusz', 'ComponentFlagz', 'ComponentSLIs']);

/** The component name the runner gives the agent under test's gates. */
export const AGENT_COMPONENT = 'agent';

/**
 * The components whose state of `gate` a case depends on: the agent for agent gates; for gates every
 * component has, the components the case reads (its `components` for metrics cases, the agent for
 * cases observing one, else the API server); the API server for the control plane's gates. Cases
 * checked on every component are the runner's to split per component.
 */
export function gateComponents(c: Pick<Case, 'needs' | 'components'>, gate: string): string[] {
  const observesAgent = c.needs.some((k) => k === 'agent' || k === 'cri' || k === 'agent-socket' || k === 'agent-exec');
  if (AGENT_GATES.has(gate)) return [AGENT_COMPONENT];
  if (PER_COMPONENT_GATES.has(gate)) {
    if (c.needs.includes('metrics')) return [...(c.components ?? ['apiserver'])];
    if (observesAgent) return [AGENT_COMPONENT];
  }
  return ['apiserver'];
}

/**
 * The gates a component reports in `orch_feature_enabled` on its /metrics (text exposition), or
 * undefined when it serves none (the spec asks the series of NativeHistograms only; upstream lists
 * every gate it knows). Never throws: a component that cannot be read reports nothing.
 */
export async function readReportedGates(conn: TargetConnection, dispatcher: Dispatcher, timeoutMs = 10_000): Promise<Record<string, boolean> | undefined> {
  try {
    const res = await new ApiClient(conn, dispatcher).get('/metrics', { headers: { accept: 'text/plain;version=0.0.4' }, timeoutMs });
    if (res.status !== 200) return undefined;
    const out: Record<string, boolean> = {};
    for (const s of samplesOf(parseExposition(res.text), 'orch_feature_enabled')) {
      const name = s.labels['name'];
      // Only a plain 0 or 1 says a state; anything else is no statement about the gate.
      if (name && (s.value === 0 || s.value === 1)) out[name] = s.value === 1;
    }
    return Object.keys(out).length ? out : undefined;
  } catch {
    return undefined;
  }
}
