// Feature gates of release 1.37 that the spec names, and the set a running reference has on.
// `serve --feature-gates` sets them; `run --gates` tells the suites what a target has.

export interface GateInfo {
  readonly default: boolean;
  /** GA or deprecated gates are locked to their default: setting them otherwise is refused. */
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

export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

/** The gates one server runs with: 1.37 defaults overridden by what it was started with. */
export class FeatureGates {
  private readonly state: Record<string, boolean>;

  constructor(overrides: Readonly<Record<string, boolean>> = {}) {
    this.state = Object.fromEntries(Object.entries(GATES_1_37).map(([k, v]) => [k, v.default]));
    for (const [name, value] of Object.entries(overrides)) {
      const info = GATES_1_37[name];
      if (!info) throw new FeatureGateError(`unknown feature gate "${name}"; known gates: ${Object.keys(GATES_1_37).join(', ')}`);
      if (info.locked && value !== info.default) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${info.default}`);
      }
      this.state[name] = value;
    }
  }

  /** Parses `Name=true,Other=false` (the upstream --feature-gates syntax). */
  static parse(spec: string | undefined): FeatureGates {
    const overrides: Record<string, boolean> = {};
    for (const part of (spec ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
      const m = /^([A-Za-z0-9]+)=(true|false)$/i.exec(part);
      if (!m) throw new FeatureGateError(`invalid feature gate "${part}": want Name=true or Name=false`);
      overrides[m[1]!] = m[2]!.toLowerCase() === 'true';
    }
    return new FeatureGates(overrides);
  }

  enabled(name: string): boolean {
    return this.state[name] ?? false;
  }

  /** Every known gate and its state, sorted by name. */
  all(): Record<string, boolean> {
    // Code-unit order (gate names are ASCII): localeCompare would load ICU's collator, a cost every
    // agent and CLI process paid at start for this one sort.
    return Object.fromEntries(Object.entries(this.state).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
