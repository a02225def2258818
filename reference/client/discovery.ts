// Discovery for controllers (client-go's discovery client with a memory cache): which resources the
// API server serves, at their preferred version, read from /api/v1 and /apis, /apis/<group>/<version>.
// A controller asks by group and resource; an unknown one makes the cache refresh, at most once per
// `minRefreshMs`, so a kind served later is found without hammering the server.
import type { ApiClient } from './api-client.js';

export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

/** `apiVersion` of a served resource: `v1` or `<group>/<version>`. */
export const apiVersionOf = (r: Pick<ServedResource, 'group' | 'version'>): string => (r.group ? `${r.group}/${r.version}` : r.version);

/** The collection path of a resource, across all namespaces or in one. */
export function collectionPathOf(r: ServedResource, namespace?: string): string {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace ? `${prefix}/namespaces/${encodeURIComponent(namespace)}/${r.resource}` : `${prefix}/${r.resource}`;
}

export class DiscoveryCache {
  private resources: ServedResource[] = [];
  private fetchedAt = 0;
  private pending: Promise<ServedResource[]> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly opts: { readonly maxAgeMs?: number; readonly minRefreshMs?: number } = {},
  ) {}

  /** Every served resource (no subresources), refreshed when older than maxAgeMs (default 30 s). */
  async all(): Promise<ServedResource[]> {
    if (Date.now() - this.fetchedAt > (this.opts.maxAgeMs ?? 30_000)) await this.refresh();
    return this.resources;
  }

  /** The served resource `group`/`resource`, refreshing once (rate limited) when it is not known yet. */
  async lookup(group: string, resource: string): Promise<ServedResource | undefined> {
    const find = (list: readonly ServedResource[]) => list.find((r) => r.group === group && r.resource === resource);
    const found = find(await this.all());
    if (found || Date.now() - this.fetchedAt < (this.opts.minRefreshMs ?? 2_000)) return found;
    return find(await this.refresh());
  }

  /** The served resource of kind `kind` in `group` (what owner references name), refreshing like lookup. */
  async lookupKind(group: string, kind: string): Promise<ServedResource | undefined> {
    const find = (list: readonly ServedResource[]) => list.find((r) => r.group === group && r.kind === kind);
    const found = find(await this.all());
    if (found || Date.now() - this.fetchedAt < (this.opts.minRefreshMs ?? 2_000)) return found;
    return find(await this.refresh());
  }

  refresh(): Promise<ServedResource[]> {
    this.pending ??= this.fetch().then((list) => {
      this.resources = list;
      this.fetchedAt = Date.now();
      return list;
    }).finally(() => { this.pending = undefined; });
    return this.pending;
  }

  private async fetch(): Promise<ServedResource[]> {
    const out: ServedResource[] = [];
    const add = (group: string, version: string, list: any) => {
      for (const r of Array.isArray(list?.resources) ? list.resources : []) {
        if (typeof r?.name !== 'string' || r.name.includes('/')) continue;
        out.push({ group, version, resource: r.name, kind: String(r.kind ?? ''), namespaced: !!r.namespaced, verbs: Array.isArray(r.verbs) ? r.verbs : [] });
      }
    };
    add('', 'v1', await this.client.get('/api/v1'));
    const groups = await this.client.get('/apis');
    for (const g of Array.isArray(groups?.groups) ? groups.groups : []) {
      const gv: string | undefined = g?.preferredVersion?.groupVersion ?? g?.versions?.[0]?.groupVersion;
      if (!gv || typeof g?.name !== 'string') continue;
      const version = gv.slice(gv.indexOf('/') + 1);
      add(g.name, version, await this.client.get(`/apis/${gv}`).catch(() => undefined));
    }
    return out;
  }
}
