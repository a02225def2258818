// Test-only: `serve --debug-plant-corrupt <resource path>` writes bytes that cannot be decoded at
// the storage key of an object, so that reads of it fail as a corrupt object does upstream (500)
// and ignoreStoreReadErrorWithClusterBreakingPotential can be exercised. Never on by default.
import type { Registry } from './apiserver/registry.js';
import type { Storage } from './storage/types.js';

/** What a planted entry holds: not JSON (a NUL first), as undecodable as an encryption failure. */
export const CORRUPT_BYTES = '\u0000orch-debug-plant: undecodable bytes written by serve --debug-plant-corrupt';

/**
 * Maps an item path (`/apis/<group>/<version>/[namespaces/<ns>/]<resource>/<name>`, or
 * `/api/v1/...` for the core group) to its storage key and writes CORRUPT_BYTES there, replacing
 * whatever was stored. Throws with a readable message when the path names no served resource item.
 */
export async function plantCorrupt(registry: Registry, storage: Storage, resourcePath: string): Promise<string> {
  const segs = resourcePath.split('?')[0]!.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    [group, version, rest] = ['', segs[1]!, segs.slice(2)];
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    [group, version, rest] = [segs[1]!, segs[2]!, segs.slice(3)];
  } else {
    throw new Error(`${resourcePath}: not a resource path (want /api/v1/... or /apis/<group>/<version>/...)`);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length === 4) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  if (rest.length !== 2 || !rest[1]) throw new Error(`${resourcePath}: not the path of one object (…/<resource>/<name>)`);
  const [resource, name] = rest as [string, string];
  const store = registry.lookup(group, version, resource);
  if (!store) throw new Error(`${resourcePath}: the server does not serve ${resource} in ${group ? `${group}/` : ''}${version}`);
  if (store.strategy.namespaced !== (namespace !== '')) {
    throw new Error(`${resourcePath}: ${resource} is ${store.strategy.namespaced ? 'namespaced: use …/namespaces/<ns>/' : 'cluster-scoped: drop the namespace'}${resource}/<name>`);
  }
  const key = store.keyPrefix(namespace) + name;
  if (await storage.get(key)) await storage.update(key, CORRUPT_BYTES);
  else await storage.create(key, CORRUPT_BYTES);
  return key;
}
