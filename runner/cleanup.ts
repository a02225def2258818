// `orch-conformance cleanup --run-id <id>` (or `--all-runs`): removes what a run left on a target
// when it could not clean up itself (a second Ctrl-C, a killed CI job). It does not know what the run
// created, so it asks the target: every resource discovery lists that can be listed, namespaced and
// cluster-scoped, searched for objects labelled conformance.orch.io/run=<id>. Only objects carrying
// that label are touched; the run's own finalizers are released as the run's cleanup does; then it
// waits (bounded) until nothing labelled is left, and says what is.
import type { Dispatcher } from 'undici';
import { ApiClient, createDispatcher, describeError, type TargetConnection } from './client.js';
import { OWN_FINALIZER_PREFIX, RUN_LABEL } from './run.js';

export interface CleanupOptions {
  conn: TargetConnection;
  /** The run whose objects go; or every run's with `allRuns`. */
  runId?: string;
  allRuns?: boolean;
  /** How long to wait for deleted objects to be gone (finalizers, namespaces emptying). Default 60 s. */
  waitMs?: number;
  /** Each request's deadline. Default 10 s. */
  requestTimeoutMs?: number;
}

export interface CleanupResult {
  /** Objects deleted (paths). */
  deleted: string[];
  /** Objects still labelled with the run once the wait was over, each with what is known of why. */
  left: string[];
  /** Resources whose objects could not be listed (or discovery that failed), each with why. */
  unverified: string[];
}

/** A listable resource found by discovery. */
interface Resource {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  name: string;
  namespaced: boolean;
  deletable: boolean;
}

interface Found {
  path: string;
  resource: Resource;
  deleting: boolean;
  finalizers: string[];
}

const isOwn = (f: unknown) => typeof f === 'string' && f.startsWith(OWN_FINALIZER_PREFIX);

export async function cleanupRun(opts: CleanupOptions): Promise<CleanupResult> {
  if (!opts.allRuns && !opts.runId) throw new Error('cleanupRun: a run id or allRuns');
  const dispatcher = createDispatcher(opts.conn);
  try {
    return await new Cleaner(opts, dispatcher).run();
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

class Cleaner {
  private readonly api: ApiClient;
  private readonly timeoutMs: number;
  private readonly unverified = new Map<string, string>();

  constructor(private readonly opts: CleanupOptions, dispatcher: Dispatcher) {
    this.api = new ApiClient(opts.conn, dispatcher);
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
  }

  /** True for an object of the run (or of any run, with allRuns): the one test for touching it. */
  private ours(o: any): boolean {
    const value = o?.metadata?.labels?.[RUN_LABEL];
    return typeof value === 'string' && (this.opts.allRuns ? true : value === this.opts.runId);
  }

  async run(): Promise<CleanupResult> {
    const resources = await this.discover();
    const deleted = new Set<string>();
    let found = await this.find(resources);
    // Namespaces last: deleting one takes what is in it along, and the objects go first.
    const isNs = (f: Found) => f.resource.base === '/api/v1' && f.resource.name === 'namespaces';
    for (const batch of [found.filter((f) => !isNs(f)), found.filter(isNs)]) {
      await Promise.all(batch.map(async (f) => {
        if (!f.deleting && f.resource.deletable && await this.delete(f)) deleted.add(f.path);
        await this.release(f);
      }));
    }
    // Wait until the target has removed them all: finalizers run, namespaces empty (upstream's
    // namespace controller does it asynchronously, in seconds).
    const deadline = performance.now() + (this.opts.waitMs ?? 60_000);
    let pause = 250;
    for (;;) {
      found = await this.find(resources);
      if (found.length === 0 || performance.now() >= deadline) break;
      // Objects a case's finalizer still holds once a namespace's deletion reached them, and any that
      // appeared since (a controller of the run still at work), are handled as the first ones.
      await Promise.all(found.map(async (f) => {
        if (!f.deleting && f.resource.deletable && await this.delete(f)) deleted.add(f.path);
        await this.release(f);
      }));
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - performance.now()))));
      pause = Math.min(pause * 2, 2_000);
    }
    const left = found.map((f) => {
      const why = !f.resource.deletable ? 'the resource cannot be deleted (no delete verb)'
        : f.deleting ? `still being deleted${f.finalizers.length ? ` (finalizers: ${f.finalizers.join(', ')})` : ''}`
        : 'still present after delete';
      return `${f.path}: ${why}`;
    }).sort();
    return { deleted: [...deleted].sort(), left, unverified: [...this.unverified.values()].sort() };
  }

  /** Every resource the target's discovery lists with the list verb (subresources left out). */
  private async discover(): Promise<Resource[]> {
    const bases = ['/api/v1'];
    try {
      const res = await this.api.get('/apis', { timeoutMs: this.timeoutMs });
      if (res.status !== 200 || !Array.isArray(res.json?.groups)) this.unverified.set('/apis', `/apis: API group discovery answered HTTP ${res.status}: resources of API groups not searched`);
      else {
        for (const g of res.json.groups) {
          // The preferred version: the same objects are served under every version of a group.
          const gv = g?.preferredVersion?.groupVersion ?? g?.versions?.[0]?.groupVersion;
          if (typeof gv === 'string') bases.push(`/apis/${gv}`);
        }
      }
    } catch (err) {
      this.unverified.set('/apis', `/apis: API group discovery failed (${describeError(err)}): resources of API groups not searched`);
    }
    const lists = await Promise.all(bases.map(async (base) => {
      try {
        const res = await this.api.get(base, { timeoutMs: this.timeoutMs });
        if (res.status !== 200 || !Array.isArray(res.json?.resources)) {
          this.unverified.set(base, `${base}: discovery answered HTTP ${res.status}: its resources not searched`);
          return [];
        }
        return (res.json.resources as any[])
          .filter((r) => typeof r?.name === 'string' && !r.name.includes('/') && Array.isArray(r.verbs) && r.verbs.includes('list'))
          .map((r): Resource => ({ base, name: r.name, namespaced: !!r.namespaced, deletable: r.verbs.includes('delete') }));
      } catch (err) {
        this.unverified.set(base, `${base}: discovery failed (${describeError(err)}): its resources not searched`);
        return [];
      }
    }));
    return lists.flat();
  }

  /** The run's objects, across every namespace for namespaced resources. */
  private async find(resources: readonly Resource[]): Promise<Found[]> {
    const selector = this.opts.allRuns ? RUN_LABEL : `${RUN_LABEL}=${this.opts.runId}`;
    const lists = await Promise.all(resources.map(async (r) => {
      const col = `${r.base}/${r.name}`;
      try {
        const res = await this.api.get(col, { timeoutMs: this.timeoutMs, query: { labelSelector: selector } });
        if (res.status !== 200 || !Array.isArray(res.json?.items)) {
          const why = res.status === 403 ? 'HTTP 403: these credentials may not list it' : res.status === 200 ? 'the answer is not a list' : `HTTP ${res.status}`;
          this.unverified.set(col, `${col}: could not search it (${why})`);
          return [];
        }
        this.unverified.delete(col);
        // The label is checked here too: a target that ignored the selector must not make us touch others' objects.
        return (res.json.items as any[]).filter((o) => this.ours(o) && typeof o.metadata?.name === 'string').map((o): Found => ({
          path: r.namespaced && o.metadata.namespace
            ? `${r.base}/namespaces/${encodeURIComponent(o.metadata.namespace)}/${r.name}/${encodeURIComponent(o.metadata.name)}`
            : `${col}/${encodeURIComponent(o.metadata.name)}`,
          resource: r,
          deleting: !!o.metadata.deletionTimestamp,
          finalizers: Array.isArray(o.metadata.finalizers) ? o.metadata.finalizers.filter((f: unknown) => typeof f === 'string') : [],
        }));
      } catch (err) {
        this.unverified.set(col, `${col}: could not search it (${describeError(err)})`);
        return [];
      }
    }));
    return lists.flat();
  }

  /** DELETE; true when the target accepted it (or the object was gone already). */
  private async delete(f: Found): Promise<boolean> {
    try {
      const res = await this.api.delete(f.path, { timeoutMs: this.timeoutMs });
      if (res.status < 300 && Array.isArray(res.json?.metadata?.finalizers)) f.finalizers = res.json.metadata.finalizers;
      return res.status < 300 || res.status === 404;
    } catch {
      return false;
    }
  }

  /**
   * Removes the run's own finalizers (conformance.orch.io/...) from the object, read again first so
   * that only an object still labelled with the run is written, and only those finalizers removed.
   */
  private async release(f: Found): Promise<void> {
    if (!f.finalizers.some(isOwn)) return;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const cur = await this.api.get(f.path, { timeoutMs: this.timeoutMs });
        if (cur.status !== 200 || !this.ours(cur.json)) return;
        const finalizers: unknown[] = cur.json.metadata.finalizers ?? [];
        if (!finalizers.some(isOwn)) return;
        const res = await this.api.put(f.path, { ...cur.json, metadata: { ...cur.json.metadata, finalizers: finalizers.filter((x) => !isOwn(x)) } }, { timeoutMs: this.timeoutMs });
        // 409: changed since read (a controller at work): read again.
        if (res.status !== 409) return;
      } catch {
        return;
      }
    }
  }
}
