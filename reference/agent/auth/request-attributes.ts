// What a request to the agent's HTTPS port is authorized as, as upstream's kubelet
// (pkg/kubelet/server/auth.go) derives it: resource `nodes` named after the node, a verb from the
// HTTP method, and a subresource from the path. Where upstream's fine-grained authorization
// (KubeletFineGrainedAuthz, on in 1.37) names a specific subresource first, `proxy` follows as the
// fallback; the request is allowed when either is.

import { isSubpath } from '../../auth-delegation/paths.js';

// Health paths stay open. Upstream serves health without authentication on its separate healthz
// port (healthzPort, 10248 on loopback); this agent has one port, and service managers and the
// launcher of agent-exec runs probe /healthz there without credentials, so these paths are not
// authenticated here. They only say whether the agent is healthy.
export { isSubpath, isOpenPath, OPEN_PATHS } from '../../auth-delegation/paths.js';

/** Upstream's verb for a method; HEAD reads like GET (upstream leaves it empty, which no rule matches). */
export function verbOf(method: string | undefined): string {
  switch ((method ?? 'GET').toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return (method ?? '').toLowerCase();
  }
}

/** The subresources to authorize `path` as, in order (the first allowed one wins). */
export function subresourcesOf(path: string): string[] {
  if (isSubpath(path, '/stats')) return ['stats'];
  if (isSubpath(path, '/metrics')) return ['metrics'];
  // "log" to match the other log subresources (pods/log), as upstream says.
  if (isSubpath(path, '/logs')) return ['log'];
  if (isSubpath(path, '/spec')) return ['spec'];
  if (isSubpath(path, '/checkpoint')) return ['checkpoint'];
  if (isSubpath(path, '/pods') || isSubpath(path, '/runningpods')) return ['pods', 'proxy'];
  if (isSubpath(path, '/configz')) return ['configz', 'proxy'];
  return ['proxy'];
}
