// A server that deletes pods at once: every DELETE of a pod (not a collection) that names no grace
// period asks for gracePeriodSeconds=0, so a bound pod is removed without waiting for its agent.
// Spec 000 leaves the default grace period to each kind ("if nil the per-type default is used"), so
// this is a legal server (test/variants/spec-freedoms.ts) and, for the cases about upstream's graceful
// pod deletion (SHOULD), their broken one (test/proof).
import type { ProxiedRequest } from './broken-target.js';

const POD_ITEM = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+$/;

/** Rewrites `r` in place when it is such a DELETE; says whether it did. */
export function deletePodAtOnce(r: ProxiedRequest): boolean {
  if (r.method !== 'DELETE') return false;
  const [path, query = ''] = r.path.split('?') as [string, string?];
  if (!POD_ITEM.test(path)) return false;
  const q = new URLSearchParams(query);
  if (q.has('gracePeriodSeconds') || q.get('ignoreStoreReadErrorWithClusterBreakingPotential') === 'true') return false;
  if (r.body) {
    // DeleteOptions in the body: the grace period goes there.
    let o: any;
    try {
      o = JSON.parse(r.body);
    } catch {
      return false;
    }
    if (!o || typeof o !== 'object' || o.gracePeriodSeconds !== undefined || o.ignoreStoreReadErrorWithClusterBreakingPotential) return false;
    r.body = JSON.stringify({ ...o, gracePeriodSeconds: 0 });
    return true;
  }
  q.set('gracePeriodSeconds', '0');
  r.path = `${path}?${q.toString()}`;
  return true;
}
