// Feature gates the spec names, with their release 1.37 defaults. A case may need a gate in a given
// state; `run --gates` says what the target has where it differs from these defaults.
import { UsageError } from './errors.js';

export interface GateInfo {
  readonly default: boolean;
  /** Locked gates (GA or deprecated) cannot be set against their default. */
  readonly locked?: boolean;
  readonly stage: 'alpha' | 'beta' | 'GA';
}

export const GATES_1_37: Readonly<Record<string, GateInfo>> = {
  // spec 000
  GenericWorkload: { default: false, stage: 'alpha' },
  CompositePodGroup: { default: false, stage: 'alpha' },
  PodGroupPreemptionPolicy: { default: false, stage: 'alpha' },
  DRAWorkloadResourceClaims: { default: true, stage: 'beta' },
  TopologyAwareWorkloadScheduling: { default: false, stage: 'alpha' },
  ShardedListAndWatch: { default: false, stage: 'alpha' },
  // spec 001
  ContainerCheckpoint: { default: true, stage: 'beta' },
  InPlacePodVerticalScaling: { default: true, locked: true, stage: 'GA' },
  NodeDeclaredFeatures: { default: true, locked: true, stage: 'GA' },
  // spec 002
  ComponentSLIs: { default: true, locked: true, stage: 'GA' },
  NativeHistograms: { default: true, stage: 'beta' },
  ComponentStatusz: { default: true, stage: 'beta' },
  ComponentFlagz: { default: true, stage: 'beta' },
  PodAndContainerStatsFromCRI: { default: false, stage: 'beta' },
  KubeletPSI: { default: true, locked: true, stage: 'GA' },
};

export function defaultGates(): Record<string, boolean> {
  return Object.fromEntries(Object.entries(GATES_1_37).map(([k, v]) => [k, v.default]));
}

/** Parses `Name=true,Other=false` over the defaults; unknown names and bad values are usage errors. */
export function parseGates(spec: string | undefined): Record<string, boolean> {
  const gates = defaultGates();
  if (!spec) return gates;
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(part);
    if (!m) throw new UsageError(`--gates: "${part}" is not Name=true or Name=false`);
    if (!(m[1] in GATES_1_37)) throw new UsageError(`--gates: unknown feature gate "${m[1]}"; known gates: ${Object.keys(GATES_1_37).join(', ')}`);
    gates[m[1]] = m[2] === 'true';
  }
  return gates;
}

/** Why a case cannot run with these gates, or undefined when it can. */
export function gateMismatch(needs: Readonly<Record<string, boolean>> | undefined, has: Record<string, boolean>): string | undefined {
  for (const [name, want] of Object.entries(needs ?? {})) {
    if ((has[name] ?? false) !== want) return `needs feature gate ${name}=${want}; the target has ${name}=${has[name] ?? false}`;
  }
  return undefined;
}
