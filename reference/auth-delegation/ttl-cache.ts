// A small expiring cache for delegated review answers (the agent's, the companions') (upstream caches TokenReview and
// SubjectAccessReview answers in bounded LRU caches): entries live for the TTL they were stored
// with, and the oldest entries go first once the cache is full, so a flood of distinct tokens cannot
// grow it without bound.
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(private readonly maxEntries = 4096, private readonly now: () => number = Date.now) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Stores `value` for `ttlMs`; a TTL of 0 or less stores nothing (upstream: a zero TTL disables the cache). */
  set(key: string, value: V, ttlMs: number): void {
    if (!(ttlMs > 0)) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
