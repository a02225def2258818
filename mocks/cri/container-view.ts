// What a simulated container sees of itself: its identity (user, groups, capabilities, no_new_privs, seccomp
// mode), its /proc files, /etc files, mounted volumes and its root filesystem, computed from what the CRI
// requests configured (CreateContainer's security context and mounts, RunPodSandbox's hostname and DNS).
// Nothing is enforced: the interpreter (process.ts) only reads and writes through this view, so a script
// can observe what a real runtime would have set up. No real process, namespace or syscall exists.
//
// The view follows containerd (CRI plugin) with runc:
// - user: decided at CreateContainer as containerd decides it (users.ts: the security context's user, else the
//   image's User, names resolved in the simulated /etc/passwd and /etc/group, which /etc/passwd shows here).
// - groups: the primary gid and supplemental_groups (the simulated /etc/group lists no memberships).
// - capabilities: containerd's default set (oci.defaultUnixCaps: CHOWN DAC_OVERRIDE FSETID FOWNER MKNOD
//   NET_RAW SETGID SETUID SETFCAP SETPCAP NET_BIND_SERVICE SYS_CHROOT KILL AUDIT_WRITE = 00000000a80425fb),
//   then add "ALL", drop "ALL", the added ones, the dropped ones, in containerd's order (WithCapabilities);
//   privileged = every capability the kernel knows (cap_last_cap). containerd puts the set in the bounding,
//   permitted and effective sets and, since 1.5.11/1.6.2 (GHSA-c9cp-9c75-9v8c), none in the inheritable set;
//   ambient capabilities (add_ambient_capabilities) go to the inheritable and ambient sets. runc applies them
//   and execs the process as its uid: for uid 0 permitted = effective = the set; for any other uid the kernel's
//   execve rules (capabilities(7), no file capabilities) leave permitted = effective = the ambient set only.
// - /etc/hostname is the sandbox hostname and a newline; /etc/resolv.conf is written from dns_config
//   (search, nameserver lines, options: containerd's parseDNSOptions) or, with no DNS settings, a copy of the
//   host's /etc/resolv.conf; /etc/hosts is a copy of the host's (containerd's setupSandboxFiles) unless a
//   mount targets it (the kubelet mounts its own).
// - mounts show the host path's content (read live, at most 1 MiB per read); a read-only mount and a
//   read-only root refuse writes with EROFS. Container paths are normalised (no `..` escapes); a host path
//   whose real path leaves the mounted directory (a symlink pointing out) is not followed.
import { appendFile, lstat, mkdir, open, readdir, realpath, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, sep, posix } from 'node:path';
import type { ContainerConfig, PodSandboxConfig } from '../../cri/proto.js';
import { GROUPS, PASSWD } from './users.js';
import type { ContainerUser } from './state.js';

// ---------------------------------------------------------------------------------------------
// Identity

export const ETC_PASSWD = PASSWD.map((p) => `${p.name}:x:${p.uid}:${p.gid}:${p.name}:${p.home}:/bin/sh\n`).join('');
export const ETC_GROUP = GROUPS.map((g) => `${g.name}:x:${g.gid}:\n`).join('');

export function userName(uid: number): string | undefined { return PASSWD.find((p) => p.uid === uid)?.name; }
export function groupName(gid: number): string | undefined { return GROUPS.find((g) => g.gid === gid)?.name; }

export interface Identity { uid: number; gid: number; /** Sorted, the primary gid included (the kernel's order). */ groups: number[] }

/** The process identity of the user CreateContainer decided (users.ts, as containerd decides it). */
export function identityOf(user: ContainerUser): Identity {
  const groups = [...new Set([user.gid, ...user.supplementalGroups])].sort((a, b) => a - b);
  return { uid: user.uid, gid: user.gid, groups };
}

// ---------------------------------------------------------------------------------------------
// Capabilities

/** Linux capability numbers (linux/capability.h). */
const CAPS = [
  'CHOWN', 'DAC_OVERRIDE', 'DAC_READ_SEARCH', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP',
  'LINUX_IMMUTABLE', 'NET_BIND_SERVICE', 'NET_BROADCAST', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'IPC_OWNER',
  'SYS_MODULE', 'SYS_RAWIO', 'SYS_CHROOT', 'SYS_PTRACE', 'SYS_PACCT', 'SYS_ADMIN', 'SYS_BOOT', 'SYS_NICE',
  'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'LEASE', 'AUDIT_WRITE', 'AUDIT_CONTROL', 'SETFCAP',
  'MAC_OVERRIDE', 'MAC_ADMIN', 'SYSLOG', 'WAKE_ALARM', 'BLOCK_SUSPEND', 'AUDIT_READ', 'PERFMON', 'BPF',
  'CHECKPOINT_RESTORE',
];

const DEFAULT_CAPS = ['CHOWN', 'DAC_OVERRIDE', 'FSETID', 'FOWNER', 'MKNOD', 'NET_RAW', 'SETGID', 'SETUID', 'SETFCAP',
  'SETPCAP', 'NET_BIND_SERVICE', 'SYS_CHROOT', 'KILL', 'AUDIT_WRITE'];

/** Every capability the host kernel knows, as containerd's privileged containers get (cap_last_cap). */
const LAST_CAP = (() => {
  try { return Math.min(Number(readFileSync('/proc/sys/kernel/cap_last_cap', 'utf8').trim()), CAPS.length - 1); } catch { return CAPS.length - 1; }
})();

function mask(names: Iterable<string>): bigint {
  let m = 0n;
  for (const n of names) {
    const i = CAPS.indexOf(n.toUpperCase().replace(/^CAP_/, ''));
    if (i >= 0 && i <= LAST_CAP) m |= 1n << BigInt(i);
  }
  return m;
}

const ALL_CAPS = (1n << BigInt(LAST_CAP + 1)) - 1n;

export interface CapSets { inh: bigint; prm: bigint; eff: bigint; bnd: bigint; amb: bigint }

export function capabilitySets(config: ContainerConfig, uid: number): CapSets {
  const sc = config.linux?.security_context ?? null;
  let set: bigint;
  let amb = 0n;
  if (sc?.privileged) set = ALL_CAPS;
  else {
    const caps = (sc?.capabilities ?? null) as { add_capabilities?: string[]; drop_capabilities?: string[]; add_ambient_capabilities?: string[] } | null;
    const add = caps?.add_capabilities ?? [];
    const drop = caps?.drop_capabilities ?? [];
    const isAll = (c: string) => c.toUpperCase() === 'ALL';
    set = mask(DEFAULT_CAPS);
    if (add.some(isAll)) set = ALL_CAPS;
    if (drop.some(isAll)) set = 0n;
    set |= mask(add.filter((c) => !isAll(c)));
    set &= ~mask(drop.filter((c) => !isAll(c)));
    amb = mask(caps?.add_ambient_capabilities ?? []) & set;
  }
  return uid === 0 ? { inh: amb, prm: set, eff: set, bnd: set, amb } : { inh: amb, prm: amb, eff: amb, bnd: set, amb };
}

export function hex16(m: bigint): string {
  return m.toString(16).padStart(16, '0');
}

// ---------------------------------------------------------------------------------------------
// The view

export interface MountView { containerPath: string; hostPath: string; readonly: boolean }

export interface ContainerView {
  identity: Identity;
  caps: CapSets;
  noNewPrivs: boolean;
  /** /proc's Seccomp field: 0 disabled, 2 filter. */
  seccompMode: 0 | 2;
  readonlyRoot: boolean;
  /** Longest container path first, so the innermost mount wins. */
  mounts: MountView[];
  /** PID 1's argv (the container's command and args). */
  argv: string[];
  /** Processes besides PID 1: running execs, by their pid inside the container. */
  procs: Map<number, string[]>;
  nextPid: number;
  /** Directories made with mkdir on the writable root. */
  dirs: Set<string>;
}

export function buildView(config: ContainerConfig, opts: { user: ContainerUser; argv: string[]; seccompFilter: boolean }): ContainerView {
  const identity = identityOf(opts.user);
  const sc = config.linux?.security_context ?? null;
  const mounts = ((config.mounts ?? []) as { container_path?: string; host_path?: string; readonly?: boolean }[])
    .filter((m) => m.container_path && m.host_path)
    .map((m) => ({ containerPath: posix.resolve('/', m.container_path!), hostPath: m.host_path!, readonly: m.readonly === true }))
    .sort((a, b) => b.containerPath.length - a.containerPath.length);
  return {
    identity, caps: capabilitySets(config, identity.uid), noNewPrivs: sc?.no_new_privs === true,
    seccompMode: opts.seccompFilter ? 2 : 0, readonlyRoot: sc?.readonly_rootfs === true,
    mounts, argv: opts.argv, procs: new Map(), nextPid: 2, dirs: new Set(),
  };
}

/** Per sandbox: containerd writes these files once, when the sandbox is made, for all its containers. */
const sandboxFileCache = new WeakMap<PodSandboxConfig, [string, string][]>();

/** The sandbox files containerd writes for a container: /etc/hostname, /etc/resolv.conf, /etc/hosts. */
export function sandboxFiles(sandbox: PodSandboxConfig, hostname: string): [string, string][] {
  let files = sandboxFileCache.get(sandbox);
  if (!files) sandboxFileCache.set(sandbox, files = writeSandboxFiles(sandbox, hostname));
  return files;
}

function writeSandboxFiles(sandbox: PodSandboxConfig, hostname: string): [string, string][] {
  const dns = (sandbox.dns_config ?? null) as { servers?: string[]; searches?: string[]; options?: string[] } | null;
  let resolv = '';
  if (dns?.searches?.length) resolv += `search ${dns.searches.join(' ')}\n`;
  if (dns?.servers?.length) resolv += `nameserver ${dns.servers.join('\nnameserver ')}\n`;
  if (dns?.options?.length) resolv += `options ${dns.options.join(' ')}\n`;
  const hostFile = (p: string, fallback: string) => { try { return readFileSync(p, 'utf8').slice(0, MAX_READ); } catch { return fallback; } };
  if (resolv === '') resolv = hostFile('/etc/resolv.conf', '');
  return [
    ['/etc/hostname', `${hostname}\n`],
    ['/etc/resolv.conf', resolv],
    ['/etc/hosts', hostFile('/etc/hosts', '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n')],
  ];
}

/** The /proc/<pid>/status of a process of the container (the fields tools read; values of an idle process). */
export function procStatus(view: ContainerView, pid: number, argv: string[]): string {
  const { uid, gid, groups } = view.identity;
  const name = posix.basename(argv[0] ?? '').slice(0, 15);
  const c = view.caps;
  return [
    `Name:\t${name}`, 'Umask:\t0022', 'State:\tS (sleeping)', `Tgid:\t${pid}`, 'Ngid:\t0', `Pid:\t${pid}`, `PPid:\t${pid === 1 ? 0 : 1}`,
    'TracerPid:\t0', `Uid:\t${uid}\t${uid}\t${uid}\t${uid}`, `Gid:\t${gid}\t${gid}\t${gid}\t${gid}`, 'FDSize:\t64',
    `Groups:\t${groups.join(' ')}`, `NStgid:\t${pid}`, `NSpid:\t${pid}`, `NSpgid:\t${pid}`, `NSsid:\t${pid}`,
    `CapInh:\t${hex16(c.inh)}`, `CapPrm:\t${hex16(c.prm)}`, `CapEff:\t${hex16(c.eff)}`, `CapBnd:\t${hex16(c.bnd)}`, `CapAmb:\t${hex16(c.amb)}`,
    `NoNewPrivs:\t${view.noNewPrivs ? 1 : 0}`, `Seccomp:\t${view.seccompMode}`, `Seccomp_filters:\t${view.seccompMode === 2 ? 1 : 0}`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The filesystem

export const MAX_READ = 1024 * 1024;

export type FsError = 'ENOENT' | 'EROFS' | 'EISDIR' | 'ENOTDIR' | 'EACCES' | 'EFBIG';

export const FS_MESSAGES: Record<FsError, string> = {
  ENOENT: 'No such file or directory', EROFS: 'Read-only file system', EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory', EACCES: 'Permission denied', EFBIG: 'File too large',
};

/** The directories of the simulated image, present in every container. */
const IMAGE_DIRS = ['/', '/bin', '/dev', '/dev/shm', '/etc', '/home', '/proc', '/root', '/run', '/sys', '/tmp', '/usr', '/usr/bin', '/var'];
const IMAGE_FILES: Record<string, string> = { '/etc/passwd': ETC_PASSWD, '/etc/group': ETC_GROUP };

/** The process doing a read (for /proc/self). */
export interface Reader { pid: number; argv: string[] }

type Located =
  | { at: 'mount'; mount: MountView; rel: string }
  | { at: 'proc'; pid?: number; file?: string }
  | { at: 'root' };

function isErr<T>(v: T | FsError): v is FsError {
  return typeof v === 'string' && v in FS_MESSAGES;
}

function under(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/**
 * A container's files: its mounts (real host files), /proc, and the root (the in-memory `files` of the
 * container plus the image's directories). Paths given are absolute and normalised (posix.resolve).
 */
export class ContainerFs {
  constructor(private readonly files: Map<string, string>, private readonly view: ContainerView) {}

  private locate(path: string, reader: Reader): Located {
    const m = this.view.mounts.find((mt) => under(mt.containerPath, path));
    if (m) return { at: 'mount', mount: m, rel: path.slice(m.containerPath.length).replace(/^\//, '') };
    if (under('/proc', path)) {
      const [, , pidPart, file, ...rest] = path.split('/');
      if (pidPart === undefined) return { at: 'proc' };
      const pid = pidPart === 'self' ? reader.pid : /^\d+$/.test(pidPart) ? Number(pidPart) : NaN;
      if (rest.length || !this.argvOf(pid)) return { at: 'proc', pid: NaN };
      return { at: 'proc', pid, file };
    }
    return { at: 'root' };
  }

  private argvOf(pid: number): string[] | undefined {
    return pid === 1 ? this.view.argv : this.view.procs.get(pid);
  }

  /**
   * The real host path for a path inside a mount, refusing what resolves outside the mounted directory
   * (a symlink pointing out). A path that does not exist yet is returned when its parent is inside.
   */
  private async hostPath(m: MountView, rel: string): Promise<string | FsError> {
    let root: string;
    try { root = await realpath(m.hostPath); } catch { return 'ENOENT'; }
    const inside = (p: string) => p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
    const target = rel === '' ? root : join(root, rel);
    try {
      const real = await realpath(target);
      return inside(real) ? real : 'ENOENT';
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') return 'ENOTDIR';
      try {
        const parent = await realpath(posix.dirname(target));
        return inside(parent) ? join(parent, posix.basename(target)) : 'ENOENT';
      } catch { return 'ENOENT'; }
    }
  }

  async kind(path: string, reader: Reader): Promise<'file' | 'dir' | undefined> {
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') {
      const host = await this.hostPath(loc.mount, loc.rel);
      if (isErr(host)) return undefined;
      try { const st = await lstat(host); return st.isDirectory() ? 'dir' : 'file'; } catch { return undefined; }
    }
    if (loc.at === 'proc') {
      if (loc.pid === undefined || (loc.file === undefined && !Number.isNaN(loc.pid))) return 'dir';
      return !Number.isNaN(loc.pid) && (loc.file === 'status' || loc.file === 'cmdline') ? 'file' : undefined;
    }
    if (this.files.has(path) || path in IMAGE_FILES) return 'file';
    if (IMAGE_DIRS.includes(path) || this.view.dirs.has(path)) return 'dir';
    const prefix = `${path}/`;
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return 'dir';
    for (const d of this.view.dirs) if (d.startsWith(prefix)) return 'dir';
    for (const m of this.view.mounts) if (m.containerPath.startsWith(prefix)) return 'dir';
    return undefined;
  }

  async read(path: string, reader: Reader): Promise<string | FsError> {
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') {
      const host = await this.hostPath(loc.mount, loc.rel);
      if (isErr(host)) return host;
      try {
        const fh = await open(host, 'r');
        try {
          if ((await fh.stat()).isDirectory()) return 'EISDIR';
          const buf = Buffer.alloc(MAX_READ);
          const { bytesRead } = await fh.read(buf, 0, MAX_READ, 0);
          return buf.subarray(0, bytesRead).toString('utf8');
        } finally { await fh.close(); }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        return code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR' ? code : 'ENOENT';
      }
    }
    if (loc.at === 'proc') {
      if (loc.pid === undefined || Number.isNaN(loc.pid)) return loc.pid === undefined ? 'EISDIR' : 'ENOENT';
      const argv = loc.pid === reader.pid ? reader.argv : this.argvOf(loc.pid)!;
      if (loc.file === 'cmdline') return argv.map((a) => `${a}\0`).join('');
      if (loc.file === 'status') return procStatus(this.view, loc.pid, argv);
      return loc.file === undefined ? 'EISDIR' : 'ENOENT';
    }
    const content = this.files.get(path) ?? IMAGE_FILES[path];
    if (content !== undefined) return content;
    return (await this.kind(path, reader)) === 'dir' ? 'EISDIR' : 'ENOENT';
  }

  async list(path: string, reader: Reader): Promise<string[] | FsError> {
    const kind = await this.kind(path, reader);
    if (kind === undefined) return 'ENOENT';
    if (kind === 'file') return 'ENOTDIR';
    const names = new Set<string>();
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') {
      const host = await this.hostPath(loc.mount, loc.rel);
      if (isErr(host)) return host;
      try { for (const n of await readdir(host)) names.add(n); } catch { return 'EACCES'; }
    } else if (loc.at === 'proc') {
      if (loc.pid === undefined) for (const p of ['1', 'self', ...[...this.view.procs.keys()].map(String)]) names.add(p);
      else { names.add('cmdline'); names.add('status'); }
    } else {
      const child = (p: string) => { if (p !== path && under(path, p)) names.add(p.slice(path === '/' ? 1 : path.length + 1).split('/')[0]); };
      for (const p of [...this.files.keys(), ...Object.keys(IMAGE_FILES), ...IMAGE_DIRS, ...this.view.dirs]) child(p);
    }
    // Mount points inside this directory show in its listing (nested mounts included).
    for (const m of this.view.mounts) if (m.containerPath !== path && under(path, m.containerPath)) names.add(m.containerPath.slice(path === '/' ? 1 : path.length + 1).split('/')[0]);
    return [...names].sort();
  }

  /** Where a write would go, or why it is refused. */
  private async writeTarget(path: string, reader: Reader): Promise<{ host: string } | { memory: string } | FsError> {
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') {
      if (loc.mount.readonly) return 'EROFS';
      const host = await this.hostPath(loc.mount, loc.rel);
      return isErr(host) ? host : { host };
    }
    if (loc.at === 'proc') return 'EACCES';
    // /dev/shm is the sandbox's own tmpfs: writable even on a read-only root.
    if (this.view.readonlyRoot && !under('/dev/shm', path)) return 'EROFS';
    if ((await this.kind(path, reader)) === 'dir') return 'EISDIR';
    return { memory: path };
  }

  /** Writes (or appends) text; undefined on success. `text` '' with append creates the file if missing (touch). */
  async write(path: string, text: string, append: boolean, reader: Reader): Promise<FsError | undefined> {
    const target = await this.writeTarget(path, reader);
    if (isErr(target)) return target;
    if ('memory' in target) {
      const before = append ? this.files.get(path) ?? '' : '';
      if (before.length + text.length > MAX_READ) return 'EFBIG';
      this.files.set(path, before + text);
      return undefined;
    }
    if (Buffer.byteLength(text) > MAX_READ) return 'EFBIG';
    try {
      if (append) await appendFile(target.host, text); else await writeFile(target.host, text);
      return undefined;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EROFS' ? code : 'ENOENT';
    }
  }

  /** Whether a write to the path would be allowed (test -w): an existing path on a writable place. */
  async writable(path: string, reader: Reader): Promise<boolean> {
    if ((await this.kind(path, reader)) === undefined) return false;
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') return !loc.mount.readonly;
    if (loc.at === 'proc') return false;
    return !this.view.readonlyRoot || under('/dev/shm', path);
  }

  async mkdir(path: string, reader: Reader): Promise<FsError | undefined> {
    const kind = await this.kind(path, reader);
    if (kind !== undefined) return kind === 'dir' ? undefined : 'ENOTDIR';
    const loc = this.locate(path, reader);
    if (loc.at === 'mount') {
      if (loc.mount.readonly) return 'EROFS';
      const host = await this.hostPath(loc.mount, loc.rel);
      if (isErr(host)) return host;
      try { await mkdir(host); return undefined; } catch { return 'ENOENT'; }
    }
    if (loc.at === 'proc') return 'EACCES';
    if (this.view.readonlyRoot && !under('/dev/shm', path)) return 'EROFS';
    this.view.dirs.add(path);
    return undefined;
  }
}

/** A view for a context that was given none: root identity, default capabilities, writable root, no mounts. */
export function defaultView(argv: string[]): ContainerView {
  return buildView({ linux: null, mounts: [] } as unknown as ContainerConfig, { user: { uid: 0, gid: 0, supplementalGroups: [0] }, argv, seccompFilter: false });
}
