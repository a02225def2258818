// Pod admission (spec 001 §1, §2.5), before a pod's first sandbox, in upstream kubelet's order: the
// sysctl allowlist first (safe sysctls, minus those the running kernel cannot namespace, plus the
// configured allowedUnsafeSysctls), then the general predicates against the Node: node selector and
// required node affinity, then resources (pods, cpu, memory, ephemeral-storage) against allocatable
// minus the requests of the pods already admitted. The first failure is the pod's reason, with
// upstream's message; a rejected pod is failed through the status subresource and never reaches the
// runtime (pod-workers.ts).
import * as os from 'node:os';
import { broken } from './breaks.js';
import { parseQuantityJSON } from '../apiserver/quantity.js';

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

// ---- Sysctls ----

type Version = [number, number, number];

/** "6.8.0-1015-gcp" → [6, 8, 0]; undefined when the release does not start with a version. */
export function parseKernelVersion(release: string): Version | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(release.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

const atLeast = (v: Version, min: Version) => v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2];

/**
 * Upstream's safe sysctls with the kernel each needs to be namespaced (§2.5's table). A sysctl whose
 * kernel requirement is not met, or when the kernel version is unknown, is left out of the allowlist,
 * as upstream's SafeSysctlAllowlist does. tcp_syncookies: the spec gives 4.6 for its namespace scope.
 */
export const SAFE_SYSCTLS: ReadonlyArray<{ name: string; kernel?: Version }> = [
  { name: 'kernel.shm_rmid_forced' },
  { name: 'net.ipv4.ip_local_port_range' },
  { name: 'net.ipv4.tcp_syncookies', kernel: [4, 6, 0] },
  { name: 'net.ipv4.ping_group_range' },
  { name: 'net.ipv4.ip_unprivileged_port_start' },
  { name: 'net.ipv4.ip_local_reserved_ports', kernel: [3, 16, 0] },
  { name: 'net.ipv4.tcp_keepalive_time', kernel: [4, 5, 0] },
  { name: 'net.ipv4.tcp_keepalive_intvl', kernel: [4, 5, 0] },
  { name: 'net.ipv4.tcp_keepalive_probes', kernel: [4, 5, 0] },
  { name: 'net.ipv4.tcp_fin_timeout', kernel: [4, 6, 0] },
  { name: 'net.ipv4.tcp_rmem', kernel: [4, 15, 0] },
  { name: 'net.ipv4.tcp_wmem', kernel: [4, 15, 0] },
  { name: 'net.ipv4.tcp_slow_start_after_idle', kernel: [4, 15, 0] },
  { name: 'net.ipv4.tcp_notsent_lowat', kernel: [4, 6, 0] },
];

/** Upstream NormalizeName: when the first separator is a slash, slashes separate and dots become slashes. */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  if (first < 0 || name[first] === '.') return name;
  return name.replace(/[./]/g, (c) => (c === '/' ? '.' : '/'));
}

/** The namespace a sysctl lives in (upstream's namespaceOf): ipc, net, or none (node-level). */
function namespaceOf(name: string): 'ipc' | 'net' | undefined {
  if (name === 'kernel.sem' || name.startsWith('kernel.shm') || name.startsWith('kernel.msg') || name.startsWith('fs.mqueue.')) return 'ipc';
  if (name.startsWith('net.')) return 'net';
  return undefined;
}

export class SysctlAllowlist {
  private readonly names = new Set<string>();
  private readonly prefixes: string[] = [];

  /**
   * `allowedUnsafe`: allowedUnsafeSysctls of the configuration (names, or prefixes ending in `*`);
   * each must be namespaced, as upstream refuses node-level sysctls there.
   */
  constructor(kernelRelease: string = os.release(), allowedUnsafe: readonly string[] = []) {
    const kernel = parseKernelVersion(kernelRelease);
    for (const s of SAFE_SYSCTLS) {
      // Test-only (breaks.ts): `admission-kernel-<sysctl>` makes that sysctl need a kernel no machine has.
      const min: Version | undefined = broken(`admission-kernel-${s.name}`) ? [999, 0, 0] : s.kernel;
      if (!min || (kernel && atLeast(kernel, min))) this.names.add(s.name);
    }
    for (const raw of allowedUnsafe) {
      const p = normalizeSysctlName(raw);
      if (!namespaceOf(p.endsWith('*') ? p.slice(0, -1) : p)) throw new Error(`the sysctls ${JSON.stringify(raw)} are not known to be namespaced`);
      if (p.endsWith('*')) this.prefixes.push(p.slice(0, -1));
      else this.names.add(p);
    }
  }

  has(name: string): boolean { return this.names.has(normalizeSysctlName(name)); }

  /** Upstream's validateSysctl: the error text, or undefined when the sysctl is allowed. */
  validate(raw: string, hostNet: boolean, hostIPC: boolean): string | undefined {
    const name = normalizeSysctlName(raw);
    const allowed = this.names.has(name) || this.prefixes.some((p) => name.startsWith(p));
    if (!allowed) return `${JSON.stringify(name)} not allowlisted`;
    const ns = namespaceOf(name);
    if (ns === 'ipc' && hostIPC) return `${JSON.stringify(name)} not allowed with host ipc enabled`;
    if (ns === 'net' && hostNet) return `${JSON.stringify(name)} not allowed with host net enabled`;
    return undefined;
  }

  admit(pod: any): AdmitResult {
    for (const s of pod?.spec?.securityContext?.sysctls ?? []) {
      const err = this.validate(String(s?.name ?? ''), pod.spec.hostNetwork === true, pod.spec.hostIPC === true);
      if (err) return { admit: false, reason: 'SysctlForbidden', message: `forbidden sysctl: ${err}` };
    }
    return { admit: true };
  }
}

// ---- Node affinity ----

/** One NodeSelectorRequirement against labels (matchExpressions) or fields (matchFields). */
function requirementMatches(r: any, values: Record<string, string>): boolean {
  const has = Object.hasOwn(values, r?.key);
  const v = has ? values[r.key] : undefined;
  const list: string[] = Array.isArray(r?.values) ? r.values.map(String) : [];
  switch (r?.operator) {
    case 'In': return has && list.includes(v!);
    case 'NotIn': return !has || !list.includes(v!);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt':
    case 'Lt': {
      // Both sides must be integers (upstream parses them as int64); anything else does not match.
      if (!has || list.length !== 1 || !/^-?\d+$/.test(v!) || !/^-?\d+$/.test(list[0])) return false;
      return r.operator === 'Gt' ? BigInt(v!) > BigInt(list[0]) : BigInt(v!) < BigInt(list[0]);
    }
    default: return false;
  }
}

/** A term matches when it has at least one requirement and all of them match; terms are ORed. */
function termMatches(term: any, labels: Record<string, string>, fields: Record<string, string>): boolean {
  const exprs: any[] = term?.matchExpressions ?? [];
  const flds: any[] = term?.matchFields ?? [];
  if (exprs.length === 0 && flds.length === 0) return false;
  return exprs.every((r) => requirementMatches(r, labels)) && flds.every((r) => requirementMatches(r, fields));
}

/** nodeSelector (every pair present) and requiredDuringSchedulingIgnoredDuringExecution against the Node. */
export function nodeAffinityMatches(pod: any, node: any): boolean {
  const labels: Record<string, string> = node?.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(pod?.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod?.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  const fields = { 'metadata.name': String(node?.metadata?.name ?? '') };
  return (required.nodeSelectorTerms ?? []).some((t: any) => termMatches(t, labels, fields));
}

// ---- Resources ----

export interface Requests { milliCPU: bigint; memory: bigint; ephemeralStorage: bigint }

const ZERO: Requests = { milliCPU: 0n, memory: 0n, ephemeralStorage: 0n };
const add = (a: Requests, b: Requests): Requests => ({ milliCPU: a.milliCPU + b.milliCPU, memory: a.memory + b.memory, ephemeralStorage: a.ephemeralStorage + b.ephemeralStorage });
const max = (a: Requests, b: Requests): Requests => ({
  milliCPU: a.milliCPU > b.milliCPU ? a.milliCPU : b.milliCPU,
  memory: a.memory > b.memory ? a.memory : b.memory,
  ephemeralStorage: a.ephemeralStorage > b.ephemeralStorage ? a.ephemeralStorage : b.ephemeralStorage,
});

/** milli-units of a quantity; 0 when absent or unparsable (the API server validated it). */
function milli(q: unknown): bigint {
  if (q === undefined || q === null) return 0n;
  const r = parseQuantityJSON(q);
  return r.ok ? r.quantity.milliValue() : 0n;
}
/** Upstream's Value(): whole units, rounded up. */
const whole = (q: unknown): bigint => { const m = milli(q); return m <= 0n ? 0n : (m + 999n) / 1000n; };

function containerRequests(c: any): Requests {
  // A limit without a request counts as the request, as the API server's defaulting makes it.
  const req = { ...(c?.resources?.limits ?? {}), ...(c?.resources?.requests ?? {}) };
  return { milliCPU: milli(req.cpu), memory: whole(req.memory), ephemeralStorage: whole(req['ephemeral-storage']) };
}

/**
 * Upstream's PodRequests: the sum of the regular containers and the restartable (sidecar) init
 * containers, or more if an init container with the sidecars started before it needs more; plus overhead.
 */
export function podRequests(pod: any): Requests {
  const spec = pod?.spec ?? {};
  let reqs = (spec.containers ?? []).reduce((acc: Requests, c: any) => add(acc, containerRequests(c)), ZERO);
  let sidecars = ZERO;
  let initMax = ZERO;
  for (const c of spec.initContainers ?? []) {
    const r = containerRequests(c);
    if (c.restartPolicy === 'Always') {
      reqs = add(reqs, r);
      sidecars = add(sidecars, r);
      initMax = max(initMax, sidecars);
    } else {
      initMax = max(initMax, add(r, sidecars));
    }
  }
  reqs = max(reqs, initMax);
  const o = spec.overhead ?? {};
  return add(reqs, { milliCPU: milli(o.cpu), memory: whole(o.memory), ephemeralStorage: whole(o['ephemeral-storage']) });
}

/** Upstream's InsufficientResourceError, as the kubelet reports it. */
function insufficient(resource: string, requested: bigint, used: bigint, capacity: bigint): AdmitResult {
  return {
    admit: false, reason: `OutOf${resource}`,
    message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  };
}

/** Upstream's Fits: pods first, then cpu, memory, ephemeral-storage against allocatable minus what is admitted. */
export function resourcesFit(pod: any, node: any, admitted: readonly any[]): AdmitResult {
  const alloc = node?.status?.allocatable ?? node?.status?.capacity ?? {};
  const maxPods = whole(alloc.pods);
  if (BigInt(admitted.length) + 1n > maxPods) return insufficient('pods', 1n, BigInt(admitted.length), maxPods);
  const want = podRequests(pod);
  if (want.milliCPU === 0n && want.memory === 0n && want.ephemeralStorage === 0n) return { admit: true };
  const used = admitted.reduce((acc: Requests, p) => add(acc, podRequests(p)), ZERO);
  const cap = { milliCPU: milli(alloc.cpu), memory: whole(alloc.memory), ephemeralStorage: whole(alloc['ephemeral-storage']) };
  if (want.milliCPU > 0n && want.milliCPU > cap.milliCPU - used.milliCPU) return insufficient('cpu', want.milliCPU, used.milliCPU, cap.milliCPU);
  if (want.memory > 0n && want.memory > cap.memory - used.memory) return insufficient('memory', want.memory, used.memory, cap.memory);
  if (want.ephemeralStorage > 0n && want.ephemeralStorage > cap.ephemeralStorage - used.ephemeralStorage) {
    return insufficient('ephemeral-storage', want.ephemeralStorage, used.ephemeralStorage, cap.ephemeralStorage);
  }
  return { admit: true };
}

// ---- All together ----

/** Upstream's order: sysctls, then node affinity, then resources; the first failure wins. */
export function admitPod(pod: any, node: any, admitted: readonly any[], sysctls: SysctlAllowlist): AdmitResult {
  const s = sysctls.admit(pod);
  if (!s.admit) return s;
  if (!nodeAffinityMatches(pod, node)) {
    return { admit: false, reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" };
  }
  return resourcesFit(pod, node, admitted);
}

/** The status upstream's rejectPod sets: phase Failed, the reason, "Pod was rejected: <message>". */
export function rejectedStatus(pod: any, r: { reason: string; message: string }, now: string): any {
  const old = pod?.status ?? {};
  return {
    phase: 'Failed', reason: r.reason, message: `Pod was rejected: ${r.message}`,
    startTime: old.startTime ?? now,
    ...(old.qosClass ? { qosClass: old.qosClass } : {}),
  };
}

/**
 * The Node as the agent knows it without the API (standalone mode, or before registration): upstream's
 * initial node, with the well-known labels and the machine's capacity as allocatable.
 */
export function localNode(nodeName: string, o: { hostnameOverride?: string; maxPods?: number } = {}): any {
  const arch: Record<string, string> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le' };
  const capacity = { cpu: String(os.availableParallelism()), memory: `${Math.floor(os.totalmem() / 1024)}Ki`, pods: String(o.maxPods ?? 110) };
  return {
    metadata: { name: nodeName, labels: { 'orch.io/hostname': o.hostnameOverride ?? nodeName, 'orch.io/os': process.platform, 'orch.io/arch': arch[process.arch] ?? process.arch } },
    status: { capacity, allocatable: capacity },
  };
}
