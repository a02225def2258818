// Spec 001 §5.1: the configuration is the main file overlaid by the drop-ins of --config-dir, then
// the command-line flags, then upstream's defaults for whatever is still unset.
//
// Each drop-in is applied as upstream applies it, as a JSON merge patch (RFC 7386) over the result
// so far: a scalar replaces (rule 1), a nested structure merges field by field (rule 2), a list
// replaces whole (rule 3), a map merges per key and a map of string to list replaces the list of
// each key it names (rule 4), and null removes a field.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import { FeatureGateError, FeatureGates, GATES_1_37 } from '../../features.js';
import {
  AGENT_CONFIG_FIELDS,
  checkFields,
  ConfigError,
  decodeConfigFile,
  FLAG_ONLY_FIELDS,
  type AgentConfiguration,
  type FieldType,
} from './configuration.js';
import { parseGoDuration } from './go-duration.js';
import { broken } from '../breaks.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Test-only: a drop-in merged wrongly in exactly one of §5.1's rules (breaks.ts). `path` is where
 * the value sits in the configuration; undefined means: merge as RFC 7386 says.
 */
function brokenMerge(target: unknown, patch: unknown, path: readonly string[]): { value: unknown } | undefined {
  const top = path.length === 1;
  if (top && broken('config-scalars-keep') && !isObject(patch) && !Array.isArray(patch) && target !== undefined && !isObject(target) && !Array.isArray(target)) return { value: target };
  if (top && broken('config-lists-append') && Array.isArray(patch) && Array.isArray(target)) return { value: [...target, ...patch] };
  if (top && broken('config-nested-replace') && path[0] === 'authorization' && isObject(patch)) return { value: structuredClone(patch) };
  if (top && broken('config-maps-replace') && path[0] === 'featureGates' && isObject(patch)) return { value: structuredClone(patch) };
  if (path.length === 2 && path[0] === 'staticPodURLHeader' && broken('config-map-lists-append') && Array.isArray(patch) && Array.isArray(target)) return { value: [...target, ...patch] };
  return undefined;
}

/** RFC 7386 MergePatch(target, patch); undefined entries of the patch are ignored. */
function mergePatch(target: unknown, patch: unknown, path: readonly string[] = []): unknown {
  const b = brokenMerge(target, patch, path);
  if (b) return b.value;
  if (!isObject(patch)) return structuredClone(patch);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    // Test-only (breaks.ts): a drop-in's null leaves the field as it was instead of removing it.
    if (v === null) { if (!broken('config-null-ignored')) delete out[k]; }
    else out[k] = mergePatch(out[k], v, [...path, k]);
  }
  return out;
}

/** A copy without null values at any depth (the main file's nulls mean "unset", as in Go). */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, child] of Object.entries(v)) if (child !== null && child !== undefined) out[k] = withoutNulls(child);
  return out;
}

/**
 * Spec 001 §5.1: the main file overlaid by the drop-ins, in the order given (lexical order of the
 * `*.conf` files of configDir). Scalars replace; nested structures merge field by field; lists
 * replace whole; maps merge per key; a map of string to list replaces per key; null removes.
 */
export function mergeConfig(base: Partial<AgentConfiguration>, ...dropIns: Partial<AgentConfiguration>[]): Partial<AgentConfiguration> {
  let merged: unknown = withoutNulls(base);
  // Test-only (breaks.ts): only the first drop-in is applied.
  for (const dropIn of broken('config-first-drop-in-only') ? dropIns.slice(0, 1) : dropIns) merged = mergePatch(merged, dropIn);
  return withoutNulls(merged) as Partial<AgentConfiguration>;
}

/**
 * The `*.conf` files under dir, recursively, in the order Go's filepath.WalkDir visits them (entries
 * of each directory sorted by name, byte order; a subdirectory is walked where its name sorts).
 */
export function dropInFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Test-only (breaks.ts): the drop-ins walked in reverse lexical order.
    if (broken('config-drop-ins-unsorted')) entries.reverse();
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.conf') && statSync(p).isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${what} ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

/**
 * Flags win over the files. As upstream re-parses the command line over the loaded file: a flag
 * replaces the field whole (a map flag such as --eviction-hard replaces the map), except
 * --feature-gates, whose gates are added to the file's gates (a gate the flag names wins).
 */
function applyFlags(cfg: Json, flags: Json): Json {
  const out: Json = { ...cfg };
  for (const [k, v] of Object.entries(flags)) {
    if (v === undefined) continue;
    if (k === 'featureGates' && isObject(v)) out[k] = { ...(isObject(out[k]) ? out[k] : {}), ...v };
    else out[k] = structuredClone(v);
  }
  return out;
}

/** Upstream's v1beta1 defaults (SetDefaults_KubeletConfiguration) with the spec's paths. */
const DEFAULTS: Json = {
  enableServer: true,
  // Spec 001 §2.1: static pod manifests in /etc/orch/manifests by default.
  staticPodPath: '/etc/orch/manifests',
  // Upstream's default; an agent given a root directory keeps pod logs under <root-dir>/pods instead
  // (loadAgentConfig), so that what /configz says is where the files are.
  podLogsDir: '/var/log/pods',
  syncFrequency: '1m0s',
  fileCheckFrequency: '20s',
  httpCheckFrequency: '20s',
  address: '0.0.0.0',
  port: 10250,
  readOnlyPort: 0,
  authentication: {
    x509: {},
    webhook: { enabled: true, cacheTTL: '2m0s' },
    anonymous: { enabled: false },
  },
  authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
  registryPullQPS: 5,
  registryBurst: 10,
  eventRecordQPS: 50,
  eventBurst: 100,
  enableDebuggingHandlers: true,
  healthzPort: 10248,
  healthzBindAddress: '127.0.0.1',
  oomScoreAdj: -999,
  streamingConnectionIdleTimeout: '4h0m0s',
  nodeStatusUpdateFrequency: '10s',
  nodeStatusReportFrequency: '5m0s',
  nodeLeaseDurationSeconds: 40,
  imageMinimumGCAge: '2m0s',
  imageMaximumGCAge: '0s',
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  volumeStatsAggPeriod: '1m0s',
  cgroupsPerQOS: true,
  cgroupDriver: 'cgroupfs',
  cpuManagerPolicy: 'none',
  cpuManagerReconcilePeriod: '10s',
  memoryManagerPolicy: 'None',
  topologyManagerPolicy: 'none',
  topologyManagerScope: 'container',
  runtimeRequestTimeout: '2m0s',
  hairpinMode: 'promiscuous-bridge',
  maxPods: 110,
  podPidsLimit: -1,
  resolvConf: '/etc/resolv.conf',
  cpuCFSQuota: true,
  cpuCFSQuotaPeriod: '100ms',
  nodeStatusMaxImages: 50,
  maxOpenFiles: 1000000,
  contentType: 'application/vnd.kubernetes.protobuf',
  kubeAPIQPS: 50,
  kubeAPIBurst: 100,
  evictionHard: {
    'imagefs.available': '15%',
    'imagefs.inodesFree': '5%',
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
  },
  evictionPressureTransitionPeriod: '5m0s',
  mergeDefaultEvictionSettings: false,
  enableControllerAttachDetach: true,
  makeIPTablesUtilChains: true,
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  featureGates: {},
  failSwapOn: true,
  memorySwap: {},
  containerLogMaxSize: '10Mi',
  containerLogMaxFiles: 5,
  containerLogMaxWorkers: 1,
  containerLogMonitorInterval: '10s',
  configMapAndSecretChangeDetectionStrategy: 'Watch',
  enforceNodeAllocatable: ['pods'],
  volumePluginDir: '/usr/libexec/kubernetes/agent-plugins/volume/exec/',
  logging: {
    format: 'text',
    flushFrequency: '5s',
    verbosity: 0,
    options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } },
  },
  enableSystemLogHandler: true,
  enableSystemLogQuery: false,
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
  crashLoopBackOff: {},
  enableProfilingHandler: true,
  enableDebugFlagsHandler: true,
  seccompDefault: false,
  memoryThrottlingFactor: 0.9,
  registerNode: true,
  localStorageCapacityIsolation: true,
  containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
  imageServiceEndpoint: '',
  failCgroupV1: true,
};

/**
 * Fills what is unset, field by field inside nested structures (at any depth). Maps such as
 * evictionHard and featureGates are defaulted whole, as upstream defaults them.
 */
function fillDefaults(cfg: Json, defaults: Json, fields: Readonly<Record<string, FieldType>>): Json {
  const out: Json = { ...cfg };
  for (const [k, d] of Object.entries(defaults)) {
    const v = out[k];
    const t = fields[k];
    if (v === undefined) out[k] = structuredClone(d);
    else if (isObject(v) && isObject(d) && typeof t === 'object' && 'struct' in t) out[k] = fillDefaults(v, d, t.struct);
  }
  return out;
}

function withDefaults(cfg: Json): Json {
  const out: Json = { ...cfg };
  // Upstream: the report frequency defaults to the update frequency when only that one is set.
  if (out.nodeStatusReportFrequency === undefined && out.nodeStatusUpdateFrequency !== undefined) {
    out.nodeStatusReportFrequency = out.nodeStatusUpdateFrequency;
  }
  // Upstream: image pulls are serialized unless more than one parallel pull is allowed.
  if (out.serializeImagePulls === undefined) {
    out.serializeImagePulls = !(typeof out.maxParallelImagePulls === 'number' && out.maxParallelImagePulls > 1);
  }
  return fillDefaults(out, DEFAULTS, AGENT_CONFIG_FIELDS);
}

const positiveDurations = ['syncFrequency', 'nodeStatusUpdateFrequency', 'nodeStatusReportFrequency', 'runtimeRequestTimeout'] as const;

/** What upstream's ValidateKubeletConfiguration checks among the fields this agent uses. */
function validate(cfg: AgentConfiguration): void {
  const problems: string[] = [];
  for (const f of positiveDurations) {
    const ns = parseGoDuration(cfg[f]);
    if (typeof ns !== 'number' || ns <= 0) problems.push(`${f} (${cfg[f]}) must be greater than 0`);
  }
  if (cfg.nodeLeaseDurationSeconds <= 0) problems.push('nodeLeaseDurationSeconds must be greater than 0');
  if (cfg.port < 0 || cfg.port > 65535) problems.push(`port (${cfg.port}) must be between 1 and 65535, inclusive (0 picks a free port)`);
  if (cfg.healthzPort < 0 || cfg.healthzPort > 65535) problems.push(`healthzPort (${cfg.healthzPort}) must be between 0 and 65535, inclusive`);
  if (cfg.maxPods < 0) problems.push(`maxPods (${cfg.maxPods}) must not be a negative number`);
  if (cfg.serializeImagePulls && cfg.maxParallelImagePulls !== undefined && cfg.maxParallelImagePulls > 1) {
    problems.push(`maxParallelImagePulls (${cfg.maxParallelImagePulls}) must be 1 or unset when serializeImagePulls is true`);
  }
  if (cfg.maxParallelImagePulls !== undefined && cfg.maxParallelImagePulls < 1) {
    problems.push(`maxParallelImagePulls (${cfg.maxParallelImagePulls}) must be a positive number`);
  }
  if (!cfg.containerRuntimeEndpoint) problems.push('containerRuntimeEndpoint must be set');
  // Upstream's checks of podLogsDir: the runtime is given paths under it.
  if (!isAbsolute(cfg.podLogsDir)) problems.push(`pod logs path ${JSON.stringify(cfg.podLogsDir)} must be absolute path`);
  else if (normalize(cfg.podLogsDir).replace(/(.)\/$/, '$1') !== cfg.podLogsDir) problems.push(`pod logs path ${JSON.stringify(cfg.podLogsDir)} must be normalized`);
  try {
    new FeatureGates(withoutLockedGates(cfg.featureGates));
  } catch (err) {
    if (!(err instanceof FeatureGateError)) throw err;
    problems.push(`featureGates: ${err.message}`);
  }
  if (problems.length) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}

/**
 * The agent's locked gates (GA, such as NodeDeclaredFeatures and KubeletPSI) are "locked and ignored
 * if set" (spec 001 §2.2, 002 §4.2): a value against the lock is left out, with `warn`, not refused
 * (upstream's component-base refuses it; the spec wins).
 */
export function withoutLockedGates(set: Readonly<Record<string, boolean>> | undefined, warn: (message: string) => void = () => undefined): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(set ?? {})) {
    const info = GATES_1_37[name];
    // Test-only (breaks.ts): a locked gate set against its lock is refused.
    if (info?.locked && value !== info.default && !broken('locked-gates-refused')) {
      warn(`feature gate ${name} is locked to ${info.default} (${info.stage}); ignoring ${name}=${value}`);
      continue;
    }
    out[name] = value;
  }
  return out;
}

/**
 * Reads --config (optional) and every `*.conf` under --config-dir (lexical order, recursively),
 * decodes each strictly, merges them (§5.1), applies the flags (flags win), fills upstream's
 * defaults and validates. Empty drop-in files are skipped, as upstream skips them.
 */
export function loadAgentConfig(opts: { configFile?: string; configDir?: string; flags: Partial<AgentConfiguration> }): AgentConfiguration {
  // Test-only (breaks.ts): the --config file read but not used.
  const base = opts.configFile && !broken('config-file-ignored') ? decodeConfigFile(opts.configFile, readText(opts.configFile, 'agent config file')) : {};
  const dropIns: Partial<AgentConfiguration>[] = [];
  if (opts.configDir) {
    let files: string[];
    try {
      if (!statSync(opts.configDir).isDirectory()) throw new Error('not a directory');
      files = dropInFiles(opts.configDir);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`cannot read agent config directory ${JSON.stringify(opts.configDir)}: ${(err as Error).message}`);
    }
    for (const file of files) {
      const text = readText(file, 'agent config drop-in file');
      if (text.trim() === '') continue;
      dropIns.push(decodeConfigFile(file, text, { lenient: broken('config-drop-in-lenient') }));
    }
  }
  const flagValues = Object.fromEntries(Object.entries(opts.flags).filter(([, v]) => v !== undefined));
  const flags = checkFields('command-line flags', flagValues, { ...AGENT_CONFIG_FIELDS, ...FLAG_ONLY_FIELDS });
  // Test-only (breaks.ts): the flags applied under the drop-ins, so that a drop-in wins over a flag.
  const merged = broken('config-flags-lose')
    ? mergeConfig(applyFlags(base as Json, flags as Json), ...dropIns) as Json
    : applyFlags(mergeConfig(base, ...dropIns) as Json, flags as Json);
  // Pod logs live in the agent's root directory unless the configuration names another place.
  if (merged.podLogsDir === undefined && typeof merged.rootDir === 'string' && merged.rootDir) merged.podLogsDir = resolve(merged.rootDir, 'pods');
  const cfg = withDefaults(merged) as unknown as AgentConfiguration;
  validate(cfg);
  return cfg;
}

function ordered(value: unknown, type: FieldType | undefined): unknown {
  if (type === undefined || typeof type !== 'object' || Array.isArray(value) || !isObject(value)) return value;
  if ('struct' in type) {
    const out: Json = {};
    for (const [k, t] of Object.entries(type.struct)) if (value[k] !== undefined) out[k] = ordered(value[k], t);
    return out;
  }
  if ('map' in type) {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, ordered(value[k], type.map)]));
  }
  return value;
}

/**
 * What /configz serves: `{"agentconfig": {...}}`, upstream's `{"kubeletconfig": ...}` renamed: the
 * v1beta1 fields with defaults filled in, in upstream's order, without kind or apiVersion (upstream
 * leaves its TypeMeta empty) and without flag-only settings such as rootDir.
 */
export function configzBody(cfg: AgentConfiguration): { agentconfig: Record<string, unknown> } {
  const inner = ordered(cfg, { struct: AGENT_CONFIG_FIELDS }) as Json;
  // Upstream marks imageServiceEndpoint omitempty.
  if (inner.imageServiceEndpoint === '') delete inner.imageServiceEndpoint;
  return { agentconfig: inner };
}
