// Hollow nodes: n reference node agents (reference/agent/agent.ts, the real agent's code: Node
// registration and status, the Lease heartbeat, pod workers, PLEG, status manager, events) in ONE
// process, on one in-process hollow runtime (runtime.ts). What a process of agents would make n times
// is made once and shared: the API client (one keep-alive pool), the pod watch (pod-watch.ts, one
// watch fanned out by spec.nodeName), the mock runtime and its image store. Per node there is no HTTPS
// server, pod info socket or watchdog (their cost is sockets and certificates per node; cases that
// need them need a full agent). Each node has its own root dir (pod logs, state files) under one
// temporary directory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, isNotFound } from '../reference/client/api-client.js';
import { startAgent, type RunningAgent } from '../reference/agent/agent.js';
import { NODE_LEASE_NAMESPACE } from '../reference/agent/lease.js';
import { sharedMachine } from '../reference/agent/node-status.js';
import { PACKAGE_VERSION } from '../reference/package-version.js';
import { HollowRuntime } from './runtime.js';
import { SharedPodWatch } from './pod-watch.js';

/** The label every hollow Node carries. */
export const HOLLOW_LABEL = 'orch-conformance.io/hollow';

export interface HollowApiTarget {
  url: string;
  token?: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface HollowNodesOptions {
  api: HollowApiTarget;
  count: number;
  /** Nodes are named <namePrefix><i>, i = 0..count-1 (default `hollow-`). */
  namePrefix?: string;
  /** The Nodes' pods capacity (default 110). */
  podsPerNode?: number;
  /** Lease renewal interval, ms (default 10 s); the lease duration is 40 s or four intervals if longer. */
  heartbeatMs?: number;
  /** Node status computed this often, ms (default 10 s). */
  nodeStatusIntervalMs?: number;
  /** Labels on every Node besides orch-conformance.io/hollow=true. */
  labels?: Readonly<Record<string, string>>;
  /** Agents started at once (default 16). */
  startConcurrency?: number;
  /** How long to wait for every Node Ready with its Lease, ms (default 60 s + 50 ms a node). */
  readyTimeoutMs?: number;
  /**
   * The first node also serves the agent's HTTPS endpoints (127.0.0.1, a free port) and the shared
   * runtime its control API on this unix socket: what the agent cases need (`run --agent <url> --node
   * <name> --cri-control <socket>`), to show that a hollow node is the agent's own code.
   */
  serveFirst?: { controlSocket: string };
  /** Progress and errors of the agents (default: nothing). */
  log?(msg: string): void;
}

export interface HollowStats {
  nodes: number;
  /** Pods the nodes' workers run, all nodes together. */
  pods: number;
  /** Records of the shared runtime. */
  sandboxes: number;
  containers: number;
  /** process.memoryUsage() of this process. */
  rssBytes: number;
  heapUsedBytes: number;
}

export interface HollowNodes {
  names: string[];
  /** With serveFirst: the first node's name, its endpoints' URL and the CA file that verifies them. */
  served?: { nodeName: string; url: string; caFile?: string };
  stats(): HollowStats;
  /** Stops every agent; unless `keep`, deletes the Nodes and Leases of `names` (only those). */
  close(opts?: { keep?: boolean }): Promise<void>;
}

/**
 * `fn`, tried again after a failure (3 tries, 0.5 s then 1 s apart): among a thousand node starts, a
 * request failing once (a busy server, a connection reset) must not fail them all. A failed agent start
 * has closed what it opened; a Node it registered is found again by the next try.
 */
async function withRetries<T>(what: string, log: (m: string) => void, fn: () => Promise<T>, tries = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= tries) throw err;
      log(`${what}: ${(err as Error).message}; trying again`);
      await new Promise((r) => setTimeout(r, 500 * i));
    }
  }
}

/** Runs `fn` over `items`, at most `limit` at once; the first failure rejects after the running ones end. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: unknown;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (err) {
        failed ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed !== undefined) throw failed;
}

export async function startHollowNodes(o: HollowNodesOptions): Promise<HollowNodes> {
  if (!Number.isSafeInteger(o.count) || o.count < 1) throw new RangeError(`count ${o.count}: want a whole number of nodes, at least 1`);
  const log = o.log ?? (() => {});
  const prefix = o.namePrefix ?? 'hollow-';
  const names = Array.from({ length: o.count }, (_, i) => `${prefix}${i}`);
  const heartbeatMs = o.heartbeatMs ?? 10_000;
  const api = new ApiClient({
    url: o.api.url, token: o.api.token, caPem: o.api.caPem, certPem: o.api.certPem, keyPem: o.api.keyPem,
    insecureSkipTlsVerify: o.api.insecureSkipTlsVerify, userAgent: `agent/v${PACKAGE_VERSION} (hollow)`,
  });
  const rootDir = await mkdtemp(join(tmpdir(), 'hollow-nodes-'));
  const runtime = await HollowRuntime.start({ root: join(rootDir, 'cri'), control: o.serveFirst?.controlSocket });
  const pods = new SharedPodWatch(api, new Set(names), (err) => log(`pod watch: ${(err as Error).message}`));
  // One filesystem holds every node's root dir: the machine is read once a second for all of them.
  const machine = sharedMachine();
  const agents: RunningAgent[] = [];
  let served: HollowNodes['served'];
  const stopAgents = async () => {
    await Promise.all(agents.map((a) => a.close().catch((err) => log(`${a.nodeName}: stop: ${(err as Error).message}`))));
    agents.length = 0;
    pods.stop();
  };
  const release = async () => {
    api.close();
    await runtime.close();
    await rm(rootDir, { recursive: true, force: true });
  };

  try {
    await eachLimited(names, o.startConcurrency ?? 16, async (nodeName) => {
      const agent = await withRetries(`${nodeName}: start`, log, () => startAgent({
        api: { url: o.api.url },
        nodeName, hostnameOverride: nodeName,
        rootDir: join(rootDir, 'nodes', nodeName),
        nodeStatusUpdateFrequencyMs: o.nodeStatusIntervalMs,
        leaseRenewIntervalMs: heartbeatMs,
        leaseDurationSeconds: Math.max(40, Math.ceil((4 * heartbeatMs) / 1000)),
        maxPods: o.podsPerNode,
        nodeLabels: { ...o.labels, [HOLLOW_LABEL]: 'true' },
        shared: {
          apiClient: api, criTransport: runtime.transport(nodeName),
          podWatch: (node, handlers) => pods.subscribe(node, handlers), podInfoSocket: false, machine,
        },
        // Served on loopback, and published there: where the API server's node proxy reaches it.
        ...(o.serveFirst && nodeName === names[0] ? { serve: { address: '127.0.0.1', port: 0 }, nodeIP: '127.0.0.1' } : {}),
        log: (m) => log(`${nodeName}: ${m}`),
      }));
      agents.push(agent);
      if (agent.url) served = { nodeName, url: agent.url, caFile: agent.caFile };
    });
    await waitReady(api, names, o.readyTimeoutMs ?? 60_000 + 50 * o.count);
  } catch (err) {
    await stopAgents();
    await deleteOwn(api, names, log);
    await release();
    throw err;
  }

  let closing: Promise<void> | undefined;
  return {
    names,
    served,
    stats: () => {
      const mem = process.memoryUsage();
      return {
        nodes: agents.length, pods: agents.reduce((n, a) => n + a.pods().length, 0), ...runtime.counts(),
        rssBytes: mem.rss, heapUsedBytes: mem.heapUsed,
      };
    },
    close(c = {}) {
      closing ??= (async () => {
        await stopAgents();
        if (!c.keep) await deleteOwn(api, names, log);
        await release();
      })();
      return closing;
    },
  };
}

function nodeReady(node: any): boolean {
  return (node?.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');
}

/** Polls two lists (Nodes by the hollow label, the lease namespace's Leases) until each name is Ready with its Lease. */
async function waitReady(api: ApiClient, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let missing = '';
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    const [nodes, leases] = await Promise.all([
      api.list('/api/v1/nodes', { labelSelector: `${HOLLOW_LABEL}=true` }),
      api.list(`/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`),
    ]);
    const ready = new Set(nodes.items.filter(nodeReady).map((n: any) => n.metadata.name));
    const leased = new Set(leases.items.map((l: any) => l.metadata.name));
    const notYet = names.filter((n) => !ready.has(n) || !leased.has(n));
    if (notYet.length === 0) return;
    missing = `${notYet.length} of ${names.length} nodes not Ready with a Lease (first: ${notYet[0]})`;
    if (Date.now() + delay > deadline) throw new Error(`hollow nodes not ready within ${Math.round(timeoutMs / 1000)} s: ${missing}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** Deletes the Nodes and Leases named (absent ones are fine); nothing else. */
async function deleteOwn(api: ApiClient, names: readonly string[], log: (m: string) => void): Promise<void> {
  const gone = async (path: string) => {
    try {
      await api.delete(path);
    } catch (err) {
      if (!isNotFound(err)) log(`delete ${path}: ${(err as Error).message}`);
    }
  };
  await eachLimited(names, 32, async (name) => {
    await gone(`/api/v1/nodes/${name}`);
    await gone(`/apis/coordination.orch.io/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases/${name}`);
  });
}
