// Spec 001 §2.1: the agent's files under <root_dir> (default /var/lib/agent). Directories are
// private (0700: only the agent and the runtime, both root, use them; checkpoints hold memory
// dumps, pki holds keys, the sockets under pods/ and pod-resources/ are for root only) and files
// 0600. Paths the spec says are hard-coded outside the root dir (the device manager checkpoint,
// the device plugin socket, the graceful shutdown state) are not created here.
//
// Resource-manager state files are written in upstream's JSON shape, checksum included (FNV-32a over
// go-spew's `%#v` of the checkpoint, as upstream's checkpointmanager computes it), so tools that read
// a kubelet's state read these: with the only policies this agent has (cpu `none`, memory `None`, no
// DRA claims) they are byte for byte what upstream writes.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { broken } from './breaks.js';

export const CPU_MANAGER_STATE = 'cpu_manager_state';
export const MEMORY_MANAGER_STATE = 'memory_manager_state';
export const DRA_MANAGER_STATE = 'dra_manager_state';
export const ALLOCATED_PODS_STATE = 'allocated_pods_state';
export const ACTUATED_PODS_STATE = 'actuated_pods_state';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export class RootDirError extends Error {
  override readonly name = 'RootDirError';
}

/** FNV-1a 32 bits, upstream's checkpoint checksum hash. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Go's encoding/json escapes these in strings; JSON.stringify does not. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Upstream's cpu_manager_state for policy `none` (checksum over `(*state.CPUManagerCheckpoint){...}`). */
export function cpuManagerState(): string {
  const spew = '(*state.CPUManagerCheckpoint){PolicyName:(string)none DefaultCPUSet:(string) Entries:(map[string]map[string]string)map[] Checksum:(checksum.Checksum)0}';
  return goJson({ policyName: 'none', defaultCpuSet: '', checksum: fnv32a(spew) });
}

/** Upstream's memory_manager_state for policy `None`. */
export function memoryManagerState(): string {
  const spew =
    '(*state.MemoryManagerCheckpoint){PolicyName:(string)None MachineState:(state.NUMANodeMap)map[] Entries:(state.ContainerMemoryAssignments)map[] Checksum:(checksum.Checksum)0}';
  return goJson({ policyName: 'None', machineState: {}, checksum: fnv32a(spew) });
}

/** Upstream's dra_manager_state with no claims: the data as a JSON string and its CRC-32 (IEEE). */
export function draManagerState(): string {
  const data = goJson({ kind: 'DRACheckpoint', apiVersion: 'checkpoint.dra.kubelet.k8s.io/v1', Entries: null });
  return goJson({ Data: data, Checksum: crc32(Buffer.from(data, 'utf8')) });
}

/** One pod's entry in allocated_pods_state / actuated_pods_state (upstream PodResourceInfo). */
export interface PodResourceInfo {
  ContainerResources: Record<string, { limits?: Record<string, string>; requests?: Record<string, string>; claims?: unknown[] }>;
  PodLevelResources: { limits?: Record<string, string>; requests?: Record<string, string> } | null;
}

/** Upstream's allocation checkpoint: `{"data": "<{\"entries\":{uid: info}}>", "checksum": fnv32a("(string)" + data)}`. */
export function podResourcesState(entries: Readonly<Record<string, PodResourceInfo>>): string {
  const sorted = Object.fromEntries(Object.keys(entries).sort().map((uid) => [uid, entries[uid]]));
  const data = goJson(Object.keys(sorted).length ? { entries: sorted } : {});
  return goJson({ data, checksum: fnv32a(`(string)${data}`) });
}

/** Parses an allocation checkpoint; undefined when it is missing, malformed or its checksum is wrong. */
export function parsePodResourcesState(text: string): Record<string, PodResourceInfo> | undefined {
  try {
    const cp = JSON.parse(text) as { data?: unknown; checksum?: unknown };
    if (typeof cp.data !== 'string' || cp.checksum !== fnv32a(`(string)${cp.data}`)) return undefined;
    const data = JSON.parse(cp.data) as { entries?: Record<string, PodResourceInfo> };
    return data.entries ?? {};
  } catch {
    return undefined;
  }
}

function resourcesOf(r: any): { limits?: Record<string, string>; requests?: Record<string, string> } {
  const out: { limits?: Record<string, string>; requests?: Record<string, string> } = {};
  if (r?.limits && Object.keys(r.limits).length) out.limits = { ...r.limits };
  if (r?.requests && Object.keys(r.requests).length) out.requests = { ...r.requests };
  return out;
}

/** The resources a pod's spec asks for, per container (init containers and containers), as upstream records them. */
export function podResourceInfo(pod: any): PodResourceInfo {
  const ContainerResources: PodResourceInfo['ContainerResources'] = {};
  for (const c of [...(pod?.spec?.initContainers ?? []), ...(pod?.spec?.containers ?? [])]) {
    if (typeof c?.name === 'string') ContainerResources[c.name] = resourcesOf(c.resources);
  }
  return { ContainerResources, PodLevelResources: pod?.spec?.resources ? resourcesOf(pod.spec.resources) : null };
}

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { mode: FILE_MODE });
  await chmod(tmp, FILE_MODE);
  await rename(tmp, path);
}

/** Creates a private directory, or makes an existing one private (drops group and other bits). */
async function privateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: DIR_MODE });
  const st = await stat(path);
  if (!st.isDirectory()) throw new RootDirError(`${path} exists and is not a directory`);
  if ((st.mode & 0o077) !== 0) await chmod(path, st.mode & 0o700);
}

/** A pod-resource record (allocated_pods_state or actuated_pods_state) kept in memory and on disk. */
export interface PodResourceRecords {
  readonly path: string;
  /** Records (or replaces) the pod's resources, from its spec. */
  record(pod: any): Promise<void>;
  /** Forgets a pod (it was removed from the node). */
  remove(uid: string): Promise<void>;
  /** What is recorded, by pod UID. */
  entries(): Readonly<Record<string, PodResourceInfo>>;
}

async function podResourceRecords(path: string): Promise<PodResourceRecords> {
  let entries: Record<string, PodResourceInfo> = {};
  try {
    // Records survive a restart, as upstream's do; a corrupt file starts over.
    entries = parsePodResourcesState(await readFile(path, 'utf8')) ?? {};
  } catch {
    // missing: start empty
  }
  // Writes are chained so that two records never race on the file.
  let chain: Promise<void> = writeAtomic(path, podResourcesState(entries));
  const persist = (): Promise<void> => {
    const snapshot = podResourcesState(entries);
    chain = chain.catch(() => {}).then(() => writeAtomic(path, snapshot));
    return chain;
  };
  await chain;
  return {
    path,
    record(pod) {
      const uid = pod?.metadata?.uid;
      if (typeof uid !== 'string' || uid === '') return Promise.reject(new RootDirError('cannot record a pod without metadata.uid'));
      // Test-only (breaks.ts): admitted pods not recorded in allocated_pods_state.
      if (broken('rootdir-no-allocation-records') && path.endsWith(ALLOCATED_PODS_STATE)) return Promise.resolve();
      entries = { ...entries, [uid]: podResourceInfo(pod) };
      return persist();
    },
    remove(uid) {
      if (!(uid in entries)) return chain;
      const { [uid]: _gone, ...rest } = entries;
      entries = rest;
      return persist();
    },
    entries: () => entries,
  };
}

export interface RootDirLayout {
  readonly rootDir: string;
  /** `checkpoints/`: container checkpoint archives (§4.1). */
  readonly checkpointsDir: string;
  /** `pods/`: per-pod directories and the pod info socket `pods/agent.sock` (§4.2). */
  readonly podsDir: string;
  readonly podInfoSocket: string;
  /** `plugins/`: per-plugin state. */
  readonly pluginsDir: string;
  /** `plugins_registry/`: where DRA, storage and device plugins put their registration sockets. */
  readonly pluginsRegistryDir: string;
  /** `pod-resources/`: the pod resources API socket's directory. */
  readonly podResourcesDir: string;
  /** `seccomp/`: Localhost seccomp profiles (§2.4). */
  readonly seccompDir: string;
  /** `pki/`: the default --cert-dir. */
  readonly pkiDir: string;
  /** `image_manager/` with `pulling/` and `pulled/`: image pull records. */
  readonly imageManagerDir: string;
  /** Resource-manager state files. */
  readonly stateFiles: { readonly cpuManager: string; readonly memoryManager: string; readonly draManager: string };
  /** `allocated_pods_state`: resources allocated to each admitted pod. */
  readonly allocatedPods: PodResourceRecords;
  /** `actuated_pods_state`: resources the runtime accepted and applied. */
  readonly actuatedPods: PodResourceRecords;
  /** Creates (0700) and returns `pods/<uid>` with its `volumes/` and `plugins/`. */
  podDir(uid: string): Promise<string>;
  /** Removes `pods/<uid>` (the pod is gone from the node). */
  removePodDir(uid: string): Promise<void>;
}

/** A cpu_manager_state from another policy cannot be taken over (upstream refuses too). */
async function checkCpuManagerState(path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return;
  }
  let policy: unknown;
  try {
    policy = (JSON.parse(text) as { policyName?: unknown }).policyName;
  } catch {
    return; // corrupt: rewritten, as upstream rewrites a checkpoint it cannot read
  }
  if (policy !== undefined && policy !== 'none') {
    throw new RootDirError(
      `could not restore state from checkpoint ${path}: configured policy "none" differs from state checkpoint policy ${JSON.stringify(policy)}; drain this node and delete the CPU manager checkpoint file before restarting the agent`,
    );
  }
}

const POD_UID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Spec 001 §2.1: creates the root dir layout and the state files; returns their paths and the pod records. */
export async function prepareRootDir(rootDir: string): Promise<RootDirLayout> {
  if (!rootDir) throw new RootDirError('the root dir must not be empty');
  const p = (...parts: string[]): string => join(rootDir, ...parts);
  const dirs = {
    checkpointsDir: p('checkpoints'),
    podsDir: p('pods'),
    pluginsDir: p('plugins'),
    pluginsRegistryDir: p('plugins_registry'),
    podResourcesDir: p('pod-resources'),
    seccompDir: p('seccomp'),
    pkiDir: p('pki'),
    imageManagerDir: p('image_manager'),
  };
  // Test-only (breaks.ts): one entry of the layout left out.
  const skipped = new Set([
    ...(broken('rootdir-no-plugins-registry') ? [dirs.pluginsRegistryDir] : []),
    ...(broken('rootdir-no-pod-resources') ? [dirs.podResourcesDir] : []),
    ...(broken('rootdir-no-image-manager') ? [dirs.imageManagerDir] : []),
  ]);
  try {
    await privateDir(rootDir);
    for (const d of Object.values(dirs)) if (!skipped.has(d)) await privateDir(d);
    if (!skipped.has(dirs.imageManagerDir)) {
      await privateDir(p('image_manager', 'pulling'));
      await privateDir(p('image_manager', 'pulled'));
    }
  } catch (err) {
    if (err instanceof RootDirError) throw err;
    throw new RootDirError(`cannot prepare root dir ${rootDir}: ${(err as Error).message}`);
  }
  const stateFiles = { cpuManager: p(CPU_MANAGER_STATE), memoryManager: p(MEMORY_MANAGER_STATE), draManager: p(DRA_MANAGER_STATE) };
  await checkCpuManagerState(stateFiles.cpuManager);
  await writeAtomic(stateFiles.cpuManager, cpuManagerState());
  await writeAtomic(stateFiles.memoryManager, memoryManagerState());
  if (!broken('rootdir-no-dra-state')) await writeAtomic(stateFiles.draManager, draManagerState());
  const allocatedPods = await podResourceRecords(p(ALLOCATED_PODS_STATE));
  const actuatedPods = await podResourceRecords(p(ACTUATED_PODS_STATE));

  const podPath = (uid: string): string => {
    if (!POD_UID.test(uid)) throw new RootDirError(`invalid pod uid ${JSON.stringify(uid)}`);
    return join(dirs.podsDir, uid);
  };
  return {
    rootDir,
    ...dirs,
    podInfoSocket: join(dirs.podsDir, 'agent.sock'),
    stateFiles,
    allocatedPods,
    actuatedPods,
    async podDir(uid) {
      const dir = podPath(uid);
      await privateDir(dir);
      await privateDir(join(dir, 'volumes'));
      await privateDir(join(dir, 'plugins'));
      return dir;
    },
    async removePodDir(uid) {
      await rm(podPath(uid), { recursive: true, force: true });
    },
  };
}
