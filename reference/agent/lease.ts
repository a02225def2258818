// The node Lease heartbeat (spec 001 §2.2): Lease `<node>` in namespace `node-lease`, holderIdentity the
// node name, leaseDurationSeconds 40, renewTime renewed every 10 s (a quarter of the duration, as
// upstream), an owner reference to the Node once its uid is known. Upstream's control plane creates the
// namespace; a control plane that has not is helped by creating it here. A failed renewal is retried
// with upstream's back-off (200 ms doubling, capped at 7 s) instead of waiting a whole interval.
import { isAlreadyExists, isNotFound, type ApiClient } from '../client/api-client.js';

export const NODE_LEASE_NAMESPACE = 'node-lease';

export interface LeaseOptions {
  api: ApiClient;
  nodeName: string;
  /** The Node's uid, for the owner reference; read again on every renewal until known. */
  nodeUid(): string | undefined;
  leaseDurationSeconds?: number;
  /** Renewal interval, ms (default a quarter of the duration: 10 s). */
  renewIntervalMs?: number;
  onError?(err: unknown): void;
}

const RETRY_START_MS = 200;
const RETRY_MAX_MS = 7000;

/** MicroTime as the API writes it: RFC 3339 with exactly six fractional digits. */
export function microTime(d = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaseController {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  private readonly duration: number;
  private readonly path: string;
  /** The Lease as the last successful write answered it: the next renewal starts from it, without a GET. */
  private latest: any;

  constructor(private readonly o: LeaseOptions) {
    this.duration = o.leaseDurationSeconds ?? 40;
    this.path = `/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${o.nodeName}`;
  }

  /** Renews once now, then keeps renewing until close(). Resolves after the first attempt. */
  async start(): Promise<void> {
    let retry = RETRY_START_MS;
    const interval = this.o.renewIntervalMs ?? (this.duration * 1000) / 4;
    const tick = async () => {
      let next = interval;
      try {
        await this.renew();
        retry = RETRY_START_MS;
      } catch (err) {
        this.o.onError?.(err);
        next = Math.min(retry, interval);
        retry = Math.min(retry * 2, RETRY_MAX_MS);
      }
      if (!this.closed) this.timer = setTimeout(() => { this.running = tick(); }, next);
    };
    this.running = tick();
    await this.running;
  }

  /**
   * One renewal: update the Lease, creating it (and its namespace) when missing. As upstream's lease
   * controller, the update starts from the Lease the last write answered (one PUT, no GET, while nobody
   * else writes the Lease); when that fails (a conflict, the Lease deleted) it reads the Lease again.
   */
  async renew(): Promise<void> {
    const uid = this.o.nodeUid();
    const ownerReferences = uid ? [{ apiVersion: 'v1', kind: 'Node', name: this.o.nodeName, uid }] : undefined;
    const spec = { holderIdentity: this.o.nodeName, leaseDurationSeconds: this.duration, renewTime: microTime() };
    const updated = (current: any) => {
      const next = { ...current, metadata: { ...current.metadata }, spec: { ...current.spec, ...spec } };
      if (ownerReferences && !(next.metadata.ownerReferences ?? []).some((r: any) => r.uid === uid)) {
        next.metadata.ownerReferences = ownerReferences;
      }
      return next;
    };
    if (this.latest) {
      const from = this.latest;
      this.latest = undefined;
      try {
        this.latest = await this.o.api.update(this.path, updated(from));
        return;
      } catch {
        // Changed or gone since: read it again below.
      }
    }
    let current: any;
    try {
      current = await this.o.api.get(this.path);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current) {
      this.latest = await this.o.api.update(this.path, updated(current));
      return;
    }
    const lease = { apiVersion: 'coordination.orch.io/v1', kind: 'Lease', metadata: { name: this.o.nodeName, namespace: NODE_LEASE_NAMESPACE, ownerReferences }, spec };
    const collection = `/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
    try {
      this.latest = await this.o.api.create(collection, lease);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The namespace is missing.
      await this.o.api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } })
        .catch((e) => { if (!isAlreadyExists(e)) throw e; });
      this.latest = await this.o.api.create(collection, lease);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }
}
