// Legacy (unaggregated) discovery documents, generated from the registered strategies. Clients
// such as kubectl ask for aggregated discovery first and fall back to these when the response
// Content-Type is plain application/json.
import type { Registry } from './registry.js';
import type { ResourceStore } from './store.js';
import type { Verb } from './strategy.js';

export const SERVER_VERSION = { major: '1', minor: '37', gitVersion: 'v1.37.0' };

export function versionInfo(): Record<string, string> {
  return {
    major: SERVER_VERSION.major,
    minor: SERVER_VERSION.minor,
    emulationMajor: SERVER_VERSION.major,
    emulationMinor: SERVER_VERSION.minor,
    minCompatibilityMajor: SERVER_VERSION.major,
    minCompatibilityMinor: String(Number(SERVER_VERSION.minor) - 1),
    gitVersion: SERVER_VERSION.gitVersion,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    // Not a Go build: say what actually runs.
    goVersion: `node ${process.version}`,
    compiler: 'node',
    platform: `${process.platform}/${process.arch}`,
  };
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, versions: readonly string[]): Record<string, unknown> {
  const vs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: Registry): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupEntry(g.group, g.versions)),
  };
}

export function apiGroup(registry: Registry, group: string): unknown | undefined {
  const g = registry.groups().find((x) => x.group === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.group, g.versions) } : undefined;
}

/**
 * The APIResourceList of one group version. `servedVerbs` is what the REST handler implements,
 * so discovery never advertises a verb that would answer 405.
 */
export function apiResourceList(registry: Registry, group: string, version: string, servedVerbs: ReadonlySet<Verb>): unknown {
  const resources: Record<string, unknown>[] = [];
  for (const store of registry.storesIn(group, version)) {
    resources.push(resourceEntry(store, servedVerbs));
    const s = store.strategy;
    const subresources: Array<Record<string, unknown> & { name: string }> = [];
    if (s.hasStatus) {
      subresources.push({
        name: `${s.resource}/status`,
        singularName: '',
        namespaced: s.namespaced,
        kind: s.kind,
        verbs: (['get', 'patch', 'update'] as Verb[]).filter((v) => servedVerbs.has(v) && s.verbs.includes(v)),
      });
    }
    if (s.finalizeSubresource && servedVerbs.has('update') && s.verbs.includes('update')) {
      subresources.push({ name: `${s.resource}/finalize`, singularName: '', namespaced: s.namespaced, kind: s.kind, verbs: ['update'] });
    }
    // Create-only subresources (pods/binding, pods/eviction): their body's kind, with its group and
    // version when they differ from the resource's (upstream: pods/eviction is a policy/v1 Eviction).
    for (const [sub, { body }] of Object.entries(s.subresources ?? {})) {
      if (!servedVerbs.has('create')) continue;
      const foreign = body.group !== s.group || body.version !== s.version;
      subresources.push({
        name: `${s.resource}/${sub}`,
        singularName: '',
        namespaced: s.namespaced,
        ...(foreign ? { group: body.group, version: body.version } : {}),
        kind: body.kind,
        verbs: ['create'],
      });
    }
    for (const [sub, { kind, verbs }] of Object.entries(s.connectSubresources ?? {})) {
      subresources.push({ name: `${s.resource}/${sub}`, singularName: '', namespaced: s.namespaced, kind, verbs: [...verbs] });
    }
    // Streaming read subresources (pods/log): GET only, named by the kind upstream's storage returns.
    for (const [sub, { kind }] of Object.entries(s.readSubresources ?? {})) {
      if (servedVerbs.has('get')) subresources.push({ name: `${s.resource}/${sub}`, singularName: '', namespaced: s.namespaced, kind, verbs: ['get'] });
    }
    resources.push(...subresources.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function resourceEntry(store: ResourceStore, servedVerbs: ReadonlySet<Verb>): Record<string, unknown> {
  const s = store.strategy;
  const entry: Record<string, unknown> = {
    name: s.resource,
    singularName: s.singular,
    namespaced: s.namespaced,
    kind: s.kind,
    verbs: s.verbs.filter((v) => servedVerbs.has(v)),
  };
  if (s.shortNames?.length) entry['shortNames'] = [...s.shortNames];
  if (s.categories?.length) entry['categories'] = [...s.categories];
  return entry;
}

/** `debugPaths`: the metrics and debug endpoints served beside the API (default: the health endpoints). */
export function rootPaths(registry: Registry, debugPaths: readonly string[] = ['/healthz', '/livez', '/readyz']): unknown {
  const paths = ['/api', '/api/v1', '/apis'];
  for (const g of registry.groups()) {
    paths.push(`/apis/${g.group}`);
    for (const v of g.versions) paths.push(`/apis/${g.group}/${v}`);
  }
  paths.push(...debugPaths, '/openapi/v2', '/openapi/v3', '/version');
  return { paths: [...new Set(paths)].sort() };
}
