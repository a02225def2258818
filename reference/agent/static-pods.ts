// Static pods (spec 001 §1 "aggregated from several sources", §2.3 staticPodPath): Pod manifests read
// from a directory (or one file), re-read periodically and when the directory changes, as upstream's
// file source does. A static pod's uid is upstream's: an MD5 over the decoded manifest, the node name
// and the file path, so the same file on the same node always gives the same uid and an edit gives a
// new pod. With a control plane, MirrorPods keeps one mirror pod per static pod in the API (a read-only
// reflection: the workers run the static pod itself, never the mirror).
import { createHash } from 'node:crypto';
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { broken } from './breaks.js';
import { yaml } from '../packages.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound, type ApiClient, type PatchType } from '../client/api-client.js';

export const ANNOTATION_CONFIG_SOURCE = 'orch.io/config.source';
export const ANNOTATION_CONFIG_HASH = 'orch.io/config.hash';
export const ANNOTATION_CONFIG_MIRROR = 'orch.io/config.mirror';

export const isMirrorPod = (pod: any): boolean => pod?.metadata?.annotations?.[ANNOTATION_CONFIG_MIRROR] !== undefined;
export const isStaticPod = (pod: any): boolean => pod?.metadata?.annotations?.[ANNOTATION_CONFIG_SOURCE] === 'file' && !isMirrorPod(pod);

/** A manifest that cannot become a static pod; the message names the file. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** JSON with object keys sorted: the same object always hashes the same, whatever the file's layout. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as any)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * One manifest (YAML or JSON, one Pod) to the static pod the agent runs, with upstream's defaults:
 * uid (unless the manifest sets one), name `<name>-<nodeName>`, namespace `default`, spec.nodeName,
 * a NoExecute toleration for every taint, phase Pending, and the config.source/config.hash annotations.
 */
export function decodeManifest(text: string, file: string, nodeName: string): any {
  let docs;
  try {
    docs = yaml().parseAllDocuments(text).filter((d) => d.contents !== null);
  } catch (err) {
    throw new ManifestError(`${file}: cannot parse: ${(err as Error).message}`);
  }
  if (docs.length !== 1) throw new ManifestError(`${file}: want exactly one Pod per file, found ${docs.length} documents`);
  const doc = docs[0]!;
  if (doc.errors.length) throw new ManifestError(`${file}: cannot parse: ${doc.errors[0]!.message.split('\n')[0]}`);
  const pod: any = doc.toJS();
  if (!pod || typeof pod !== 'object' || Array.isArray(pod)) throw new ManifestError(`${file}: want a Pod object`);
  if (pod.kind !== 'Pod' || pod.apiVersion !== 'v1') {
    throw new ManifestError(`${file}: want apiVersion v1, kind Pod (got ${String(pod.apiVersion)}, ${String(pod.kind)})`);
  }
  const m = pod.metadata;
  if (!m || typeof m !== 'object' || typeof m.name !== 'string' || !m.name) throw new ManifestError(`${file}: metadata.name is required`);
  const name = `${m.name}-${nodeName}`;
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) throw new ManifestError(`${file}: pod name ${JSON.stringify(name)} is not a valid DNS subdomain`);
  if (m.namespace !== undefined && (typeof m.namespace !== 'string' || !DNS_LABEL.test(m.namespace))) {
    throw new ManifestError(`${file}: metadata.namespace ${JSON.stringify(m.namespace)} is not a valid namespace name`);
  }
  for (const k of ['labels', 'annotations'] as const) {
    if (m[k] !== undefined && (typeof m[k] !== 'object' || Array.isArray(m[k]) || Object.values(m[k]).some((v) => typeof v !== 'string'))) {
      throw new ManifestError(`${file}: metadata.${k} must map strings to strings`);
    }
  }
  const spec = pod.spec;
  if (!spec || typeof spec !== 'object' || !Array.isArray(spec.containers) || spec.containers.length === 0) {
    throw new ManifestError(`${file}: spec.containers must list at least one container`);
  }
  for (const list of ['initContainers', 'containers'] as const) {
    if (spec[list] === undefined) continue;
    if (!Array.isArray(spec[list])) throw new ManifestError(`${file}: spec.${list} must be a list`);
    for (const [i, c] of spec[list].entries()) {
      if (!c || typeof c.name !== 'string' || !DNS_LABEL.test(c.name)) throw new ManifestError(`${file}: spec.${list}[${i}].name must be a DNS label`);
      if (typeof c.image !== 'string' || !c.image) throw new ManifestError(`${file}: spec.${list}[${i}].image is required`);
    }
  }

  // Upstream: md5 of the decoded pod, then "host:<node>" and "file:<path>".
  let uid = typeof m.uid === 'string' && m.uid ? m.uid : undefined;
  if (!uid) uid = createHash('md5').update(canonical(pod)).update(`host:${nodeName}`).update(`file:${file}`).digest('hex');
  return {
    ...pod,
    metadata: {
      ...m,
      name,
      namespace: m.namespace ?? 'default',
      uid,
      annotations: { ...(m.annotations ?? {}), [ANNOTATION_CONFIG_HASH]: uid, [ANNOTATION_CONFIG_SOURCE]: 'file' },
    },
    spec: {
      ...spec,
      nodeName,
      tolerations: [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), { operator: 'Exists', effect: 'NoExecute' }],
    },
    status: { phase: 'Pending' },
  };
}

/**
 * The static pods of `path` (a directory: its files, dotfiles skipped, subdirectories not entered, as
 * upstream; or one file). A missing path is an empty set. Bad manifests are skipped and reported.
 */
export async function readManifests(path: string, nodeName: string): Promise<{ pods: any[]; errors: string[] }> {
  const errors: string[] = [];
  let files: string[];
  try {
    const st = await stat(path);
    if (st.isDirectory()) {
      const entries = await readdir(path, { withFileTypes: true });
      files = entries.filter((d) => !d.name.startsWith('.') && !d.isDirectory()).map((d) => join(path, d.name)).sort();
    } else if (st.isFile()) {
      files = [path];
    } else {
      return { pods: [], errors: [`${path}: not a directory or a regular file`] };
    }
  } catch (err: any) {
    if (err?.code === 'ENOENT') return { pods: [], errors: [] };
    return { pods: [], errors: [`${path}: ${err?.message ?? err}`] };
  }
  const pods: any[] = [];
  const names = new Map<string, string>();
  for (const file of files) {
    try {
      const pod = decodeManifest(await readFile(file, 'utf8'), file, nodeName);
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      // Upstream rejects the later of two pods with one name: both could not run under one mirror.
      if (names.has(key)) throw new ManifestError(`${file}: pod ${key} is already defined by ${names.get(key)}`);
      names.set(key, file);
      pods.push(pod);
    } catch (err: any) {
      if (err?.code === 'ENOENT') continue; // removed between listing and reading
      errors.push(err instanceof ManifestError ? err.message : `${file}: ${err?.message ?? err}`);
    }
  }
  return { pods, errors };
}

export interface StaticPodSourceOptions {
  path: string;
  nodeName: string;
  /** Full re-read period, ms (upstream's fileCheckFrequency, 20 s). */
  periodMs?: number;
  /** The full set of static pods, at the first read and whenever it changes. */
  onSet(pods: any[]): void;
  onError?(msg: string): void;
}

/** Reads staticPodPath on start, on change (fs.watch) and every periodMs; reports the set when it changes. */
export class StaticPodSource {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private debounce?: NodeJS.Timeout;
  private last?: string;
  private lastErrors = '';
  private busy = false;
  private again = false;
  private closed = false;

  /** Test-only (breaks.ts): staticPodPath ignored, the default directory read instead. */
  private readonly path: string;

  constructor(private readonly o: StaticPodSourceOptions) {
    this.path = broken('static-pod-path-ignored') ? '/etc/orch/manifests' : o.path;
  }

  /** Resolves after the first read was reported. */
  async start(): Promise<void> {
    await this.read();
    this.timer = setInterval(() => this.schedule(0), this.o.periodMs ?? 20_000);
    this.timer.unref();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => { this.debounce = undefined; void this.read(); }, ms);
  }

  private async read(): Promise<void> {
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    try {
      do {
        this.again = false;
        this.ensureWatch();
        const { pods, errors } = await readManifests(this.path, this.o.nodeName);
        if (this.closed) return;
        // The same bad file is reported once, not at every re-read.
        const errs = errors.join('\n');
        if (errs && errs !== this.lastErrors) for (const e of errors) this.o.onError?.(e);
        this.lastErrors = errs;
        const key = pods.map((p) => p.metadata.uid).sort().join(',');
        if (key !== this.last) {
          this.last = key;
          this.o.onSet(pods);
        }
      } while (this.again && !this.closed);
    } finally {
      this.busy = false;
    }
  }

  /** A watch on the path once it exists; a path created later is picked up by the periodic read. */
  private ensureWatch(): void {
    if (this.watcher || this.closed) return;
    try {
      this.watcher = fsWatch(this.path, { persistent: false }, () => this.schedule(50));
      this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; this.schedule(50); });
    } catch {
      this.watcher = undefined;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.watcher?.close();
  }
}

export interface MirrorPodsOptions {
  api: ApiClient;
  nodeName: string;
  /** The Node's uid for the owner reference (unknown until registered). */
  nodeUid(): string | undefined;
  /** Reconcile this often even without events, ms (default 20 s). */
  periodMs?: number;
  onError?(err: unknown): void;
}

const keyOf = (pod: any) => `${pod.metadata.namespace}/${pod.metadata.name}`;
const podPath = (pod: any) => `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;

/**
 * Upstream's mirror pod handling: for each static pod a mirror pod with the same name, its hash in
 * config.mirror and the Node as controller owner; a mirror that is missing is created, one being
 * deleted or of another hash is deleted (grace 0, uid precondition) and recreated, and a mirror
 * whose static pod is gone is deleted. Mirror pods come from the agent's pod watch (observe*).
 */
export class MirrorPods {
  private readonly statics = new Map<string, any>();
  private readonly mirrors = new Map<string, any>();
  /** Mirrors this manager deleted: late watch events about them are ignored. */
  private readonly deleted = new Set<string>();
  /** The last status patch the workers wrote for each static pod uid: a recreated mirror gets it at once. */
  private readonly lastStatus = new Map<string, { patch: any; type?: PatchType }>();
  /** Uids of static pods seen, and of those whose manifest went: a late status write of one goes nowhere. */
  private readonly staticUids = new Set<string>();
  private readonly retired = new Set<string>();
  private staticsKnown = false;
  private mirrorsKnown = false;
  private busy = false;
  private again = false;
  private closed = false;
  private retry?: NodeJS.Timeout;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: MirrorPodsOptions) {
    this.timer = setInterval(() => this.reconcile(), o.periodMs ?? 20_000);
    this.timer.unref();
  }

  setStatic(pods: any[]): void {
    this.statics.clear();
    for (const p of pods) this.statics.set(keyOf(p), p);
    const uids = new Set(pods.map((p) => p.metadata.uid));
    for (const uid of this.lastStatus.keys()) if (!uids.has(uid)) this.lastStatus.delete(uid);
    for (const uid of this.staticUids) if (!uids.has(uid)) this.retired.add(uid);
    for (const uid of uids) this.staticUids.add(uid);
    this.staticsKnown = true;
    this.reconcile();
  }

  /** The full list of mirror pods on this node (watch list or relist). */
  observeList(mirrors: any[]): void {
    this.mirrors.clear();
    for (const m of mirrors) if (!this.deleted.has(m.metadata.uid)) this.mirrors.set(keyOf(m), m);
    this.mirrorsKnown = true;
    this.reconcile();
  }

  observe(type: string, mirror: any): void {
    const uid = mirror.metadata.uid;
    const key = keyOf(mirror);
    if (type === 'DELETED') {
      if (this.mirrors.get(key)?.metadata.uid === uid) this.mirrors.delete(key);
    } else if (!this.deleted.has(uid)) {
      this.mirrors.set(key, mirror);
    }
    this.reconcile();
  }

  /** The uid of the current mirror of a static pod, for its status writes. */
  mirrorUid(staticPod: any): string | undefined {
    const m = this.mirrors.get(keyOf(staticPod));
    return m && this.matches(m, staticPod) ? m.metadata.uid : undefined;
  }

  private matches(mirror: any, staticPod: any): boolean {
    return !mirror.metadata.deletionTimestamp && mirror.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] === staticPod.metadata.annotations[ANNOTATION_CONFIG_HASH];
  }

  reconcile(): void {
    if (this.closed || !this.staticsKnown || !this.mirrorsKnown) return;
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    void (async () => {
      try {
        do {
          this.again = false;
          try {
            await this.pass();
          } catch (err) {
            this.o.onError?.(err);
            if (!this.closed && !this.retry) this.retry = setTimeout(() => { this.retry = undefined; this.reconcile(); }, 1000);
          }
        } while (this.again && !this.closed);
      } finally {
        this.busy = false;
      }
    })();
  }

  private async pass(): Promise<void> {
    for (const [key, s] of [...this.statics]) {
      if (this.closed) return;
      let m = this.mirrors.get(key);
      if (m && !this.matches(m, s)) {
        await this.deleteMirror(m);
        m = undefined;
      }
      if (!m) await this.createMirror(s);
    }
    for (const [key, m] of [...this.mirrors]) {
      if (this.closed) return;
      if (!this.statics.has(key)) await this.deleteMirror(m);
    }
  }

  private async deleteMirror(m: any): Promise<void> {
    try {
      await this.o.api.delete(podPath(m), { gracePeriodSeconds: 0, preconditions: { uid: m.metadata.uid } });
    } catch (err) {
      // Gone already, or a different pod under that name now: either way this mirror is no more.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    this.deleted.add(m.metadata.uid);
    if (this.mirrors.get(keyOf(m))?.metadata.uid === m.metadata.uid) this.mirrors.delete(keyOf(m));
  }

  private async createMirror(s: any): Promise<void> {
    const nodeUid = this.o.nodeUid();
    if (!nodeUid) throw new Error(`mirror pod ${keyOf(s)}: the Node ${this.o.nodeName} is not registered yet`);
    const { uid: _uid, resourceVersion: _rv, ...meta } = s.metadata;
    const body = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        ...meta,
        annotations: { ...meta.annotations, [ANNOTATION_CONFIG_MIRROR]: s.metadata.annotations[ANNOTATION_CONFIG_HASH] },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.o.nodeName, uid: nodeUid, controller: true }],
      },
      spec: s.spec,
    };
    try {
      const created = await this.o.api.create(`/api/v1/namespaces/${s.metadata.namespace}/pods`, body);
      if (!this.deleted.has(created.metadata.uid)) this.mirrors.set(keyOf(created), created);
      const last = this.lastStatus.get(s.metadata.uid);
      if (last) await this.o.api.patchStatus(podPath(created), { ...last.patch, metadata: { uid: created.metadata.uid } }, last.type);
    } catch (err) {
      // Someone else's pod under that name, or our mirror whose ADDED event is on its way: the watch decides.
      if (!isAlreadyExists(err)) throw err;
      const existing = await this.o.api.get(podPath(s)).catch(() => undefined);
      if (existing && !isMirrorPod(existing)) throw new Error(`mirror pod ${keyOf(s)}: a pod that is not a mirror pod has that name`);
      if (existing) this.observe('MODIFIED', existing);
    }
  }

  /**
   * A status write of the pod workers. For a static pod it goes to its mirror (upstream's status
   * manager does the same translation); before the mirror exists it answers 404, which the workers
   * take as "nothing to update", and the status is written when the mirror is created.
   */
  async patchStatus(path: string, patch: any, type?: PatchType): Promise<any> {
    const uid = patch?.metadata?.uid;
    const s = uid ? [...this.statics.values()].find((p) => p.metadata.uid === uid) : undefined;
    if (!s && this.retired.has(uid)) {
      throw new ApiError('PATCH', `${path}/status`, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', message: 'the static pod is gone' });
    }
    if (!s) return this.o.api.patchStatus(path, patch, type);
    this.lastStatus.set(uid, { patch, type });
    const mirrorUid = this.mirrorUid(s);
    if (!mirrorUid) {
      throw new ApiError('PATCH', `${path}/status`, 404, { kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound', message: `the mirror pod of static pod ${keyOf(s)} does not exist yet` });
    }
    return this.o.api.patchStatus(path, { ...patch, metadata: { ...patch.metadata, uid: mirrorUid } }, type);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
  }
}

/** The API client the pod workers use alongside MirrorPods: the same client with status writes routed through it. */
export function mirrorStatusClient(api: ApiClient, mirrors: MirrorPods): ApiClient {
  // A view of the same client (same connection pool, same closing) with one method replaced.
  const view = Object.create(api) as ApiClient;
  view.patchStatus = (path, patch, type) => mirrors.patchStatus(path, patch, type);
  return view;
}
