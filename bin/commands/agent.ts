// `agent`: the reference node agent (reference/agent/) as a process. Reaches the control plane through
// --kubeconfig or --api/--token/--token-file/--ca, or runs standalone without them; prints
// `node: <name>` once registered, then `agent: https://<addr>:<port>` (and `ca: <file>` when the
// serving pair was generated) once its endpoints serve; stops on SIGINT/SIGTERM, leaving containers
// running as upstream does across agent restarts. Order of start-up: the lock file first (a second
// agent must not touch anything), then the configuration (--config, --config-dir, flags win), then
// the agent itself.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { ConfigError, decodeConfigFile, type AgentConfiguration } from '../../reference/agent/config/configuration.js';
import { configzBody, dropInFiles, loadAgentConfig, withoutLockedGates } from '../../reference/agent/config/merge.js';
import { durationMs } from '../../reference/agent/config/go-duration.js';
import { acquireLock, LockHeldError } from '../../reference/agent/lock.js';
import { FeatureGateError, FeatureGates } from '../../reference/features.js';
import { loadKubeconfig } from '../../runner/kubeconfig.js';
import { UsageError } from '../../runner/errors.js';
import { startAgent, type RunningAgent } from '../../reference/agent/agent.js';
import { EXIT } from './exit-codes.js';
import { broken } from '../../reference/agent/breaks.js';
import { authSettingsOf, withAuthFlags, type AgentAuthSettings } from '../../reference/agent/auth/settings.js';

export interface AgentArgs {
  kubeconfig?: string;
  api?: string;
  token?: string;
  tokenFile?: string;
  ca?: string;
  containerRuntimeEndpoint?: string;
  imageServiceEndpoint?: string;
  rootDir: string;
  hostnameOverride?: string;
  nodeName?: string;
  nodeIp?: string;
  checkpointDefaultTimeout?: number;
  port?: number;
  address?: string;
  featureGates?: string;
  config?: string;
  configDir?: string;
  certDir?: string;
  lockFile?: string;
  anonymousAuth?: boolean;
  authenticationTokenWebhook?: boolean;
  clientCaFile?: string;
  authorizationMode?: string;
}

async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** Parses `Name=true,Other=false` into a map (the syntax of upstream's --feature-gates). */
function parseGateFlag(spec: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/i.exec(part);
    if (!m) throw new UsageError(`--feature-gates: invalid entry "${part}": want Name=true or Name=false`);
    out[m[1]!] = m[2]!.toLowerCase() === 'true';
  }
  return out;
}

/** Whether the configuration files (not the defaults) set a field: the runtime endpoint must come from somewhere. */
function filesSet(field: keyof AgentConfiguration, configFile?: string, configDir?: string): boolean {
  const files = [...(configFile ? [configFile] : []), ...(configDir ? dropInFiles(configDir) : [])];
  return files.some((f) => {
    const text = readFileSync(f, 'utf8');
    return text.trim() !== '' && decodeConfigFile(f, text)[field] !== undefined;
  });
}

/** /flagz: the agent's flags in effect (the token is never shown). */
function flagValues(args: AgentArgs, cfg: AgentConfiguration): Record<string, string> {
  const v: Record<string, string | undefined> = {
    'address': cfg.address, 'api': args.api, 'ca': args.ca, 'cert-dir': args.certDir, 'config': args.config, 'config-dir': args.configDir,
    'container-runtime-endpoint': cfg.containerRuntimeEndpoint, 'feature-gates': args.featureGates, 'hostname-override': args.hostnameOverride,
    'image-service-endpoint': cfg.imageServiceEndpoint, 'kubeconfig': args.kubeconfig, 'lock-file': args.lockFile, 'node-name': args.nodeName, 'node-ip': args.nodeIp,
    'port': String(cfg.port), 'root-dir': args.rootDir, 'token-file': args.tokenFile, 'checkpoint-default-timeout': String(args.checkpointDefaultTimeout ?? 0),
    'anonymous-auth': String(cfg.authentication?.anonymous?.enabled ?? false), 'authentication-token-webhook': String(cfg.authentication?.webhook?.enabled ?? true),
    'client-ca-file': cfg.authentication?.x509?.clientCAFile, 'authorization-mode': cfg.authorization?.mode,
  };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, x ?? '']));
}

export async function cmdAgent(args: AgentArgs): Promise<number> {
  // The lock comes before anything else: a second agent on the same lock file changes nothing.
  let lock: { release(): Promise<void> } | undefined;
  // Test-only (breaks.ts): --lock-file ignored.
  if (args.lockFile !== undefined && !broken('lock-ignored')) {
    if (args.lockFile.trim() === '') throw new UsageError('--lock-file needs a path');
    try {
      lock = await acquireLock(args.lockFile);
    } catch (err) {
      throw new UsageError(err instanceof LockHeldError ? err.message : `--lock-file: ${(err as Error).message}`);
    }
  }
  try {
    return await runAgent(args);
  } finally {
    await lock?.release();
  }
}

async function runAgent(args: AgentArgs): Promise<number> {
  if (args.token && args.tokenFile) throw new UsageError('give --token or --token-file, not both');
  if (args.nodeIp !== undefined && !isIP(args.nodeIp)) throw new UsageError(`--node-ip ${args.nodeIp}: not an IP address`);
  const ckptTimeout = args.checkpointDefaultTimeout;
  if (ckptTimeout !== undefined && !(Number.isSafeInteger(ckptTimeout) && ckptTimeout >= 0)) throw new UsageError(`--checkpoint-default-timeout ${ckptTimeout}: not a whole number of seconds`);
  const flags: Partial<AgentConfiguration> = {
    containerRuntimeEndpoint: args.containerRuntimeEndpoint,
    imageServiceEndpoint: args.imageServiceEndpoint,
    address: args.address,
    // --port has no CLI default, so the configuration file's port holds unless the flag is given.
    port: args.port,
    featureGates: args.featureGates !== undefined ? parseGateFlag(args.featureGates) : undefined,
    rootDir: args.rootDir,
  };
  let cfg: AgentConfiguration;
  try {
    cfg = loadAgentConfig({ configFile: args.config, configDir: args.configDir, flags });
    if (!args.containerRuntimeEndpoint && !filesSet('containerRuntimeEndpoint', args.config, args.configDir)) {
      throw new UsageError('--container-runtime-endpoint is required (or containerRuntimeEndpoint in --config), e.g. unix:///run/containerd/containerd.sock');
    }
  } catch (err) {
    if (err instanceof ConfigError || err instanceof FeatureGateError) throw new UsageError(err.message);
    throw err;
  }
  // Upstream's authentication and authorization flags, each over its one key of the configuration.
  cfg = withAuthFlags(cfg, { anonymousAuth: args.anonymousAuth, authenticationTokenWebhook: args.authenticationTokenWebhook, clientCaFile: args.clientCaFile, authorizationMode: args.authorizationMode });
  let auth: AgentAuthSettings;
  try {
    auth = authSettingsOf(cfg);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let gates: FeatureGates;
  try {
    gates = new FeatureGates(withoutLockedGates(cfg.featureGates, (m) => process.stderr.write(`agent: ${m}\n`)));
  } catch (err) {
    throw new UsageError(`featureGates: ${(err as Error).message}`);
  }
  let api: { url: string; token?: string; caPem?: string } | undefined;
  if (args.kubeconfig) {
    let k;
    try {
      k = loadKubeconfig(args.kubeconfig);
    } catch (err) {
      throw new UsageError(`--kubeconfig ${args.kubeconfig}: ${(err as Error).message}`);
    }
    api = { url: k.server, token: k.token, caPem: k.caPem };
  }
  if (args.api) api = { ...api, url: args.api };
  // Test-only (breaks.ts): no standalone mode.
  if (!api && broken('standalone-refused')) throw new UsageError('no control plane given (--kubeconfig or --api)');
  if (!api && (args.token || args.tokenFile || args.ca)) throw new UsageError('--token, --token-file and --ca need --api or --kubeconfig');
  if (api) {
    if (args.token) api.token = args.token;
    if (args.tokenFile) api.token = (await readFlagFile('--token-file', args.tokenFile)).trim();
    if (args.ca) api.caPem = await readFlagFile('--ca', args.ca);
  }

  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let agent: RunningAgent;
  try {
    agent = await startAgent({
      api,
      criEndpoint: cfg.containerRuntimeEndpoint,
      imageEndpoint: cfg.imageServiceEndpoint || undefined,
      nodeName: args.nodeName,
      hostnameOverride: args.hostnameOverride,
      nodeIP: args.nodeIp,
      rootDir: args.rootDir,
      podLogsDir: cfg.podLogsDir,
      nodeStatusUpdateFrequencyMs: durationMs(cfg.nodeStatusUpdateFrequency),
      nodeStatusReportFrequencyMs: durationMs(cfg.nodeStatusReportFrequency),
      leaseDurationSeconds: cfg.nodeLeaseDurationSeconds,
      syncFrequencyMs: durationMs(cfg.syncFrequency),
      seccompDefault: cfg.seccompDefault,
      staticPodPath: cfg.staticPodPath || undefined,
      allowedUnsafeSysctls: cfg.allowedUnsafeSysctls,
      fileCheckFrequencyMs: durationMs(cfg.fileCheckFrequency),
      checkpointDefaultTimeoutSeconds: ckptTimeout,
      featureGates: gates,
      evictionHard: cfg.evictionHard,
      evictionPressureTransitionPeriodMs: durationMs(cfg.evictionPressureTransitionPeriod),
      auth,
      serve: { address: cfg.address, port: cfg.port, certDir: broken('certdir-ignored') ? undefined : args.certDir, flags: flagValues(args, cfg), configz: configzBody(cfg) },
      watchdogEnv: process.env,
    });
  } catch (err) {
    throw new UsageError(`cannot start the agent: ${(err as Error).message}`);
  }
  process.stdout.write(`node: ${agent.nodeName}\n`);
  process.stdout.write(`agent: ${agent.url}\n`);
  if (agent.certGenerated && agent.caFile) process.stdout.write(`ca: ${agent.caFile}\n`);
  await stopped;
  await agent.close();
  return EXIT.ok;
}
