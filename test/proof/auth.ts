// Breakages for the authentication cases (spec 000 §5 and the 401/403 Status rows of §7).
import { answer, jsonBody, statusBody, type Breakage, type ProxiedRequest } from '../helpers/broken-target.js';

/** The users a RoleBinding was created for, per proxy: the namespace-scope breakage lets them in everywhere. */
function bindingGrantsEverywhere(): Breakage {
  const bound = new Set<string>();
  return {
    request: (r: ProxiedRequest) => {
      if (r.method === 'POST' && /\/namespaces\/[^/]+\/rolebindings(\?|$)/.test(r.path)) {
        for (const s of jsonBody(r)?.subjects ?? []) if (s?.kind === 'User' && typeof s.name === 'string') bound.add(s.name);
      }
      // A server that evaluates RoleBindings without their namespace: the bound user may list
      // anywhere (forwarded as the run's user, who may).
      const user = r.headers['impersonate-user'];
      if (r.method === 'GET' && user && bound.has(user)) delete r.headers['impersonate-user'];
    },
  };
}

export const authBreakages: Record<string, Breakage> = {
  'api.auth.unauthorized': {
    // A server that treats an unknown token as an anonymous user without rights: 403, not 401.
    response: (_r, res) => {
      if (res.status === 401) Object.assign(res, answer(403, statusBody(403, 'Forbidden', 'forbidden: User "system:anonymous" cannot list resource "storageclasses"')));
    },
  },
  'api.auth.forbidden': {
    // A server that ignores impersonation (everyone acts as the authenticated user): 200.
    request: (r) => { delete r.headers['impersonate-user']; },
  },
  'api.auth.namespace-scope': bindingGrantsEverywhere(),
};
