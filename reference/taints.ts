// Node taints and pod tolerations, as the scheduler, the node lifecycle and taint eviction
// controllers and the default-tolerations admission all read them (upstream core/v1 helpers).

/** Spec 001 §3: the taints the node lifecycle controller puts on nodes whose Ready is Unknown or False. */
export const TAINT_NODE_UNREACHABLE = 'node.orch.io/unreachable';
export const TAINT_NODE_NOT_READY = 'node.orch.io/not-ready';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Upstream Toleration.ToleratesTaint: effect and key match (empty matches all), Equal compares values, Exists does not. */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.key && tol.key !== taint.key) return false;
  switch (tol.operator ?? '') {
    case '':
    case 'Equal':
      return (tol.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}
