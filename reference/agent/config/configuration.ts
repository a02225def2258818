// The agent's configuration file (spec 001 §2.3): an `AgentConfiguration` of
// `agent.config.orch.io/v1beta1`, upstream's KubeletConfiguration v1beta1 renamed. Every upstream
// field is known to the decoder (so a file written for upstream decodes), in upstream's struct order
// (which /configz keeps); the TypeScript interface names the ones this agent reads.
//
// Decoding is strict, as issue 11 asks: unknown fields and duplicate keys are refused. (Upstream's
// kubelet retries a v1beta1 file leniently and only logs the strict error; refusing is the stricter
// of the two and tells an operator about a typo at once.)
import { yaml } from '../../packages.js';
import { formatGoDuration, parseGoDuration } from './go-duration.js';
import { broken } from '../breaks.js';

export const AGENT_CONFIG_API_VERSION = 'agent.config.orch.io/v1beta1';
export const AGENT_CONFIG_KIND = 'AgentConfiguration';

/** Field types of the schema: Go's JSON decoding rules for each. */
export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'float'
  | 'duration'
  /** Free-form (logging options, taints): any JSON value. */
  | 'any'
  | { readonly list: FieldType }
  | { readonly map: FieldType }
  | { readonly struct: Readonly<Record<string, FieldType>> };

const S = 'string' as const;
const B = 'bool' as const;
const I32 = 'int32' as const;
const I64 = 'int64' as const;
const D = 'duration' as const;
const list = (of: FieldType): FieldType => ({ list: of });
const map = (of: FieldType): FieldType => ({ map: of });
const struct = (fields: Record<string, FieldType>): FieldType => ({ struct: fields });

const TAINT = struct({ key: S, value: S, effect: S, timeAdded: S });

/** Upstream KubeletConfiguration v1beta1 (release 1.37), field by field in its struct order. */
export const AGENT_CONFIG_FIELDS: Readonly<Record<string, FieldType>> = {
  enableServer: B,
  staticPodPath: S,
  podLogsDir: S,
  syncFrequency: D,
  fileCheckFrequency: D,
  httpCheckFrequency: D,
  staticPodURL: S,
  staticPodURLHeader: map(list(S)),
  address: S,
  port: I32,
  readOnlyPort: I32,
  tlsCertFile: S,
  tlsPrivateKeyFile: S,
  tlsCipherSuites: list(S),
  tlsMinVersion: S,
  rotateCertificates: B,
  serverTLSBootstrap: B,
  authentication: struct({
    x509: struct({ clientCAFile: S }),
    webhook: struct({ enabled: B, cacheTTL: D }),
    anonymous: struct({ enabled: B }),
  }),
  authorization: struct({
    mode: S,
    webhook: struct({ cacheAuthorizedTTL: D, cacheUnauthorizedTTL: D }),
  }),
  registryPullQPS: I32,
  registryBurst: I32,
  imagePullCredentialsVerificationPolicy: S,
  preloadedImagesVerificationAllowlist: list(S),
  eventRecordQPS: I32,
  eventBurst: I32,
  enableDebuggingHandlers: B,
  enableContentionProfiling: B,
  healthzPort: I32,
  healthzBindAddress: S,
  oomScoreAdj: I32,
  clusterDomain: S,
  clusterDNS: list(S),
  streamingConnectionIdleTimeout: D,
  nodeStatusUpdateFrequency: D,
  nodeStatusReportFrequency: D,
  nodeLeaseDurationSeconds: I32,
  imageMinimumGCAge: D,
  imageMaximumGCAge: D,
  imageGCHighThresholdPercent: I32,
  imageGCLowThresholdPercent: I32,
  volumeStatsAggPeriod: D,
  kubeletCgroups: S,
  systemCgroups: S,
  cgroupRoot: S,
  cgroupsPerQOS: B,
  cgroupDriver: S,
  cpuManagerPolicy: S,
  singleProcessOOMKill: B,
  cpuManagerPolicyOptions: map(S),
  cpuManagerReconcilePeriod: D,
  memoryManagerPolicy: S,
  topologyManagerPolicy: S,
  topologyManagerScope: S,
  topologyManagerPolicyOptions: map(S),
  qosReserved: map(S),
  runtimeRequestTimeout: D,
  hairpinMode: S,
  maxPods: I32,
  podCIDR: S,
  podPidsLimit: I64,
  resolvConf: S,
  runOnce: B,
  cpuCFSQuota: B,
  cpuCFSQuotaPeriod: D,
  nodeStatusMaxImages: I32,
  maxOpenFiles: I64,
  contentType: S,
  kubeAPIQPS: I32,
  kubeAPIBurst: I32,
  serializeImagePulls: B,
  maxParallelImagePulls: I32,
  evictionHard: map(S),
  evictionSoft: map(S),
  evictionSoftGracePeriod: map(S),
  evictionPressureTransitionPeriod: D,
  evictionMaxPodGracePeriod: I32,
  evictionMinimumReclaim: map(S),
  mergeDefaultEvictionSettings: B,
  podsPerCore: I32,
  enableControllerAttachDetach: B,
  protectKernelDefaults: B,
  makeIPTablesUtilChains: B,
  iptablesMasqueradeBit: I32,
  iptablesDropBit: I32,
  featureGates: map(B),
  failSwapOn: B,
  memorySwap: struct({ swapBehavior: S }),
  containerLogMaxSize: S,
  containerLogMaxFiles: I32,
  containerLogMaxWorkers: I32,
  containerLogMonitorInterval: D,
  configMapAndSecretChangeDetectionStrategy: S,
  systemReserved: map(S),
  kubeReserved: map(S),
  reservedSystemCPUs: S,
  showHiddenMetricsForVersion: S,
  systemReservedCgroup: S,
  kubeReservedCgroup: S,
  enforceNodeAllocatable: list(S),
  allowedUnsafeSysctls: list(S),
  volumePluginDir: S,
  providerID: S,
  kernelMemcgNotification: B,
  logging: struct({ format: S, flushFrequency: 'any', verbosity: I32, vmodule: 'any', options: 'any' }),
  enableSystemLogHandler: B,
  enableSystemLogQuery: B,
  shutdownGracePeriod: D,
  shutdownGracePeriodCriticalPods: D,
  shutdownGracePeriodByPodPriority: list(struct({ priority: I32, shutdownGracePeriodSeconds: I64 })),
  crashLoopBackOff: struct({ maxContainerRestartPeriod: D }),
  reservedMemory: list(struct({ numaNode: I32, limits: map(S) })),
  enableProfilingHandler: B,
  enableDebugFlagsHandler: B,
  seccompDefault: B,
  memoryThrottlingFactor: 'float',
  registerWithTaints: list(TAINT),
  registerNode: B,
  tracing: struct({ endpoint: S, samplingRatePerMillion: I32 }),
  localStorageCapacityIsolation: B,
  containerRuntimeEndpoint: S,
  imageServiceEndpoint: S,
  failCgroupV1: B,
  userNamespaces: struct({ idsPerPod: I64 }),
};

/**
 * The merged configuration with defaults filled in. Durations are Go duration strings in Go's
 * own form (`1m0s`); `durationMs()` from go-duration.ts turns one into milliseconds. Fields the agent
 * does not read are typed loosely but still carried (and served at /configz).
 */
export interface AgentConfiguration {
  enableServer: boolean;
  staticPodPath: string;
  podLogsDir: string;
  syncFrequency: string;
  fileCheckFrequency: string;
  httpCheckFrequency: string;
  staticPodURL?: string;
  /** Map of header name to values (§2.3): a drop-in replaces one key's list whole. */
  staticPodURLHeader?: Record<string, string[]>;
  address: string;
  /** 0 means any free port (an addition for tests; upstream would default it to 10250). */
  port: number;
  readOnlyPort: number;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsCipherSuites?: string[];
  tlsMinVersion?: string;
  authentication: {
    x509?: { clientCAFile?: string };
    webhook?: { enabled?: boolean; cacheTTL?: string };
    anonymous?: { enabled?: boolean };
  };
  authorization: { mode?: string; webhook?: { cacheAuthorizedTTL?: string; cacheUnauthorizedTTL?: string } };
  healthzPort: number;
  healthzBindAddress: string;
  clusterDomain?: string;
  clusterDNS?: string[];
  nodeStatusUpdateFrequency: string;
  nodeStatusReportFrequency: string;
  nodeLeaseDurationSeconds: number;
  runtimeRequestTimeout: string;
  maxPods: number;
  podPidsLimit: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  /** Eviction thresholds, e.g. `memory.available: 100Mi`. */
  evictionHard: Record<string, string>;
  /** How long a pressure condition stays True after its thresholds stop being met (Go duration). */
  evictionPressureTransitionPeriod: string;
  featureGates: Record<string, boolean>;
  allowedUnsafeSysctls?: string[];
  cpuManagerPolicy: string;
  memoryManagerPolicy: string;
  systemReserved?: Record<string, string>;
  kubeReserved?: Record<string, string>;
  enforceNodeAllocatable: string[];
  providerID?: string;
  seccompDefault: boolean;
  registerWithTaints?: Array<{ key: string; value?: string; effect: string }>;
  registerNode: boolean;
  containerRuntimeEndpoint: string;
  /** '' means: the runtime endpoint serves images too (upstream's rule). */
  imageServiceEndpoint: string;
  /** Not a configuration key upstream (it is the --root-dir flag): accepted from flags only, not served at /configz. */
  rootDir?: string;
}

/** Fields accepted from command-line flags that are not configuration keys. */
export const FLAG_ONLY_FIELDS: Readonly<Record<string, FieldType>> = { rootDir: S };

/** A problem with the configuration: the message names the file (or the flags) and the field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function describe(v: unknown): string {
  const text = JSON.stringify(v);
  return `${kindOf(v)} ${text !== undefined && text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Checks `value` against `type` and returns it normalised (durations in Go's form); type problems
 * go to `errors` as `field "<path>": ...`, unknown fields to `unknown`. null is accepted anywhere:
 * Go leaves the field unset, and in a drop-in it removes the value (JSON merge patch).
 */
function check(value: unknown, type: FieldType, path: string, errors: string[], unknown: string[]): unknown {
  if (value === null) return null;
  const bad = (want: string): undefined => {
    errors.push(`field "${path}": want ${want}, got ${describe(value)}`);
    return undefined;
  };
  if (type === 'any') return value;
  if (type === 'string') return typeof value === 'string' ? value : bad('a string');
  if (type === 'bool') return typeof value === 'boolean' ? value : bad('true or false');
  if (type === 'float') return typeof value === 'number' && Number.isFinite(value) ? value : bad('a number');
  if (type === 'int32' || type === 'int64') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return bad('an integer');
    if (type === 'int32' && (value < INT32_MIN || value > INT32_MAX)) return bad('an integer that fits in 32 bits');
    if (!Number.isSafeInteger(value)) return bad('an integer of at most 53 bits');
    return value;
  }
  // Test-only (breaks.ts): a string taken for a list of one string.
  if (typeof type === 'object' && 'list' in type && typeof value === 'string' && broken('config-types-loose')) return [value];
  if (type === 'duration') {
    if (typeof value !== 'string') return bad('a duration string such as "1m0s"');
    const ns = parseGoDuration(value);
    if (typeof ns !== 'number') {
      errors.push(`field "${path}": ${ns.error}`);
      return undefined;
    }
    return formatGoDuration(ns);
  }
  if ('list' in type) {
    if (!Array.isArray(value)) return bad('a list');
    return value.map((item, i) => check(item, type.list, `${path}[${i}]`, errors, unknown));
  }
  if (typeof value !== 'object' || Array.isArray(value)) return bad('a mapping');
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const childPath = path ? `${path}.${k}` : k;
    if ('map' in type) {
      out[k] = check(v, type.map, `${path}[${k}]`, errors, unknown);
    } else if (Object.prototype.hasOwnProperty.call(type.struct, k)) {
      out[k] = check(v, type.struct[k]!, childPath, errors, unknown);
    } else {
      unknown.push(childPath);
    }
  }
  return out;
}

/** `duplicate field "a.b"` for every repeated key of a mapping, at any depth, in document order. */
function duplicateFields(node: unknown, path: string, out: string[]): void {
  const Y = yaml();
  if (Y.isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = Y.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const childPath = path ? `${path}.${key}` : key;
      if (seen.has(key)) out.push(`duplicate field "${childPath}"`);
      seen.add(key);
      duplicateFields(pair.value, childPath, out);
    }
  } else if (Y.isSeq(node)) {
    node.items.forEach((item, i) => duplicateFields(item, `${path}[${i}]`, out));
  }
}

/** Checks a whole object against the schema; used for files and for flags. */
export function checkFields(
  source: string,
  value: Record<string, unknown>,
  fields: Readonly<Record<string, FieldType>> = AGENT_CONFIG_FIELDS,
  extraProblems: string[] = [],
): Partial<AgentConfiguration> {
  const errors: string[] = [];
  const unknown: string[] = [];
  const out = check(value, { struct: fields }, '', errors, unknown) as Record<string, unknown>;
  const strict = [...unknown.map((f) => `unknown field "${f}"`), ...extraProblems];
  if (strict.length) throw new ConfigError(`${source}: strict decoding error: ${strict.join(', ')}`);
  if (errors.length) throw new ConfigError(`${source}: ${errors.join('; ')}`);
  return out as Partial<AgentConfiguration>;
}

/**
 * Strict decoding of one file (YAML or JSON, which is YAML): apiVersion and kind must be
 * `agent.config.orch.io/v1beta1` / `AgentConfiguration`; unknown fields and duplicate keys are
 * refused (all listed, as upstream's strict decoder lists them); types are checked. The result has
 * neither apiVersion nor kind; a null value is kept (in a drop-in it removes the field).
 */
export function decodeConfigFile(path: string, text: string, test: { lenient?: boolean } = {}): Partial<AgentConfiguration> {
  const Y = yaml();
  if (text.trim() === '') throw new ConfigError(`agent config file ${JSON.stringify(path)} was empty`);
  const doc = Y.parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length) throw new ConfigError(`${path}: cannot parse: ${doc.errors[0]!.message}`);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${path}: want a mapping with apiVersion, kind and configuration fields, got ${kindOf(value)}`);
  }
  const { apiVersion, kind, ...fields } = value as Record<string, unknown>;
  // Test-only (breaks.ts): a file decoded leniently (no type, unknown fields dropped), or its type not checked.
  if (test.lenient) {
    const known = Object.fromEntries(Object.entries(fields).filter(([k]) => k in AGENT_CONFIG_FIELDS));
    return checkFields(path, known, AGENT_CONFIG_FIELDS);
  }
  if (broken('config-key-refused') && 'staticPodURLHeader' in fields) throw new ConfigError(`${path}: strict decoding error: unknown field "staticPodURLHeader"`);
  if (broken('config-kind-ignored')) return checkFields(path, fields, AGENT_CONFIG_FIELDS);
  if (apiVersion === undefined || apiVersion === null || apiVersion === '') {
    throw new ConfigError(`${path}: field "apiVersion" is missing: want "${AGENT_CONFIG_API_VERSION}"`);
  }
  if (kind === undefined || kind === null || kind === '') {
    throw new ConfigError(`${path}: field "kind" is missing: want "${AGENT_CONFIG_KIND}"`);
  }
  if (apiVersion !== AGENT_CONFIG_API_VERSION) {
    throw new ConfigError(`${path}: field "apiVersion": unsupported version ${JSON.stringify(apiVersion)}, want "${AGENT_CONFIG_API_VERSION}"`);
  }
  if (kind !== AGENT_CONFIG_KIND) {
    throw new ConfigError(`${path}: field "kind": no kind ${JSON.stringify(kind)} is registered for version "${AGENT_CONFIG_API_VERSION}", want "${AGENT_CONFIG_KIND}"`);
  }
  const duplicates: string[] = [];
  duplicateFields(doc.contents, '', duplicates);
  return checkFields(path, fields, AGENT_CONFIG_FIELDS, duplicates);
}
