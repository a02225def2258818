// `run --background-nodes <n>`: n hollow nodes (`orch-conformance nodes`, hollow/) load the target for
// the duration of the run, so an implementer sees whether verdicts hold when the control plane is
// busy. They run in a CHILD process: a crash or a slow event loop among 200 agents never stalls the
// run's own clients and timers, and the contract between the two is the `nodes` command's own
// (stdout "ready: <n> nodes" once every Node is Ready with its Lease; SIGTERM stops it, it deletes
// its Nodes and Leases and prints "stopped: ..."). The child's Nodes carry the run's label, so
// `cleanup --run-id` finds them when a run is killed before it could stop them.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, createDispatcher, type TargetConnection } from './client.js';
import { BackgroundNodesError } from './errors.js';
import { kubeconfigYaml } from './agent-exec.js';
import type { BackgroundLoad } from './results.js';

/** The label every hollow node carries (the `nodes` command's contract). */
export const HOLLOW_LABEL = 'orch-conformance.io/hollow';

/** The run's hollow nodes, running. */
export interface BackgroundNodes {
  readonly load: BackgroundLoad;
  /** The names of its Nodes (`<prefix><i>`). */
  readonly names: readonly string[];
  /** Whether `obj` (from a list of `collection`) is one of its Nodes: the run's leak check leaves those to `stop`. */
  owns(collection: string, obj: { metadata?: { name?: string; labels?: Record<string, string> } }): boolean;
  /**
   * SIGTERM, then waits for its `stopped:` line and its exit (bounded; SIGKILL after). Idempotent.
   * Resolves to the paths of its Nodes still on the target afterwards (leaks), when `conn` can list them.
   */
  stop(): Promise<string[]>;
}

export interface BackgroundNodesOptions {
  count: number;
  runId: string;
  /** The run's label, `key=value`: its Nodes carry it. */
  runLabel: string;
  /** How long the nodes may take to be Ready; default 60 s plus 150 ms per node. */
  readyTimeoutMs?: number;
  /** How long a stop may take before SIGKILL; default 30 s plus 50 ms per node (it deletes each Node). */
  stopTimeoutMs?: number;
  /** The command (argv) to run instead of this package's `nodes` (tests). Its flags are appended. */
  command?: readonly string[];
  /** Its standard error lines as they come (default: kept, the last ones shown when it fails). */
  onStderr?: (line: string) => void;
  /** The run's interrupt (Ctrl-C): waiting for the ready line stops, and so does the child. */
  interrupt?: AbortSignal;
  /** Where a warning goes (the nodes ended during the run, or had to be killed); default standard error. */
  warn?: (line: string) => void;
}

/** This package's own CLI: the `nodes` command the run starts. */
function nodesCommand(): string[] {
  return [process.execPath, new URL('../bin/orch-conformance.js', import.meta.url).pathname, 'nodes'];
}

/** Stderr lines kept for the message of a failure. */
const STDERR_KEPT = 20;

/** The child processes still running, killed if this process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A second Ctrl-C quits the run at once (process.exit): its background nodes must not outlive it.
  // SIGTERM is what the child needs to delete its Nodes; it does that on its own after we are gone.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGTERM');
  });
}

/**
 * Starts `orch-conformance nodes --count <n>` against `conn` (a kubeconfig written owner-only to a
 * temporary directory carries the run's URL and credentials: no token on a command line) and waits
 * for its ready line. Throws BackgroundNodesError, with the child's last stderr lines, when it exits
 * first or does not get ready in time; the child is stopped then.
 */
export async function startBackgroundNodes(conn: TargetConnection, opts: BackgroundNodesOptions): Promise<BackgroundNodes> {
  const prefix = `oc-${opts.runId}-hollow-`;
  const names = Array.from({ length: opts.count }, (_, i) => `${prefix}${i}`);
  const dir = await mkdtemp(join(tmpdir(), 'oc-bg-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(conn), { mode: 0o600 });
  const [cmd, ...cmdArgs] = opts.command ?? nodesCommand();
  const args = [...cmdArgs, '--count', String(opts.count), '--kubeconfig', kubeconfig, '--name-prefix', prefix, '--label', opts.runLabel];
  const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  installExitHook();

  const stderr: string[] = [];
  const stdoutLines: string[] = [];
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      running.delete(child);
      resolve();
    });
    child.once('error', (err) => {
      stderr.push(`cannot start ${cmd}: ${err.message}`);
      exited ??= { code: null, signal: null };
      running.delete(child);
      resolve();
    });
  });
  const lineWaiters: Array<(line: string) => void> = [];
  readLines(child.stdout!, (line) => {
    stdoutLines.push(line);
    for (const w of lineWaiters) w(line);
  });
  readLines(child.stderr!, (line) => {
    stderr.push(line);
    if (stderr.length > STDERR_KEPT) stderr.shift();
    opts.onStderr?.(line);
  });
  const firstLine = (re: RegExp) => new Promise<string>((resolve) => {
    const seen = stdoutLines.find((l) => re.test(l));
    if (seen) return resolve(seen);
    lineWaiters.push((l) => { if (re.test(l)) resolve(l); });
  });
  const how = () => (exited?.signal ? `killed by ${exited.signal}` : exited?.code !== null && exited?.code !== undefined ? `exit code ${exited.code}` : 'could not start');
  const tail = () => (stderr.length ? `; its last standard error lines:\n  ${stderr.join('\n  ')}` : '; it wrote nothing on standard error');

  const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const load: BackgroundLoad = { hollowNodes: opts.count, source: 'started by the run' };
  let stopping: Promise<string[]> | undefined;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 30_000 + 50 * opts.count;
  const stop = (): Promise<string[]> => (stopping ??= (async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), stopTimeoutMs).unref());
      if ((await Promise.race([exit.then(() => 'exited' as const), timer])) === 'late') {
        warn(`orch-conformance: the background nodes did not stop within ${Math.round(stopTimeoutMs / 1000)} s of SIGTERM: killed (their Nodes may be left: orch-conformance cleanup --run-id ${opts.runId})`);
        child.kill('SIGKILL');
        await exit;
      }
    }
    await rm(dir, { recursive: true, force: true });
    return nodesLeft(conn, opts.runLabel, names);
  })());

  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000 + 150 * opts.count;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const outcome = await Promise.race([
    firstLine(/^ready: \d+ nodes$/).then(() => 'ready' as const),
    exit.then(() => 'exited' as const),
    new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), readyTimeoutMs); }),
    new Promise<'interrupted'>((resolve) => {
      onAbort = () => resolve('interrupted');
      if (opts.interrupt?.aborted) onAbort();
      else opts.interrupt?.addEventListener('abort', onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  opts.interrupt?.removeEventListener('abort', onAbort!);
  if (outcome !== 'ready') {
    const why = outcome === 'late'
      ? `${opts.count} hollow nodes were not all Ready within ${Math.round(readyTimeoutMs / 1000)} s`
      : outcome === 'interrupted' ? 'interrupted before the nodes were Ready'
        : `the nodes process ended before its nodes were Ready (${how()})`;
    await stop();
    throw new BackgroundNodesError(`--background-nodes ${opts.count}: ${why}${tail()}`);
  }
  // Ended on its own while the cases ran: said at once and recorded, as the cases after that ran unloaded.
  void exit.then(() => {
    if (stopping) return;
    load.endedEarly = `the nodes process ended during the run (${how()})`;
    warn(`orch-conformance: --background-nodes: ${load.endedEarly}${tail()}`);
  });
  return {
    load,
    names,
    owns: (collection, obj) => collection === '/api/v1/nodes' && obj.metadata?.labels?.[HOLLOW_LABEL] === 'true' && names.includes(obj.metadata?.name ?? ''),
    stop,
  };
}

/**
 * The run's hollow Nodes still on the target after their process stopped (paths), or none when they
 * cannot be listed. Those it did not delete (a request of its that failed) the run deletes, as it
 * does any object it labelled, with their Leases; what is still there after that is left behind.
 */
async function nodesLeft(conn: TargetConnection, runLabel: string, names: readonly string[]): Promise<string[]> {
  const d = createDispatcher(conn);
  const api = new ApiClient(conn, d);
  const ours = new Set(names);
  const left = async (): Promise<string[]> => {
    const res = await api.get('/api/v1/nodes', { query: { labelSelector: `${runLabel},${HOLLOW_LABEL}=true` }, timeoutMs: 10_000 });
    if (res.status !== 200 || !Array.isArray(res.json?.items)) return [];
    return res.json.items.map((n: { metadata: { name: string } }) => n.metadata.name).filter((n: string) => ours.has(n));
  };
  try {
    const first = await left();
    if (first.length === 0) return [];
    await Promise.all(first.map(async (name) => {
      await api.delete(`/api/v1/nodes/${name}`, { timeoutMs: 10_000 }).catch(() => undefined);
      await api.delete(`/apis/coordination.orch.io/v1/namespaces/kube-node-lease/leases/${name}`, { timeoutMs: 10_000 }).catch(() => undefined);
    }));
    return (await left()).map((name) => `/api/v1/nodes/${name}`);
  } catch {
    // An unreachable target: nothing known to be left (the run's own cleanup says what it could not check).
    return [];
  } finally {
    await d.close().catch(() => undefined);
  }
}

/**
 * How many Nodes labelled `orch-conformance.io/hollow=true` the target has: a `nodes` process the
 * implementer started beside the run. Undefined when they cannot be listed (no right to, no answer):
 * the run does not record a load it could not see.
 */
export async function countHollowNodes(conn: TargetConnection): Promise<number | undefined> {
  const d = createDispatcher(conn);
  const api = new ApiClient(conn, d);
  try {
    let count = 0;
    let cont: string | undefined;
    do {
      const res = await api.get('/api/v1/nodes', { query: { labelSelector: `${HOLLOW_LABEL}=true`, limit: 500, continue: cont }, timeoutMs: 10_000 });
      if (res.status !== 200 || !Array.isArray(res.json?.items)) return undefined;
      count += res.json.items.length;
      cont = res.json.metadata?.continue || undefined;
    } while (cont);
    return count;
  } catch {
    return undefined;
  } finally {
    await d.close().catch(() => undefined);
  }
}

/** Calls `onLine` with each line of `stream` (without its newline). */
function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, nl).replace(/\r$/, ''));
      buf = buf.slice(nl + 1);
    }
  });
  stream.on('end', () => { if (buf) onLine(buf); });
}
