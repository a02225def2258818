// The pod lifecycle event generator (spec 001 §1 rule 4, §7): relists the runtime every second
// (ListPodSandbox + ListContainers), compares each sandbox's and container's state with the last relist,
// and wakes the worker of every pod whose runtime objects appeared, changed state or disappeared.
import { broken } from './breaks.js';
import { LABEL_POD_UID, type Runtime } from './runtime.js';

export interface PlegOptions {
  runtime: Runtime;
  /** Called once per pod uid with a change in a relist. */
  onPodChange(uid: string): void;
  /** Relist period, ms (default 1000). */
  periodMs?: number;
  onError?(err: unknown): void;
}

export class Pleg {
  private last = new Map<string, { uid: string; state: string }>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  /** Time of the last successful relist (for the syncloop health check later). */
  lastRelist = 0;

  constructor(private readonly o: PlegOptions) {}

  start(): void {
    const period = this.o.periodMs ?? 1000;
    const tick = () => {
      if (this.closed) return;
      this.running = this.relist().then(() => {}, (err) => this.o.onError?.(err)).finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, period);
      });
    };
    tick();
  }

  /** One relist; returns the uids it reported. */
  async relist(): Promise<string[]> {
    const [sandboxes, containers] = await Promise.all([this.o.runtime.listSandboxes(), this.o.runtime.listContainers()]);
    const now = new Map<string, { uid: string; state: string }>();
    for (const s of sandboxes) {
      const uid = s.labels?.[LABEL_POD_UID] ?? s.metadata?.uid;
      if (uid) now.set(`s/${s.id}`, { uid, state: s.state });
    }
    for (const c of containers) {
      const uid = c.labels?.[LABEL_POD_UID];
      if (uid) now.set(`c/${c.id}`, { uid, state: c.state });
    }
    const changed = new Set<string>();
    for (const [id, v] of now) if (this.last.get(id)?.state !== v.state) changed.add(v.uid);
    for (const [id, v] of this.last) if (!now.has(id)) changed.add(v.uid);
    this.last = now;
    this.lastRelist = Date.now();
    // Test-only (breaks.ts): the relist runs but wakes no worker.
    if (broken('pleg-no-events')) changed.clear();
    for (const uid of changed) this.o.onPodChange(uid);
    return [...changed];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
