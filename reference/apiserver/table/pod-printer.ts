// The Pod columns of `kubectl get pods`: READY, STATUS, RESTARTS and AGE, and with `-o wide` IP,
// NODE, NOMINATED NODE and READINESS GATES (upstream pkg/printers/internalversion printPod). STATUS
// sums up the pod in one word, from the most telling thing its status holds: an init container
// still running or failed (`Init:1/2`, `Init:CrashLoopBackOff`), a container waiting or terminated
// (`ContainerCreating`, `Completed`, `Error`, `ExitCode:3`), a gated or terminating pod, else the
// phase (or status.reason, such as `Evicted`).
import type { ApiObject } from '../strategy.js';
import { timestampMs, humanDuration } from './age.js';
import { AGE_COLUMN, NAME_COLUMN, ageOf, at, column, isSet, list, nameOf, num, orNone, rec, str, type Cell, type Json, type Printer, type RowCondition } from './columns.js';

/** What a node that stopped answering leaves in status.reason of its pods (upstream NodeLost). */
const NODE_UNREACHABLE_REASON = 'NodeLost';

const COMPLETED_SUCCEEDED: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'All containers of the pod finished successfully.' }];
const COMPLETED_FAILED: RowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod finished and at least one container failed.' }];

const conditionTrue = (conditions: Json[], type: string): boolean => conditions.find((c) => c['type'] === type)?.['status'] === 'True';

/** `Signal:9`, `ExitCode:1`, or the reason the runtime gave for a container's termination. */
function terminationReason(t: Json): string {
  const reason = str(t['reason']);
  if (reason) return reason;
  return num(t['signal']) !== 0 ? `Signal:${num(t['signal'])}` : `ExitCode:${num(t['exitCode'])}`;
}

/** The later of `latest` and the time the container's previous run ended. */
const lastEnd = (latest: number, status: Json): number => Math.max(latest, timestampMs(at(status, 'lastState', 'terminated', 'finishedAt')) ?? 0);

interface Summary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  /** When the most recent of the counted restarts happened (ms), 0 if unknown. */
  lastRestart: number;
}

function summarize(pod: ApiObject): Summary {
  const spec = rec(pod['spec']);
  const status = rec(pod['status']);
  const conditions = list(status['conditions']);
  const initContainers = list(spec['initContainers']);
  // Init containers with restartPolicy Always run beside the others for the pod's life (sidecars):
  // they count among the containers READY shows, and their restarts count once the pod is initialized.
  const sidecars = new Set(initContainers.filter((c) => c['restartPolicy'] === 'Always').map((c) => str(c['name'])));
  const s: Summary = { ready: 0, total: list(spec['containers']).length + sidecars.size, reason: '', restarts: 0, lastRestart: 0 };
  const phase = str(status['phase']);
  s.reason = str(status['reason']) || phase;
  if (conditions.some((c) => c['type'] === 'PodScheduled' && c['reason'] === 'SchedulingGated')) s.reason = 'SchedulingGated';

  let sidecarRestarts = 0;
  let sidecarLastRestart = 0;
  let initializing = false;
  const initStatuses = list(status['initContainerStatuses']);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const sidecar = sidecars.has(str(cs['name']));
    s.restarts += num(cs['restartCount']);
    s.lastRestart = lastEnd(s.lastRestart, cs);
    if (sidecar) {
      sidecarRestarts += num(cs['restartCount']);
      sidecarLastRestart = lastEnd(sidecarLastRestart, cs);
    }
    const terminated = at(cs, 'state', 'terminated');
    const waitingReason = str(at(cs, 'state', 'waiting', 'reason'));
    if (isSet(terminated) && num(rec(terminated)['exitCode']) === 0) continue;
    if (sidecar && cs['started'] === true) {
      if (cs['ready'] === true) s.ready++;
      continue;
    }
    // The first init container not done decides: it failed, waits for a reason, or still runs.
    if (isSet(terminated)) s.reason = `Init:${terminationReason(rec(terminated))}`;
    else if (waitingReason !== '' && waitingReason !== 'PodInitializing') s.reason = `Init:${waitingReason}`;
    else s.reason = `Init:${i}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(conditions, 'Initialized')) {
    s.restarts = sidecarRestarts;
    s.lastRestart = sidecarLastRestart;
    let hasRunning = false;
    let errorReason = '';
    const statuses = list(status['containerStatuses']);
    // From the last container to the first, so that the first one's state is the one shown.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      s.restarts += num(cs['restartCount']);
      s.lastRestart = lastEnd(s.lastRestart, cs);
      const waitingReason = str(at(cs, 'state', 'waiting', 'reason'));
      const terminated = at(cs, 'state', 'terminated');
      if (waitingReason !== '') {
        s.reason = waitingReason;
      } else if (isSet(terminated)) {
        s.reason = terminationReason(rec(terminated));
        if (num(rec(terminated)['exitCode']) !== 0) errorReason = s.reason;
      } else if (cs['ready'] === true && isSet(at(cs, 'state', 'running'))) {
        hasRunning = true;
        s.ready++;
      }
    }
    // A container that completed while others still run does not make the pod Completed.
    if (s.reason === 'Completed') {
      if (hasRunning && conditionTrue(conditions, 'Ready')) s.reason = 'Running';
      else if (errorReason !== '') s.reason = errorReason;
      else if (hasRunning) s.reason = 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp && status['reason'] === NODE_UNREACHABLE_REASON) s.reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') s.reason = 'Terminating';
  return s;
}

/** `3/4` of the readiness gates whose condition is True, or `<none>`. */
function readinessGates(pod: ApiObject): string {
  const gates = list(at(pod, 'spec', 'readinessGates'));
  if (gates.length === 0) return '<none>';
  const conditions = list(at(pod, 'status', 'conditions'));
  const passed = gates.filter((g) => conditions.find((c) => c['type'] === g['conditionType'])?.['status'] === 'True').length;
  return `${passed}/${gates.length}`;
}

export const podPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Containers ready to serve out of all the containers of the pod (sidecar init containers included).'),
    column('Status', 'string', "A one-word summary of the pod's state, from its phase and its containers' states."),
    column('Restarts', 'string', 'How many times the containers were restarted, and how long ago the latest restart was.'),
    AGE_COLUMN,
    column('IP', 'string', 'The first IP address of the pod (status.podIPs).', { priority: 1 }),
    column('Node', 'string', 'The node the pod is bound to (spec.nodeName).', { priority: 1 }),
    column('Nominated Node', 'string', 'The node the scheduler means to place the pod on once preemption freed room (status.nominatedNodeName).', { priority: 1 }),
    column('Readiness Gates', 'string', 'Readiness gates whose condition is True, out of all the gates of the pod.', { priority: 1 }),
  ],
  cells(pod: ApiObject, now: number): Cell[] {
    const s = summarize(pod);
    const restarts = s.restarts !== 0 && s.lastRestart !== 0 ? `${s.restarts} (${humanDuration(now - s.lastRestart)} ago)` : String(s.restarts);
    return [
      nameOf(pod),
      `${s.ready}/${s.total}`,
      s.reason,
      restarts,
      ageOf(pod, now),
      orNone(str(list(at(pod, 'status', 'podIPs'))[0]?.['ip'])),
      orNone(str(at(pod, 'spec', 'nodeName'))),
      orNone(str(at(pod, 'status', 'nominatedNodeName'))),
      readinessGates(pod),
    ];
  },
  conditions(pod: ApiObject): RowCondition[] | undefined {
    const phase = at(pod, 'status', 'phase');
    return phase === 'Succeeded' ? COMPLETED_SUCCEEDED : phase === 'Failed' ? COMPLETED_FAILED : undefined;
  },
};
