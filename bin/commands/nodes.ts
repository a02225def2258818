// `nodes`: n hollow nodes (hollow/nodes.ts) against an API server until SIGINT or SIGTERM. stdout carries
// exactly two lines, for the programs that start it (bench/scale.ts, run --background-nodes):
// `ready: <n> nodes` once every Node is registered, Ready and has its Lease, and `stopped: <n> nodes
// deleted` (or `kept` with --keep) after a signal. Progress and errors go to stderr.
import { readFile } from 'node:fs/promises';
import { parseGoDuration } from '../../reference/agent/config/go-duration.js';
import { loadKubeconfig } from '../../runner/kubeconfig.js';
import { UsageError } from '../../runner/errors.js';
import { startHollowNodes, type HollowApiTarget } from '../../hollow/nodes.js';
import { EXIT } from './exit-codes.js';

export interface NodesArgs {
  count?: number;
  api?: string;
  kubeconfig?: string;
  token?: string;
  ca?: string;
  insecureSkipTlsVerify?: boolean;
  namePrefix: string;
  podsPerNode: number;
  heartbeat: string;
  nodeStatusInterval: string;
  label?: string[];
  keep?: boolean;
}

/** A positive Go duration (`10s`, `500ms`) in ms, or a usage error naming the flag. */
export function positiveDurationMs(flag: string, text: string): number {
  const ns = parseGoDuration(text);
  if (typeof ns !== 'number') throw new UsageError(`${flag} ${text}: ${ns.error}`);
  if (ns <= 0) throw new UsageError(`${flag} ${text}: must be more than 0`);
  return ns / 1e6;
}

/** `k=v` labels; keys and values as the API's label syntax (checked by the server on registration). */
export function parseLabels(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const m = /^([^=\s]+)=([^=\s]*)$/.exec(item);
    if (!m) throw new UsageError(`--label ${item}: want key=value`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** The node names' prefix must leave DNS subdomain names (lowercase letters, digits, '-' and '.'). */
function checkPrefix(prefix: string): void {
  if (!/^[a-z0-9]([-a-z0-9.]*)?$/.test(prefix)) throw new UsageError(`--name-prefix ${JSON.stringify(prefix)}: node names must be lowercase letters, digits, '-' or '.', starting with a letter or digit`);
}

async function target(args: NodesArgs): Promise<HollowApiTarget> {
  let t: HollowApiTarget | undefined;
  if (args.kubeconfig) {
    const k = loadKubeconfig(args.kubeconfig);
    t = { url: k.server, token: k.token, caPem: k.caPem, certPem: k.certPem, keyPem: k.keyPem, insecureSkipTlsVerify: k.insecureSkipTlsVerify };
  }
  if (args.api) t = { ...t, url: args.api };
  if (!t) throw new UsageError('give --api <url> or --kubeconfig <file>');
  if (args.token) t.token = args.token;
  if (args.ca) {
    try {
      t.caPem = await readFile(args.ca, 'utf8');
    } catch (err) {
      throw new UsageError(`--ca ${args.ca}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  if (args.insecureSkipTlsVerify) t.insecureSkipTlsVerify = true;
  return t;
}

export async function cmdNodes(args: NodesArgs): Promise<number> {
  const count = args.count;
  if (count === undefined || !Number.isSafeInteger(count) || count < 1) throw new UsageError(`--count ${count ?? ''}: want a whole number of nodes, at least 1`);
  if (!Number.isSafeInteger(args.podsPerNode) || args.podsPerNode < 1) throw new UsageError(`--pods-per-node ${args.podsPerNode}: want a whole number, at least 1`);
  checkPrefix(args.namePrefix);
  const heartbeatMs = positiveDurationMs('--heartbeat', args.heartbeat);
  const nodeStatusIntervalMs = positiveDurationMs('--node-status-interval', args.nodeStatusInterval);
  const labels = parseLabels(args.label ?? []);
  const api = await target(args);

  // Registered before the start, so a signal during it still ends through close().
  let signalled = false;
  const stopped = new Promise<void>((resolve) => {
    const on = () => { signalled = true; resolve(); };
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
  });
  const log = (m: string) => process.stderr.write(`nodes: ${m}\n`);
  log(`starting ${count} hollow nodes ${args.namePrefix}0..${args.namePrefix}${count - 1} against ${api.url}`);
  const started = Date.now();
  let nodes;
  try {
    nodes = await startHollowNodes({
      api, count, namePrefix: args.namePrefix, podsPerNode: args.podsPerNode, heartbeatMs, nodeStatusIntervalMs, labels, log,
    });
  } catch (err) {
    throw new UsageError(`cannot start the hollow nodes: ${(err as Error).message}`);
  }
  log(`${count} nodes ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (!signalled) process.stdout.write(`ready: ${count} nodes\n`);
  await stopped;
  await nodes.close({ keep: args.keep });
  process.stdout.write(`stopped: ${count} nodes ${args.keep ? 'kept' : 'deleted'}\n`);
  return EXIT.ok;
}
