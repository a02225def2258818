// The set of served resources: one generic store per strategy, looked up by group/version/resource.
import { ResourceStore, type Admission } from './store.js';
import type { ResourceStrategy } from './strategy.js';
import type { Storage } from '../storage/types.js';
import { FeatureGates } from '../features.js';
import { ConvertedStorage } from '../storage/converted.js';

export interface GroupVersions {
  readonly group: string;
  /** In registration order; the first is the preferred version. */
  readonly versions: string[];
}

export class Registry {
  readonly stores: readonly ResourceStore[];
  private readonly byPath = new Map<string, ResourceStore>();
  private readonly groupVersions = new Map<string, Set<string>>();

  constructor(storage: Storage, strategies: readonly ResourceStrategy[], admission?: Admission, readonly gates: FeatureGates = new FeatureGates()) {
    const stores: ResourceStore[] = [];
    for (const strategy of strategies) {
      // An API behind a disabled gate is not installed at all: no paths, no discovery entry.
      if (strategy.gate && !gates.enabled(strategy.gate)) continue;
      const store = new ResourceStore({ storage: viewStorage(storage, strategy), strategy, admission, gates });
      const path = `${strategy.group}/${strategy.version}/${strategy.resource}`;
      if (this.byPath.has(path)) throw new Error(`resource registered twice: ${path}`);
      this.byPath.set(path, store);
      stores.push(store);
      let versions = this.groupVersions.get(strategy.group);
      if (!versions) this.groupVersions.set(strategy.group, (versions = new Set()));
      versions.add(strategy.version);
    }
    this.stores = stores;
  }

  lookup(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /** The store of a resource in whatever version it is served (first registered). */
  byGroupResource(group: string, resource: string): ResourceStore | undefined {
    return this.stores.find((s) => s.strategy.group === group && s.strategy.resource === resource);
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.groupVersions.get(group)?.has(version) ?? false;
  }

  /** Named API groups (the core group is served under /api, not /apis). */
  groups(): GroupVersions[] {
    const out: GroupVersions[] = [];
    for (const [group, versions] of this.groupVersions) if (group) out.push({ group, versions: [...versions] });
    return out;
  }

  storesIn(group: string, version: string): ResourceStore[] {
    return this.stores.filter((s) => s.strategy.group === group && s.strategy.version === version);
  }
}

/** The storage a resource's store works on: the shared one, or a converting view of another resource's collection. */
function viewStorage(storage: Storage, s: ResourceStrategy): Storage {
  if (!s.storedAs) return storage;
  return new ConvertedStorage(storage, `/registry/${s.group || 'core'}/${s.resource}/`, `/registry/${s.storedAs.group || 'core'}/${s.storedAs.resource}/`, s.storedAs.codec);
}
