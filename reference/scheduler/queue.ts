// The scheduling queue (upstream's PriorityQueue, simplified): units waiting to be scheduled - one pod,
// or one gang (all pods of a gang PodGroup) - ordered by priority (highest first), then by the time
// they were queued. A unit that did not fit waits in `unschedulable` until something that may make
// room happens (a node added or changed, a pod deleted: moveAll) or 30 s pass; one that failed while
// such an event came in goes to a short backoff instead, so the event is not lost (upstream's
// moveRequestCycle).

export interface QueuedUnit {
  readonly key: string;
  readonly priority: number;
  /** When it entered the active queue (performance.now()). */
  readonly since: number;
}

export interface QueueOptions {
  /** Longest stay among the unschedulable before a retry, ms (upstream 5 min; here 30 s). */
  readonly maxUnschedulableMs?: number;
  /** Retry delay after a failure that raced with a move event, ms (upstream's initial backoff: 1 s). */
  readonly backoffMs?: number;
}

export class SchedulingQueue {
  private readonly active = new Map<string, QueuedUnit>();
  private readonly unschedulable = new Map<string, { priority: number; at: number }>();
  private readonly backoff = new Map<string, NodeJS.Timeout>();
  private readonly waiters: Array<() => void> = [];
  private readonly flushTimer: NodeJS.Timeout;
  private closed = false;
  /** Bumped by every moveAll; an attempt remembers it to know whether a move happened meanwhile. */
  moveSeq = 0;

  constructor(private readonly opts: QueueOptions = {}) {
    const max = opts.maxUnschedulableMs ?? 30_000;
    this.flushTimer = setInterval(() => this.flushOlderThan(max), Math.max(100, Math.min(5_000, max / 2)));
    this.flushTimer.unref?.();
  }

  /** Queues (or re-queues) a unit as active now; an already active one keeps its place. */
  add(key: string, priority: number): void {
    if (this.closed) return;
    this.unschedulable.delete(key);
    const t = this.backoff.get(key);
    if (t) {
      clearTimeout(t);
      this.backoff.delete(key);
    }
    const cur = this.active.get(key);
    this.active.set(key, { key, priority, since: cur?.since ?? performance.now() });
    if (!cur) this.waiters.shift()?.();
  }

  /** Forgets a unit wherever it waits (its pod was bound or deleted). */
  delete(key: string): void {
    this.active.delete(key);
    this.unschedulable.delete(key);
    const t = this.backoff.get(key);
    if (t) clearTimeout(t);
    this.backoff.delete(key);
  }

  has(key: string): boolean {
    return this.active.has(key) || this.unschedulable.has(key) || this.backoff.has(key);
  }

  /**
   * The unit did not fit. `seq` is moveSeq when its attempt started: if a move came meanwhile it is
   * retried after the backoff, otherwise it waits among the unschedulable.
   */
  unschedulableNow(key: string, priority: number, seq: number): void {
    if (this.closed || this.active.has(key)) return;
    if (seq !== this.moveSeq) return this.retryLater(key, priority, this.opts.backoffMs ?? 1_000);
    this.unschedulable.set(key, { priority, at: performance.now() });
  }

  /** Re-queues the unit after `ms` (an error, a failed binding). */
  retryLater(key: string, priority: number, ms: number): void {
    if (this.closed || this.active.has(key) || this.backoff.has(key)) return;
    this.unschedulable.delete(key);
    const t = setTimeout(() => {
      this.backoff.delete(key);
      this.add(key, priority);
    }, ms);
    t.unref?.();
    this.backoff.set(key, t);
  }

  /** Something may have made room: every unschedulable unit becomes active. */
  moveAll(): void {
    this.moveSeq++;
    for (const [key, u] of [...this.unschedulable]) this.add(key, u.priority);
  }

  /** The unschedulable units that match `pred` become active (a PodGroup changed). */
  moveWhere(pred: (key: string) => boolean): void {
    for (const [key, u] of [...this.unschedulable]) if (pred(key)) this.add(key, u.priority);
  }

  /** The next unit: highest priority, then longest queued; waits while none is active. */
  async pop(): Promise<QueuedUnit | undefined> {
    while (this.active.size === 0) {
      if (this.closed) return undefined;
      await new Promise<void>((r) => this.waiters.push(r));
    }
    if (this.closed) return undefined;
    let best: QueuedUnit | undefined;
    for (const u of this.active.values()) {
      if (!best || u.priority > best.priority || (u.priority === best.priority && u.since < best.since)) best = u;
    }
    this.active.delete(best!.key);
    return best;
  }

  /** Where a unit waits, by upstream's queue names. */
  where(key: string): 'active' | 'backoff' | 'unschedulable' | undefined {
    if (this.active.has(key)) return 'active';
    if (this.backoff.has(key)) return 'backoff';
    if (this.unschedulable.has(key)) return 'unschedulable';
    return undefined;
  }

  /** Units by upstream's queue names. */
  counts(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.flushTimer);
    for (const t of this.backoff.values()) clearTimeout(t);
    this.backoff.clear();
    for (const w of this.waiters.splice(0)) w();
  }

  private flushOlderThan(ms: number): void {
    const now = performance.now();
    for (const [key, u] of [...this.unschedulable]) if (now - u.at >= ms) this.add(key, u.priority);
  }
}
