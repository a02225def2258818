// The agent's event recorder: what it did to its pods and its node, as events.orch.io/v1 Events
// (spec 000 §2.7), with upstream kubelet's reasons (pkg/kubelet/events/event.go) and the shape of
// client-go's recorders: the event names the object (`regarding`, a container by fieldPath
// `spec.containers{name}`), reportingController `agent`, reportingInstance the node name.
//
// Recording never blocks or fails the caller (the sync loop): `record` only queues. One worker drains
// the queue through the API. Bounded everywhere, as upstream's broadcaster and correlator are:
// - the queue holds at most `queueCap` writes (upstream's 1000); more are dropped and counted;
// - repeats of an event (same regarding, reason, action, related: upstream tools/events getKey)
//   within `seriesWindowMs` (6 min) are one event with a series: the first repeat writes the series,
//   later ones update the count in place, one write pending per event at a time;
// - each event key has a token bucket (upstream's spam filter: burst 25, one token per 5 min), so a
//   crash-looping container costs the API server a bounded number of writes;
// - the cache of recent events is capped (`cacheCap`), oldest out first.
import type { ApiClient } from '../client/api-client.js';
import { ApiError } from '../client/api-client.js';

export const REPORTING_CONTROLLER = 'agent';

/** Upstream kubelet's reasons the agent records. */
export const REASONS = {
  Pulling: 'Pulling', Pulled: 'Pulled', Failed: 'Failed', BackOff: 'BackOff', ErrImageNeverPull: 'ErrImageNeverPull',
  Created: 'Created', Started: 'Started', Killing: 'Killing',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox', SandboxChanged: 'SandboxChanged',
  Starting: 'Starting', NodeReady: 'NodeReady', NodeNotReady: 'NodeNotReady',
} as const;

export interface ObjectRef {
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  uid?: string;
  fieldPath?: string;
}

export interface EventSink {
  /** `action`: what the agent did or tried (machine-readable); `note`: for people. */
  record(regarding: ObjectRef, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void;
}

/** The pod, or one of its containers (upstream's container reference: fieldPath spec.containers{name}). */
export function podRef(pod: any, container?: { name: string; init?: boolean }): ObjectRef {
  const m = pod.metadata ?? {};
  return {
    kind: 'Pod', apiVersion: 'v1', namespace: m.namespace, name: m.name, uid: m.uid,
    ...(container ? { fieldPath: `spec.${container.init ? 'initContainers' : 'containers'}{${container.name}}` } : {}),
  };
}

/** Upstream's node reference for the kubelet's node events: the node's name as its uid (kubectl describe node looks for both). */
export function nodeRef(nodeName: string): ObjectRef {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

export interface RecorderOptions {
  api: ApiClient;
  nodeName: string;
  queueCap?: number;
  cacheCap?: number;
  seriesWindowMs?: number;
  burst?: number;
  refillMs?: number;
  now?: () => number;
  log?(msg: string): void;
}

interface Cached {
  readonly key: string;
  /** Namespace and name of the stored event, once created. */
  readonly namespace: string;
  readonly name: string;
  readonly firstSeen: number;
  count: number;
  lastObserved: number;
  created: boolean;
  /** A series write for it is queued. */
  pending: boolean;
}

type Job = { kind: 'create'; entry: Cached; body: Record<string, unknown> } | { kind: 'series'; entry: Cached };

const microTime = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

export class AgentEventRecorder implements EventSink {
  /** Writes refused because the queue was full, or the key's rate was spent. */
  dropped = 0;
  private readonly queue: Job[] = [];
  private readonly cache = new Map<string, Cached>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private draining = false;
  private closed = false;
  private seq = 0;
  private idle: Array<() => void> = [];
  private readonly o: Required<Omit<RecorderOptions, 'log'>> & Pick<RecorderOptions, 'log'>;

  constructor(opts: RecorderOptions) {
    this.o = { queueCap: 1000, cacheCap: 4096, seriesWindowMs: 6 * 60_000, burst: 25, refillMs: 300_000, now: Date.now, ...opts };
  }

  record(regarding: ObjectRef, type: 'Normal' | 'Warning', reason: string, action: string, note: string): void {
    if (this.closed) return;
    const now = this.o.now();
    const key = JSON.stringify([regarding.kind, regarding.namespace ?? '', regarding.name, regarding.uid ?? '', regarding.fieldPath ?? '', reason, action]);
    const seen = this.cache.get(key);
    if (seen && now - seen.lastObserved <= this.o.seriesWindowMs) {
      seen.count++;
      seen.lastObserved = now;
      // The count is written when the queue gets to it; one pending write carries every repeat so far.
      if (seen.created && !seen.pending && this.take(key, now)) {
        seen.pending = true;
        this.enqueue({ kind: 'series', entry: seen });
      }
      return;
    }
    if (!this.take(key, now)) return;
    const namespace = regarding.namespace || 'default';
    const name = `${regarding.name}.${(BigInt(now) * 1_000_000n + BigInt(this.seq++ % 1_000_000)).toString(16)}`.slice(0, 253);
    const entry: Cached = { key, namespace, name, firstSeen: now, count: 1, lastObserved: now, created: false, pending: false };
    const body = {
      apiVersion: 'events.orch.io/v1', kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: this.o.nodeName,
      action,
      reason,
      regarding: Object.fromEntries(Object.entries(regarding).filter(([, v]) => v !== undefined && v !== '')),
      note: truncate(note),
      type,
    };
    if (!this.enqueue({ kind: 'create', entry, body })) return;
    this.remember(entry);
  }

  /** Resolves once everything queued so far was written or given up (tests, shutdown). */
  flushed(): Promise<void> {
    if (!this.draining && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** What is queued still goes out (the node's last events) for at most `graceMs`; the rest is dropped. */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flushed(), new Promise<void>((r) => { timer = setTimeout(r, graceMs); timer.unref(); })]);
    clearTimeout(timer);
    this.dropped += this.queue.splice(0).length;
  }

  /** The key's token bucket: `burst` writes, then one per `refillMs`. */
  private take(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (!b) {
      this.buckets.set(key, (b = { tokens: this.o.burst, at: now }));
      // Capped like the cache (a key whose first write was dropped has a bucket and no cache entry).
      if (this.buckets.size > this.o.cacheCap) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    b.tokens = Math.min(this.o.burst, b.tokens + (now - b.at) / this.o.refillMs);
    b.at = now;
    if (b.tokens < 1) {
      this.dropped++;
      return false;
    }
    b.tokens--;
    return true;
  }

  private enqueue(job: Job): boolean {
    if (this.queue.length >= this.o.queueCap) {
      this.dropped++;
      if (job.kind === 'series') job.entry.pending = false;
      // Said once per hundred, so a flood of drops is not a flood of log lines.
      if (this.dropped % 100 === 1) this.o.log?.(`events: queue full (${this.o.queueCap}), ${this.dropped} dropped so far`);
      return false;
    }
    this.queue.push(job);
    if (!this.draining) void this.drain();
    return true;
  }

  private remember(entry: Cached): void {
    this.cache.delete(entry.key);
    this.cache.set(entry.key, entry);
    while (this.cache.size > this.o.cacheCap) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
      this.buckets.delete(oldest);
    }
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let job = this.queue.shift(); job; job = this.queue.shift()) {
        try {
          await this.write(job);
        } catch (err) {
          // Best effort, as upstream's: a namespace being deleted (403) or gone (404) takes its events with it.
          if (!this.o.api.isClosed && !(err instanceof ApiError && (err.status === 403 || err.status === 404))) {
            this.o.log?.(`event ${job.entry.name}: ${(err as Error).message}`);
          }
        }
      }
    } finally {
      this.draining = false;
      for (const done of this.idle.splice(0)) done();
    }
  }

  private async write(job: Job): Promise<void> {
    const e = job.entry;
    const path = `/apis/events.orch.io/v1/namespaces/${e.namespace}/events`;
    if (job.kind === 'create') {
      await this.o.api.create(path, job.body);
      e.created = true;
      // Repeats seen while the create was queued go out now as a series.
      if (e.count > 1 && !e.pending) {
        e.pending = true;
        this.queue.unshift({ kind: 'series', entry: e });
      }
      return;
    }
    e.pending = false;
    await this.o.api.patch(`${path}/${e.name}`, { series: { count: e.count, lastObservedTime: microTime(e.lastObserved) } }, 'merge');
  }
}

const NOTE_LIMIT = 1024;
const truncate = (s: string): string => (Buffer.byteLength(s) <= NOTE_LIMIT ? s : Buffer.from(s).subarray(0, NOTE_LIMIT - 3).toString().replace(/\uFFFD$/, '') + '...');
