// `controller-manager` and `scheduler`: the reference's controllers or scheduler alone, as clients of
// any API server (--kubeconfig, or --api with --token/--token-file/--ca), each serving spec 002's
// endpoints on its own HTTPS port; print "controller-manager: <url>" / "scheduler: <url>" and run until
// SIGINT or SIGTERM. An implementer runs them against their own API server.
import { readFile } from 'node:fs/promises';
import { FeatureGates, FeatureGateError } from '../../reference/features.js';
import { parseDurationMs } from '../../reference/duration.js';
import { loadKubeconfig } from '../../runner/kubeconfig.js';
import { UsageError } from '../../runner/errors.js';
import { EXIT } from './exit-codes.js';
import type { ApiConnection } from '../../reference/controllers/manager.js';

async function readFlagFile(flag: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${path}: ${(err as Error).message}`);
  }
}

/** The API server the component talks to: --kubeconfig, then --api/--token/--token-file/--ca over it. */
export async function componentApi(argv: any): Promise<ApiConnection> {
  let api: { url?: string; token?: string; caPem?: string } = {};
  if (argv.kubeconfig) {
    try {
      const k = loadKubeconfig(argv.kubeconfig);
      api = { url: k.server, token: k.token, caPem: k.caPem };
    } catch (err) {
      throw new UsageError(`--kubeconfig ${argv.kubeconfig}: ${(err as Error).message}`);
    }
  }
  if (argv.token && argv.tokenFile) throw new UsageError('give --token or --token-file, not both');
  if (argv.api) api.url = argv.api;
  if (argv.token) api.token = argv.token;
  if (argv.tokenFile) api.token = (await readFlagFile('--token-file', argv.tokenFile)).trim();
  if (argv.ca) api.caPem = await readFlagFile('--ca', argv.ca);
  if (!api.url) throw new UsageError('no API server given: pass --kubeconfig or --api');
  try {
    new URL(api.url);
  } catch {
    throw new UsageError(`--api ${api.url}: want https://host:port`);
  }
  return { url: api.url, token: api.token, caPem: api.caPem };
}

export function gatesOf(argv: any): FeatureGates {
  try {
    return FeatureGates.parse(argv.featureGates);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--feature-gates: ${err.message}`);
    throw err;
  }
}

export function portOf(v: unknown, flag: string): number {
  const port = Number(v);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`${flag} must be a port number (0 picks a free one)`);
  return port;
}

/** A duration flag in ms, or undefined when not given. */
export function durationMs(v: unknown, flag: string): number | undefined {
  if (v === undefined) return undefined;
  const ms = parseDurationMs(String(v));
  if (ms === undefined || ms <= 0) throw new UsageError(`${flag} ${String(v)}: want a positive duration such as 500ms, 30s or 5m`);
  return ms;
}

/** --controllers as upstream takes it: comma-separated, `*` for the default set, `-name` to leave one out. */
export function controllerList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  return String(v).split(',').map((s) => s.trim()).filter(Boolean);
}

/** The controller manager's settings from its flags (those given). */
export function controllerSettings(argv: any): Record<string, number> {
  const out: Record<string, number> = {};
  const grace = durationMs(argv.nodeMonitorGracePeriod, '--node-monitor-grace-period');
  if (grace !== undefined) out['nodeMonitorGracePeriodMs'] = grace;
  const period = durationMs(argv.nodeMonitorPeriod, '--node-monitor-period');
  if (period !== undefined) out['nodeMonitorPeriodMs'] = period;
  return out;
}

async function untilSignal(close: () => Promise<void>): Promise<number> {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await close();
  return EXIT.ok;
}

export async function cmdControllerManager(argv: any, flags: Record<string, string>): Promise<number> {
  const api = await componentApi(argv);
  const featureGates = gatesOf(argv);
  const port = portOf(argv.securePort, '--secure-port');
  const { startControllerManager } = await import('../../reference/controllers/manager.js');
  let cm;
  try {
    cm = await startControllerManager({ api, controllers: controllerList(argv.controllers), settings: controllerSettings(argv), featureGates, serve: { host: argv.bindAddress, port }, flags });
  } catch (err) {
    throw new UsageError(`cannot start the controller manager: ${(err as Error).message}`);
  }
  process.stdout.write(`controller-manager: ${cm.url}\n`);
  return untilSignal(() => cm.close());
}

export async function cmdScheduler(argv: any, flags: Record<string, string>): Promise<number> {
  const api = await componentApi(argv);
  const featureGates = gatesOf(argv);
  const port = portOf(argv.securePort, '--secure-port');
  const { startScheduler } = await import('../../reference/scheduler/scheduler.js');
  let s;
  try {
    s = await startScheduler({ api, featureGates, serve: { host: argv.bindAddress, port }, flags });
  } catch (err) {
    throw new UsageError(`cannot start the scheduler: ${(err as Error).message}`);
  }
  process.stdout.write(`scheduler: ${s.url}\n`);
  return untilSignal(() => s.close());
}
