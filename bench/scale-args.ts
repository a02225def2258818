// The flags of bench/scale.ts and the two sizes it runs (issue 27), apart from the bench itself so
// that a test can check which command lines it refuses without starting anything.
import { parseArgs } from 'node:util';
import { parseDurationMs } from '../reference/duration.js';

export type Target = 'memory' | 'etcd';

export interface ScaleOptions {
  size: 'short' | 'full';
  targets: Target[];
  /** Hollow node counts whose memory, Lease renewals and status writes are measured, smallest first. */
  nodeCounts: number[];
  /** Lease renew interval the `nodes` process is given (its --heartbeat and --node-status-interval). */
  heartbeatMs: number;
  /** How long the Leases and Node status writes are watched at each node count. */
  windowSeconds: number;
  /** Pod startup phases, on the largest node count: pods created at `perSecond` until `pods`. */
  startup: Array<{ perSecond: number; pods: number }>;
  /** Pods created as fast as `workers` clients go, for the scheduling throughput and its baseline. */
  burstPods: number;
  workers: number;
  /** Whether part 2's watch delivery profiles run. */
  watch: boolean;
}

export const USAGE = `node dist/bench/scale.js [--full] [--target memory|etcd|both] [--window-seconds <s>] [--heartbeat <duration>] [--skip-watch]`;

/** The options of a command line, or why it is refused. */
export function parseScaleArgs(argv: readonly string[]): ScaleOptions | { error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        full: { type: 'boolean', default: false },
        target: { type: 'string', default: 'both' },
        'window-seconds': { type: 'string' },
        heartbeat: { type: 'string', default: '10s' },
        'skip-watch': { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    return { error: (err as Error).message };
  }
  const full = values.full === true;
  const target = values.target!;
  if (!['memory', 'etcd', 'both'].includes(target)) return { error: `--target ${JSON.stringify(target)}: want memory, etcd or both` };
  const heartbeatMs = parseDurationMs(values.heartbeat!);
  if (heartbeatMs === undefined || heartbeatMs < 100) return { error: `--heartbeat ${JSON.stringify(values.heartbeat)}: want a duration of at least 100ms, such as 10s` };
  const windowText = values['window-seconds'];
  const windowSeconds = windowText === undefined ? (full ? 60 : 30) : Number(windowText);
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) return { error: `--window-seconds ${JSON.stringify(windowText)}: want a positive whole number of seconds` };
  // Renewal gaps need at least two renewals of each Lease inside the window.
  if (windowSeconds * 1000 < 2 * heartbeatMs) return { error: `--window-seconds ${windowSeconds} is shorter than two --heartbeat intervals: no Lease renewal gap could be measured` };
  return {
    size: full ? 'full' : 'short',
    targets: target === 'both' ? ['memory', 'etcd'] : [target as Target],
    nodeCounts: full ? [100, 1000] : [100],
    heartbeatMs,
    windowSeconds,
    startup: full ? [20, 50, 100].map((perSecond) => ({ perSecond, pods: 3000 })) : [{ perSecond: 50, pods: 300 }],
    burstPods: full ? 2000 : 500,
    workers: 32,
    watch: values['skip-watch'] !== true,
  };
}
