// The control plane's active parts a case may need besides the API: controllers and the scheduler,
// by upstream's names (kube-controller-manager --controllers, plus `scheduler`). A run assumes the
// target runs all of them, as a full control plane does; `run --controllers <list>` says which it
// runs, and cases needing one it lacks are skipped with the reason instead of timing out.
import { UsageError } from './errors.js';

export const CONTROL_PLANE_PARTS = [
  'evictionrequest-controller',
  'imperative-eviction-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'resourcequota-controller',
  'storage-version-migrator-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'clusterrole-aggregation-controller',
  'pod-garbage-collector-controller',
  'scheduler',
] as const;

export type ControlPlanePart = (typeof CONTROL_PLANE_PARTS)[number];

/** `--controllers` value: `all`, `none`, or a comma-separated list of CONTROL_PLANE_PARTS. */
export function parseControlPlaneParts(v: string | undefined): readonly ControlPlanePart[] | undefined {
  if (v === undefined || v.trim() === 'all') return undefined;
  if (v.trim() === 'none') return [];
  const parts = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = parts.filter((p) => !(CONTROL_PLANE_PARTS as readonly string[]).includes(p));
  if (unknown.length) throw new UsageError(`--controllers: unknown ${unknown.join(', ')}; known: ${CONTROL_PLANE_PARTS.join(', ')} (or all, none)`);
  return parts as ControlPlanePart[];
}

/** Why a case cannot run on a target running only `present` (undefined: everything), or undefined. */
export function controllerMismatch(needs: readonly ControlPlanePart[] | undefined, present: readonly ControlPlanePart[] | undefined): string | undefined {
  if (!present) return undefined;
  const absent = (needs ?? []).filter((n) => !present.includes(n));
  if (absent.length === 0) return undefined;
  return `needs the target's ${absent.join(' and ')}, which the run says it does not run (--controllers)`;
}
