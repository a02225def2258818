// What the agent's pod info service serves (spec 001 §4.2): the pods its workers manage (pods bound to
// its node from the API and its static pods), each with the status the agent computed last from the
// runtime (PLEG and sync passes), laid over the API's copy: the latest the agent knows, whether or not
// the control plane took the write. The socket is served before the workers exist, so this bridge
// starts empty and not initialized; agent.ts attaches the workers once they are made.
import { join, dirname } from 'node:path';
import { broken } from '../breaks.js';
import type { ApiClient } from '../../client/api-client.js';
import type { PodWorkers } from '../pod-workers.js';
import { startPodInfoServer, type PodInfoServer, type PodInfoSource } from './server.js';

export class AgentPodSource implements PodInfoSource {
  private workers: PodWorkers | undefined;
  private readonly listeners = new Set<(uid: string) => void>();
  private detach: (() => void) | undefined;
  /** Test-only (`podinfo-reads-api`): the API's pod list, read every half second; undefined when it failed. */
  private fromApi: any[] | undefined;
  private poller: NodeJS.Timeout | undefined;

  constructor(private readonly o: { initialized(): boolean; api?: ApiClient; nodeName: string }) {
    // Test-only (breaks.ts): pods are read from the API server instead of the agent's cache, so the
    // service fails (not initialized) once the control plane is unreachable.
    if (broken('podinfo-reads-api') && o.api) {
      const api = o.api;
      const read = () => {
        api.list('/api/v1/pods', { fieldSelector: `spec.nodeName=${o.nodeName}` })
          .then((l) => { this.fromApi = l.items; }, () => { this.fromApi = undefined; })
          .finally(() => { if (this.poller) this.poller = setTimeout(read, 500).unref(); });
      };
      this.poller = setTimeout(read, 0).unref();
    }
  }

  close(): void {
    const p = this.poller;
    this.poller = undefined;
    if (p) clearTimeout(p);
  }

  /** The workers exist: their pods are served, and their changes streamed. */
  attach(workers: PodWorkers): void {
    this.detach?.();
    this.workers = workers;
    this.detach = workers.onChange((uid) => { for (const fn of this.listeners) fn(uid); });
  }

  initialized(): boolean {
    if (this.poller && !this.fromApi) return false;
    return this.o.initialized() && this.workers !== undefined;
  }

  /** The pod as the service sends it: the pod object with the status computed last over the API's. */
  pod(uid: string): any | undefined {
    if (this.fromApi) return this.fromApi.find((p) => p?.metadata?.uid === uid);
    const s = this.workers?.podState(uid);
    if (!s) return undefined;
    // Test-only (breaks.ts): only the API's copy of the status, never what the agent computed itself.
    const local = broken('podinfo-api-status-only') ? undefined : s.localStatus;
    return { apiVersion: 'v1', kind: 'Pod', ...s.pod, status: local ? { ...(s.pod.status ?? {}), ...local } : s.pod.status };
  }

  pods(): any[] {
    if (this.fromApi) return this.fromApi;
    return (this.workers?.pods() ?? []).map((p) => this.pod(p.metadata.uid)).filter((p) => p !== undefined);
  }

  onChange(fn: (uid: string) => void): () => void {
    this.listeners.add(fn);
    return () => { this.listeners.delete(fn); };
  }
}

/**
 * Serves the pod info socket at `socketPath` (<root_dir>/pods/agent.sock) from `source`; undefined on
 * Windows, where the service is not supported (spec 001 §4.2).
 */
export async function servePodInfo(socketPath: string, source: AgentPodSource): Promise<PodInfoServer | undefined> {
  if (process.platform === 'win32') return undefined;
  // Test-only (breaks.ts): the socket is served beside pods/, not in it.
  const path = broken('podinfo-socket-elsewhere') ? join(dirname(dirname(socketPath)), 'pod-info.sock') : socketPath;
  // Test-only (breaks.ts): no socket unless a feature gate that does not exist is given (off by default).
  if (broken('podinfo-off-by-default')) return undefined;
  const server = await startPodInfoServer({ socketPath: path, source });
  return { socketPath: server.socketPath, get watchPendingBytes() { return server.watchPendingBytes; }, close: async () => { source.close(); await server.close(); } };
}
