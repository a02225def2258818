// The node-agent targets of a run (spec 001): the agent under test (`--agent <url> --node <name>`),
// the control API of the mock CRI runtime it uses (`--cri-control <path>`), and a command that starts
// agents of the implementation under test (`--agent-exec '<command>'`, see agent-exec.ts).
import type { Dispatcher } from 'undici';
import { ApiClient, createDispatcher, type ApiResponse, type TargetConnection } from './client.js';
import type { Exchange } from './results.js';
import type { CallRecord, FaultSpec } from '../mocks/cri/faults.js';
import type { LaunchedAgent, LaunchOptions } from './agent-exec.js';

export type { LaunchedAgent, LaunchOptions };

/** The agent under test, as a run is told about it. */
export interface AgentTarget {
  /** Its HTTPS endpoints (`/healthz`, `/configz`, `/pods`, the spec 002 endpoints). */
  conn: TargetConnection;
  /** The Node it registered (`--node`). */
  nodeName: string;
}

/** A call the mock CRI recorded, and a fault to inject (`pod` keeps it to one pod's calls). */
export type CriCall = CallRecord & { request: any };
export type CriFault = FaultSpec;

/** A control request the mock refused: a set-up problem of the run, not a verdict on the agent. */
export class CriControlError extends Error {
  override name = 'CriControlError';
}

/**
 * The mock CRI's control API (HTTP over its unix socket), for cases: read the call log, inject
 * faults, make containers exit. Its exchanges are recorded with the case's others. Faults a case adds
 * are removed when the case ends, pass or fail.
 */
export class CriControlClient {
  private readonly added = new Set<string>();

  constructor(private readonly http: ApiClient) {}

  private async json(res: Promise<ApiResponse>, what: string, ok: number[] = [200, 201]): Promise<any> {
    const r = await res;
    if (!ok.includes(r.status)) throw new CriControlError(`mock CRI control: ${what} answered ${r.status}: ${r.json?.error ?? r.text.slice(0, 200)}`);
    return r.json;
  }

  /** The call log, oldest first; `rpc` filters by name, `since` returns only calls after that seq. */
  async calls(rpc?: string, since?: number): Promise<CriCall[]> {
    const query: Record<string, string | number | undefined> = { rpc, since };
    return (await this.json(this.http.get('/calls', { query }), 'GET /calls')).calls;
  }

  /** The highest seq recorded so far (0 when none): pass it to `calls` to see only later calls. */
  async lastSeq(): Promise<number> {
    const all = await this.calls();
    return all.length ? all[all.length - 1]!.seq : 0;
  }

  async addFault(fault: CriFault): Promise<{ id: string }> {
    const f = await this.json(this.http.post('/faults', fault), 'POST /faults');
    this.added.add(f.id);
    return f;
  }

  /** The runtime's snapshot: sandboxes, containers (with ids, state, pod metadata), images. */
  async state(): Promise<{ sandboxes: any[]; containers: any[]; images: any[] }> {
    return this.json(this.http.get('/state'), 'GET /state');
  }

  /** Makes a running container's process exit with this code. */
  async exitContainer(id: string, exitCode: number): Promise<void> {
    await this.json(this.http.post(`/containers/${encodeURIComponent(id)}/exit`, { exitCode }), 'POST /containers/{id}/exit');
  }

  /** Removes the faults this client added (the runner calls it when the case ends). */
  async removeOwnFaults(): Promise<void> {
    for (const id of this.added) {
      // 404: it fired its `times` and is gone already.
      await this.json(this.http.delete(`/faults/${encodeURIComponent(id)}`), `DELETE /faults/${id}`, [200, 404]);
    }
    this.added.clear();
  }
}

/** A connection to the control socket at `path`. */
export function criControlConnection(path: string): TargetConnection {
  return { baseUrl: 'http://mock-cri', socketPath: path };
}

export function criControlClient(conn: TargetConnection, dispatcher: Dispatcher, signal: AbortSignal, exchanges: Exchange[]): CriControlClient {
  return new CriControlClient(new ApiClient(conn, dispatcher, signal, exchanges));
}

/** Starts agents of the implementation under test for one case; all are stopped when it ends. */
export interface AgentLauncher {
  launch(opts?: LaunchOptions): Promise<LaunchedAgent>;
}

export { createDispatcher };
