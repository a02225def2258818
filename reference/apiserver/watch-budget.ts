// Bounds on what watch streams may hold for clients that read slower than events arrive. Each
// watcher's unwritten events are bounded in count and bytes, and so is the total over every watcher
// of the server: past a bound the slowest watchers (most pending bytes) are closed first, the way
// upstream's cacher forces an unresponsive watcher closed ("Forcing watcher close due to
// unresponsiveness") instead of letting its buffer grow. The client sees its stream end and watches
// again from its last resourceVersion, as after any watch timeout.

export interface WatchBounds {
  /** Unwritten events one watcher may hold (default 10,000). */
  readonly maxPendingEvents: number;
  /** Unwritten bytes one watcher may hold past its initial events (default 16 MiB). */
  readonly maxPendingBytes: number;
  /** Unwritten bytes all watchers together may hold (default 256 MiB; `serve --max-watch-pending-bytes`). */
  readonly maxTotalPendingBytes: number;
}

export const DEFAULT_WATCH_BOUNDS: WatchBounds = {
  maxPendingEvents: 10_000,
  maxPendingBytes: 16 * 1024 * 1024,
  maxTotalPendingBytes: 256 * 1024 * 1024,
};

/** One watcher as the budget sees it. */
export interface BudgetedWatcher {
  /** Bytes it holds that its client has not taken yet. */
  readonly pendingBytes: number;
  /** Closes it for being too slow (its pending events are dropped). */
  terminate(): void;
}

/** The total of pending bytes over a server's watchers, and who goes when it is exceeded. */
export class WatchBudget {
  readonly bounds: WatchBounds;
  private total = 0;
  private readonly members = new Set<BudgetedWatcher>();

  constructor(bounds: Partial<WatchBounds> = {}) {
    this.bounds = { ...DEFAULT_WATCH_BOUNDS, ...dropUndefined(bounds) };
    for (const [k, v] of Object.entries(this.bounds)) {
      if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`watch bound ${k} must be a positive whole number, not ${v}`);
    }
  }

  get totalPendingBytes(): number {
    return this.total;
  }

  add(w: BudgetedWatcher): void {
    this.members.add(w);
  }

  /** Forgets `w`; its pending bytes must have been given back first. */
  delete(w: BudgetedWatcher): void {
    this.members.delete(w);
  }

  /** A watcher's pending bytes changed by `delta`. */
  change(delta: number): void {
    this.total += delta;
  }

  /**
   * While the total exceeds its bound, terminates the watcher holding the most. A scan of the
   * watchers, done only when over the bound: the common path costs nothing.
   */
  enforce(): void {
    while (this.total > this.bounds.maxTotalPendingBytes) {
      let slowest: BudgetedWatcher | undefined;
      for (const w of this.members) if (!slowest || w.pendingBytes > slowest.pendingBytes) slowest = w;
      if (!slowest || slowest.pendingBytes === 0) return;
      slowest.terminate();
      // A watcher that failed to leave would make this loop forever.
      if (this.members.has(slowest)) this.members.delete(slowest);
    }
  }
}

function dropUndefined<T extends object>(o: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
