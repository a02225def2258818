// What the agent-exec cases (agents the case starts itself: configuration, lock file, root dir,
// watchdog) share: configuration files written before the launch, the launch of an agent that must
// refuse to start, the merged configuration read from /configz, and a free port.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseContext } from '../case.js';
import type { LaunchedAgent, LaunchOptions } from '../../runner/agent-exec.js';
import { freePort, writeFiles } from '../../runner/agent-exec.js';
import { fail, show, skip } from '../verify.js';

export const CONFIG_API_VERSION = 'agent.config.orch.io/v1beta1';
export const CONFIG_KIND = 'AgentConfiguration';

/** A configuration file (JSON, which is YAML) typed as spec 001 §2.3 says, with `fields`. */
export const configText = (fields: Record<string, unknown>) => JSON.stringify({ apiVersion: CONFIG_API_VERSION, kind: CONFIG_KIND, ...fields }, null, 2);

/**
 * Runs `fn` with a private scratch directory of the case's, removed afterwards. Configuration files
 * must exist before the agent starts, so they cannot go in the launched agent's own workDir.
 */
export async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'oc-exec-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ConfigFiles {
  /** The main file (--config): its fields, or the text itself. */
  main?: Record<string, unknown> | string;
  /** Files of the drop-in directory (--config-dir), relative name to fields or text. */
  dropIns?: Record<string, Record<string, unknown> | string>;
}

const text = (v: Record<string, unknown> | string) => (typeof v === 'string' ? v : configText(v));

/** Writes the files under `dir` and gives the flags that name them. */
export async function configArgs(dir: string, files: ConfigFiles): Promise<string[]> {
  const args: string[] = [];
  if (files.main !== undefined) {
    await writeFiles(dir, { 'agent-config.yaml': text(files.main) });
    args.push('--config', join(dir, 'agent-config.yaml'));
  }
  if (files.dropIns !== undefined) {
    const d = join(dir, 'agent-config.d');
    await writeFiles(d, Object.fromEntries(Object.entries(files.dropIns).map(([k, v]) => [k, text(v)])));
    args.push('--config-dir', d);
  }
  return args;
}

/**
 * The merged configuration the agent serves at /configz (`{"agentconfig": {...}}`, upstream's
 * `{"kubeletconfig": ...}` renamed). /configz is served "where available" (spec 002): without it the
 * case cannot observe the merge and skips.
 */
export async function readConfigz(agent: LaunchedAgent): Promise<Record<string, any>> {
  const res = await agent.client.get('/configz');
  if (res.status === 404) skip('the agent does not serve /configz (spec 002: "where available"), so the merged configuration cannot be read');
  if (res.status !== 200) fail('GET /configz of the launched agent', 'HTTP 200 with the merged configuration', `HTTP ${res.status} ${res.text.slice(0, 300)}`);
  const body = res.json;
  const inner = body?.agentconfig ?? (body && typeof body === 'object' && Object.keys(body).length === 1 ? Object.values(body)[0] : undefined);
  if (!inner || typeof inner !== 'object') fail('GET /configz: the merged configuration', '{"agentconfig": {...}}', res.text.slice(0, 300));
  return inner as Record<string, any>;
}

/** A Go duration ("1m30s", "45s", "1.5h", "500ms") in milliseconds; NaN when it is none. */
export function durationMs(v: unknown): number {
  if (typeof v !== 'string' || !/^(\d+(\.\d+)?(h|m|s|ms|us|µs|ns))+$/.test(v)) return NaN;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };
  let ms = 0;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) ms += Number(m[1]) * unit[m[2]!]!;
  return ms;
}

/** A free TCP port on the loopback (for a value the flags must win over). */
export { freePort };

/** Polls GET /healthz of `agent` (every 200 ms, recorded) until 200 or the deadline; true when it answered 200. */
export async function healthyWithin(agent: LaunchedAgent, timeoutMs: number, stopEarly: () => boolean = () => false): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopEarly()) {
    try {
      if ((await agent.client.get('/healthz', { timeoutMs: 2_000 })).status === 200) return true;
    } catch { /* not listening (yet) */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/**
 * Launches an agent that must refuse to start (`why`): it exits with a non-zero status within
 * `timeoutMs`. Fails when it becomes ready (GET /healthz 200), exits 0, or is still running.
 */
export async function expectRefused(ctx: CaseContext, opts: LaunchOptions, why: string, timeoutMs = 15_000): Promise<void> {
  const agent = await ctx.agents.launch({ controlPlane: false, ...opts, waitReady: false });
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void agent.exited.then((e) => { exit = e; });
  const ready = await healthyWithin(agent, timeoutMs, () => exit !== undefined);
  if (ready) fail(`${why}: the agent refuses to start`, 'the agent exits with a non-zero status without serving', `it answered GET /healthz with 200; it printed: ${show(agent.output().slice(-500))}`);
  if (!exit) fail(`${why}: the agent refuses to start (within ${timeoutMs / 1000}s)`, 'the agent exits with a non-zero status', `still running, not ready; it printed: ${show(agent.output().slice(-500))}`);
  if (exit.code === 0) fail(`${why}: the agent refuses to start`, 'a non-zero exit status', `exit status 0; it printed: ${show(agent.output().slice(-500))}`);
}

/**
 * Launches an agent that must start (`why`): fails, rather than errors, when it exits or does not
 * answer GET /healthz with 200 within `timeoutMs` (the rule under test is that it starts).
 */
export async function expectStarts(ctx: CaseContext, opts: LaunchOptions, why: string, timeoutMs = 20_000): Promise<LaunchedAgent> {
  const agent = await ctx.agents.launch({ controlPlane: false, ...opts, waitReady: false });
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void agent.exited.then((e) => { exit = e; });
  if (!await healthyWithin(agent, timeoutMs, () => exit !== undefined)) {
    fail(`${why}: the agent starts (GET /healthz 200 within ${timeoutMs / 1000}s)`, 'it starts and serves', `${exit ? `it exited ${show(exit)}` : 'no 200'}; it printed: ${show(agent.output().slice(-500))}`);
  }
  return agent;
}
