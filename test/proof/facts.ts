// Breakages for the cases that need target facts (suites/000-control-plane/7-expiry.ts,
// 4.3-corrupt-objects.ts, suites/002-metrics-debug/4-health-failing.ts): each a target that gets
// exactly that case's rule wrong under the condition the fact brings about.
import { answer, editJson, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

const url = (r: ProxiedRequest) => new URL(r.path, 'http://proxy.invalid');
const param = (r: ProxiedRequest, name: string): string | null => url(r).searchParams.get(name);
const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';

/** The JSON of a continue token (unpadded base64url of a JSON object), or undefined. */
function decodeToken(t: string): any {
  try {
    return JSON.parse(Buffer.from(t, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A target whose continue tokens expire after `ms`, however long it says they last. */
function tokensExpireAfter(ms: number): Breakage {
  const issued = new Map<string, number>();
  return {
    request(req) {
      const token = param(req, 'continue');
      const at = token ? issued.get(token) : undefined;
      if (at !== undefined && Date.now() - at > ms) return answer(410, statusBody(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.'));
      return undefined;
    },
    response(_req, res) {
      try {
        const token = JSON.parse(res.body)?.metadata?.continue;
        if (typeof token === 'string' && token && !issued.has(token)) issued.set(token, Date.now());
      } catch {
        // Not JSON: nothing issued.
      }
    },
  };
}

export const factBreakages: Record<string, Breakage> = {
  // The 410 comes without a fresh token.
  'api.list.continue.expired': {
    response(req, res) {
      if (param(req, 'continue') && res.status === 410) editJson(res, (s) => ({ ...s, metadata: {} }));
    },
  },
  // The fresh token starts the list over instead of continuing from the next key.
  'api.list.continue.expired-fresh-token': {
    response(req, res) {
      if (!param(req, 'continue') || res.status !== 410) return;
      editJson(res, (s) => {
        const t = decodeToken(s.metadata?.continue ?? '');
        if (t) s.metadata.continue = Buffer.from(JSON.stringify({ ...t, start: '\u0000' })).toString('base64url');
        return s;
      });
    },
  },
  // A terse message that does not say what the client may do.
  'api.list.continue.expired-message': {
    response(req, res) {
      if (param(req, 'continue') && res.status === 410) editJson(res, (s) => ({ ...s, message: 'continue token expired' }));
    },
  },
  // Tokens die long before the validity the target states.
  'api.list.continue.valid-within-ttl': tokensExpireAfter(300),
  // The ERROR event for a compacted resourceVersion carries a 500 instead of 410 Expired.
  'api.watch.expired-resource-version': {
    watchLine(_req, line) {
      if (!line.includes('"ERROR"')) return line;
      const ev = JSON.parse(line);
      return JSON.stringify({ ...ev, object: { ...ev.object, code: 500, reason: 'InternalError' } });
    },
  },
  // An exact read of compacted history is a server error rather than 410 Expired.
  'api.list.expired-resource-version': {
    response(req, res) {
      if (param(req, 'resourceVersionMatch') === 'Exact' && res.status === 410) {
        res.status = 500;
        res.body = JSON.stringify(statusBody(500, 'InternalError', 'cannot read history'));
      }
    },
  },
  // A corrupt object reads as missing.
  'api.errors.internal': {
    response(req, res) {
      if (req.method === 'GET' && res.status === 500) {
        res.status = 404;
        res.body = JSON.stringify(statusBody(404, 'NotFound', 'not found'));
      }
    },
  },
  // The unsafe-delete option is ignored: the delete stays a normal one, which cannot remove it.
  'api.delete.ignore-store-read-error.unsafe-delete': {
    request(req) {
      if (req.method !== 'DELETE' || param(req, UNSAFE) === null) return;
      const u = url(req);
      u.searchParams.delete(UNSAFE);
      req.path = u.pathname + u.search;
    },
  },
  // The failure listing shows the check's reason to anyone.
  'debug.health.failing-check': {
    response(req, res) {
      if (req.method === 'GET' && /^\/(healthz|livez|readyz)(\?|$)/.test(req.path)) res.body = res.body.replace(/failed: reason withheld/g, 'failed: informers not started');
    },
  },
  // Failing checks are reported as passing in the SLIs.
  'debug.slis.healthcheck-failed-zero': {
    response(req, res) {
      if (req.path.startsWith('/metrics/slis')) res.body = res.body.replace(/^(orch_healthcheck\{[^}]*\}) 0$/gm, '$1 1');
    },
  },
};
