// The paths every component serves without authentication or authorization: health. Upstream's
// components list /healthz, /readyz and /livez in --authorization-always-allow-paths; the kubelet
// serves them on a port of its own. Service managers and probes read them without credentials.

/** Upstream's isSubpath: the path itself or anything below it. */
export function isSubpath(path: string, prefix: string): boolean {
  const p = prefix.replace(/\/$/, '');
  return path === p || path.startsWith(`${p}/`);
}

/**
 * Health and its single checks (`/readyz/informer-sync`) stay open: they only say whether the
 * component is healthy, and a probe that reads one check must not need a token.
 */
export const OPEN_PATHS: readonly string[] = ['/healthz', '/livez', '/readyz'];

export const isOpenPath = (path: string) => OPEN_PATHS.some((p) => isSubpath(path, p));
