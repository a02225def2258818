// Aggregated discovery (upstream apidiscovery.k8s.io/v2, KEP-3352): `/api` and `/apis` answer every
// group, version and resource in one document when the client asks for it with
// `Accept: application/json;g=apidiscovery.<orch.io|k8s.io>;v=v2;as=APIGroupDiscoveryList`, so that
// kubectl needs one request instead of one per group version. The document is built from the same
// per-version APIResourceLists the legacy endpoints serve (discovery.ts), so both always agree.
import type { Registry } from './registry.js';
import type { Verb } from './strategy.js';
import { apiResourceList } from './discovery.js';
import { parseMediaParams } from '../media-params.js';

/** The discovery groups a client may name: this project's and upstream's (what kubectl sends). */
const DISCOVERY_GROUPS = ['apidiscovery.orch.io', 'apidiscovery.k8s.io'] as const;
export type DiscoveryGroup = (typeof DISCOVERY_GROUPS)[number];

/**
 * The discovery group of the aggregated document the Accept header prefers, or undefined when the
 * client prefers (or only takes) the legacy documents. Ranges are taken in order of q, then of
 * position, as negotiation.ts does; conversions this server does not make are passed over.
 */
export function aggregatedWanted(accept: string | undefined): DiscoveryGroup | undefined {
  if (!accept) return undefined;
  const ranges = accept.split(',').map((text, index) => {
    const [mt, ...rest] = text.split(';');
    const { params, q } = parseMediaParams(rest);
    return { mt: mt!.trim().toLowerCase(), params, q, index };
  }).filter((r) => r.q > 0);
  ranges.sort((a, b) => b.q - a.q || a.index - b.index);
  for (const r of ranges) {
    const as = r.params['as'];
    if (as === undefined) return undefined;
    const group = DISCOVERY_GROUPS.find((g) => g === r.params['g']);
    if (as === 'APIGroupDiscoveryList' && r.params['v'] === 'v2' && group && (r.mt === 'application/json' || r.mt === '*/*')) return group;
  }
  return undefined;
}

/** The Content-Type of the aggregated document in `group`. */
export const aggregatedContentType = (group: DiscoveryGroup): string => `application/json;g=${group};v=v2;as=APIGroupDiscoveryList`;

interface LegacyResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

/**
 * The APIGroupDiscoveryList of `/api` (`legacy`: the core group, whose item has no name) or `/apis`
 * (every other group, in the order of the legacy group list).
 */
export function aggregatedDiscovery(registry: Registry, legacy: boolean, group: DiscoveryGroup, servedVerbs: ReadonlySet<Verb>): unknown {
  const groups = legacy ? [{ group: '', versions: ['v1'] }] : registry.groups().filter((g) => g.group !== '');
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `${group}/v2`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: g.group ? { name: g.group, creationTimestamp: null } : { creationTimestamp: null },
      versions: g.versions.map((version) => ({ version, resources: versionResources(registry, g.group, version, servedVerbs), freshness: 'Current' })),
    })),
  };
}

/** One version's resources, each with its subresources (the legacy list has them as `resource/sub` entries). */
function versionResources(registry: Registry, group: string, version: string, servedVerbs: ReadonlySet<Verb>): unknown[] {
  const list = apiResourceList(registry, group, version, servedVerbs) as { resources: LegacyResource[] };
  const kindOf = (r: LegacyResource) => ({ group: r.group ?? group, version: r.version ?? version, kind: r.kind });
  const out: Array<Record<string, unknown> & { subresources?: unknown[] }> = [];
  const byName = new Map<string, (typeof out)[number]>();
  for (const r of list.resources) {
    const slash = r.name.indexOf('/');
    if (slash < 0) {
      const entry: (typeof out)[number] = {
        resource: r.name,
        responseKind: kindOf(r),
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: r.singularName,
        verbs: r.verbs,
        ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
        ...(r.categories?.length ? { categories: r.categories } : {}),
      };
      byName.set(r.name, entry);
      out.push(entry);
      continue;
    }
    const parent = byName.get(r.name.slice(0, slash));
    if (!parent) continue;
    (parent.subresources ??= []).push({ subresource: r.name.slice(slash + 1), responseKind: kindOf(r), verbs: r.verbs });
  }
  return out;
}
