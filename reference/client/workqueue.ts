// A work queue of keys, as client-go's rate-limited workqueue: a key added while queued is queued
// once; a key added while a worker processes it is processed again after that worker is done (never
// by two workers at once); failures are retried after a per-key exponential delay that `forget`
// resets. Controllers queue object keys from informer events and reconcile by key, so a burst of
// events for one object costs one reconcile.

export interface QueueMetrics {
  /** Called when a key is queued (not when it was already queued). */
  added(queue: string): void;
  depth(queue: string, depth: number): void;
  /** Seconds the key waited in the queue, then seconds its processing took. */
  processed(queue: string, waitedSeconds: number, workSeconds: number): void;
  retried(queue: string): void;
}

export interface WorkQueueOptions {
  /** For metrics and logs (upstream's queue name, e.g. `evictionrequest`). */
  readonly name: string;
  /** First retry delay, ms (client-go: 5 ms). */
  readonly baseDelayMs?: number;
  /** Longest retry delay, ms (client-go: 1000 s; default here 30 s, so a controller recovers within a run). */
  readonly maxDelayMs?: number;
  readonly metrics?: QueueMetrics;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(private readonly opts: WorkQueueOptions) {}

  get name(): string { return this.opts.name; }
  get length(): number { return this.queue.length; }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.addedAt.set(key, performance.now());
    this.opts.metrics?.added(this.name);
    // Being processed: it goes back in the queue when its worker calls done().
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.opts.metrics?.depth(this.name, this.queue.length);
    this.waiters.shift()?.();
  }

  /** Adds `key` after `ms` (a later call with a shorter delay wins). */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const existing = this.timers.get(key);
    const due = Date.now() + ms;
    if (existing && (existing as unknown as { due: number }).due <= due) return;
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    (timer as unknown as { due: number }).due = due;
    this.timers.set(key, timer);
  }

  /** Adds `key` after its backoff: base × 2^failures, capped. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.opts.metrics?.retried(this.name);
    const delay = Math.min((this.opts.baseDelayMs ?? 5) * 2 ** n, this.opts.maxDelayMs ?? 30_000);
    this.addAfter(key, delay);
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Retries made for `key` since the last forget. */
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, or undefined once shut down. The caller must call done(key). */
  async get(): Promise<string | undefined> {
    while (this.queue.length === 0) {
      if (this.shuttingDown) return undefined;
      await new Promise<void>((r) => this.waiters.push(r));
    }
    const key = this.queue.shift()!;
    this.dirty.delete(key);
    this.processing.add(key);
    this.opts.metrics?.depth(this.name, this.queue.length);
    return key;
  }

  done(key: string, waitedSeconds = 0, workSeconds = 0): void {
    this.processing.delete(key);
    this.opts.metrics?.processed(this.name, waitedSeconds, workSeconds);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.waiters.shift()?.();
    }
  }

  /**
   * Runs `workers` loops calling `reconcile(key)`: a throw retries the key with backoff, a return
   * forgets its failures; a returned number re-queues it after that many ms (a timed re-check).
   */
  run(workers: number, reconcile: (key: string) => Promise<number | void>, onError: (key: string, err: unknown) => void): Promise<void> {
    const loop = async () => {
      for (let key = await this.get(); key !== undefined; key = await this.get()) {
        const started = performance.now();
        const waited = (started - (this.addedAt.get(key) ?? started)) / 1000;
        try {
          const again = await reconcile(key);
          this.forget(key);
          if (typeof again === 'number') this.addAfter(key, again);
        } catch (err) {
          onError(key, err);
          this.addRateLimited(key);
        } finally {
          this.done(key, waited, (performance.now() - started) / 1000);
        }
      }
    };
    return Promise.all(Array.from({ length: workers }, loop)).then(() => undefined);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w();
  }
}
