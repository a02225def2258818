// Localhost seccomp profiles for the mock CRI runtime (spec 001 §2.4).
//
// A real runtime reads a `Localhost` profile when it creates the container and fails creation when
// the file is missing or unusable; the agent turns that into `CreateContainerError`. The mock does the
// same checks without applying anything: find the file (an absolute path anywhere, as containerd; a
// relative one under the seccomp directory, without letting it escape), then check that it is an OCI seccomp profile (runtime-spec config-linux,
// "Seccomp"). Fields other than the OCI ones (Docker's `archMap`, a syscall's `comment`...) are left
// alone, as the runtimes' JSON decoders ignore what they do not know; the OCI fields are checked.
import { open, realpath } from 'node:fs/promises';
import { constants } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** A Localhost profile that cannot be used; the message names the file and what is wrong. */
export class SeccompProfileError extends Error {
  override name = 'SeccompProfileError';
}

export const SECCOMP_ACTIONS = [
  'SCMP_ACT_KILL',
  'SCMP_ACT_KILL_PROCESS',
  'SCMP_ACT_KILL_THREAD',
  'SCMP_ACT_TRAP',
  'SCMP_ACT_ERRNO',
  'SCMP_ACT_TRACE',
  'SCMP_ACT_ALLOW',
  'SCMP_ACT_LOG',
  'SCMP_ACT_NOTIFY',
] as const;

export const SECCOMP_OPERATORS = [
  'SCMP_CMP_NE',
  'SCMP_CMP_LT',
  'SCMP_CMP_LE',
  'SCMP_CMP_EQ',
  'SCMP_CMP_GE',
  'SCMP_CMP_GT',
  'SCMP_CMP_MASKED_EQ',
] as const;

export const SECCOMP_ARCHITECTURES = [
  'SCMP_ARCH_X86',
  'SCMP_ARCH_X86_64',
  'SCMP_ARCH_X32',
  'SCMP_ARCH_ARM',
  'SCMP_ARCH_AARCH64',
  'SCMP_ARCH_MIPS',
  'SCMP_ARCH_MIPS64',
  'SCMP_ARCH_MIPS64N32',
  'SCMP_ARCH_MIPSEL',
  'SCMP_ARCH_MIPSEL64',
  'SCMP_ARCH_MIPSEL64N32',
  'SCMP_ARCH_PPC',
  'SCMP_ARCH_PPC64',
  'SCMP_ARCH_PPC64LE',
  'SCMP_ARCH_S390',
  'SCMP_ARCH_S390X',
  'SCMP_ARCH_PARISC',
  'SCMP_ARCH_PARISC64',
  'SCMP_ARCH_RISCV64',
  'SCMP_ARCH_LOONGARCH64',
  'SCMP_ARCH_M68K',
  'SCMP_ARCH_SH',
  'SCMP_ARCH_SHEB',
] as const;

export const SECCOMP_FLAGS = [
  'SECCOMP_FILTER_FLAG_TSYNC',
  'SECCOMP_FILTER_FLAG_LOG',
  'SECCOMP_FILTER_FLAG_SPEC_ALLOW',
  'SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV',
] as const;

/** Profiles are small (Docker's default is ~20 KiB); a bigger file is refused before it is read. */
export const MAX_PROFILE_BYTES = 1024 * 1024;

/** The kubelet's older field form: `localhost/<path>`. */
const LOCALHOST_PREFIX = 'localhost/';

const ACTIONS = new Set<string>(SECCOMP_ACTIONS);
const OPERATORS = new Set<string>(SECCOMP_OPERATORS);
const ARCHES = new Set<string>(SECCOMP_ARCHITECTURES);
const FLAGS = new Set<string>(SECCOMP_FLAGS);
const SYSCALL_NAME = /^[a-z0-9_]+$/;

/**
 * The file a request names. As containerd (seccomp.WithProfile reads the path it is given): an
 * absolute path, with or without the `localhost/` prefix, is taken as it is, wherever it lies. A
 * relative one (which containerd would read relative to its own working directory, never what a
 * caller means) is resolved under `seccompDir`, lexically here and through symlinks when loaded, and
 * must not leave it.
 */
export function resolveProfilePath(seccompDir: string, profilePath: string): string {
  if (typeof profilePath !== 'string' || profilePath === '') {
    throw new SeccompProfileError('Localhost seccomp profile: the profile path is empty');
  }
  if (profilePath.includes('\0')) {
    throw new SeccompProfileError('Localhost seccomp profile: the profile path contains a NUL byte');
  }
  const p = profilePath.startsWith(LOCALHOST_PREFIX) ? profilePath.slice(LOCALHOST_PREFIX.length) : profilePath;
  if (p === '') throw new SeccompProfileError(`Localhost seccomp profile "${profilePath}": no file named after "localhost/"`);
  if (isAbsolute(p)) return resolve(p);
  if (p.split('/').includes('..')) {
    throw new SeccompProfileError(`Localhost seccomp profile "${profilePath}": a relative path must not contain '..'`);
  }
  const dir = resolve(seccompDir);
  const full = resolve(dir, p);
  if (!isInside(dir, full)) {
    throw new SeccompProfileError(`Localhost seccomp profile "${profilePath}": resolves outside the seccomp directory ${dir}`);
  }
  return full;
}

/** True when `p` lies strictly below `dir` (both absolute and normalised). */
function isInside(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel !== '' && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/** Checks a Localhost profile: `profilePath` as the CRI request gives it (absolute, or `localhost/<path>`
 *  form; a relative one under `seccompDir` without escaping it); reads it and validates the OCI seccomp JSON
 *  (defaultAction a known SCMP_ACT_*, architectures/syscalls shapes). Returns the parsed profile or throws
 *  SeccompProfileError(message) (CORE turns that into a gRPC error on CreateContainer). */
export async function loadLocalhostProfile(seccompDir: string, profilePath: string): Promise<object> {
  const file = resolveProfilePath(seccompDir, profilePath);
  const relativeName = !isAbsolute(profilePath.startsWith(LOCALHOST_PREFIX) ? profilePath.slice(LOCALHOST_PREFIX.length) : profilePath);
  let realDir: string | undefined;
  if (relativeName) {
    try {
      realDir = await realpath(resolve(seccompDir));
    } catch {
      throw new SeccompProfileError(`Localhost seccomp profile ${file} not found: the seccomp directory ${resolve(seccompDir)} does not exist`);
    }
  }
  let realFile: string;
  try {
    realFile = await realpath(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new SeccompProfileError(`Localhost seccomp profile ${file} not found`);
    throw new SeccompProfileError(`Localhost seccomp profile ${file} cannot be resolved: ${(err as Error).message}`);
  }
  if (realDir !== undefined) {
    // A name under the seccomp directory may be a symlink to anywhere; what counts is where it lands.
    if (!isInside(realDir, realFile)) {
      throw new SeccompProfileError(`Localhost seccomp profile ${file} resolves to ${realFile}, outside the seccomp directory ${realDir}`);
    }
  }
  const text = await readSmallFile(file, realFile);
  let profile: unknown;
  try {
    profile = JSON.parse(text);
  } catch (err) {
    throw new SeccompProfileError(`Localhost seccomp profile ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const problem = checkSeccompProfile(profile);
  if (problem) throw new SeccompProfileError(`Localhost seccomp profile ${file} is not a valid OCI seccomp profile: ${problem}`);
  return profile as object;
}

/** Reads the resolved file, refusing anything but a regular file of sane size. */
async function readSmallFile(file: string, realFile: string): Promise<string> {
  let fh;
  try {
    // O_NOFOLLOW on the real path: a swap of the last component for a symlink after realpath fails
    // here instead of being followed.
    fh = await open(realFile, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw new SeccompProfileError(`Localhost seccomp profile ${file} cannot be opened: ${(err as Error).message}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new SeccompProfileError(`Localhost seccomp profile ${file} is not a regular file`);
    if (st.size > MAX_PROFILE_BYTES) {
      throw new SeccompProfileError(`Localhost seccomp profile ${file} is ${st.size} bytes, more than the ${MAX_PROFILE_BYTES} accepted`);
    }
    return await fh.readFile({ encoding: 'utf8' });
  } finally {
    await fh.close();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isUint = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** Returns what is wrong with `p` as an OCI seccomp profile (the first problem, with its JSON path),
 *  or undefined when it is valid. */
export function checkSeccompProfile(p: unknown): string | undefined {
  if (!isObject(p)) return 'the profile must be a JSON object';
  if (p.defaultAction === undefined) return '"defaultAction" is required';
  if (typeof p.defaultAction !== 'string' || !ACTIONS.has(p.defaultAction)) {
    return `defaultAction: ${show(p.defaultAction)} is not a seccomp action (one of ${SECCOMP_ACTIONS.join(', ')})`;
  }
  // The notify action hands a call to a user-space listener; as the default it would hand over every
  // call, including the ones the listener itself needs, which runc refuses (spec 001 §2.4).
  if (p.defaultAction === 'SCMP_ACT_NOTIFY') return 'defaultAction: SCMP_ACT_NOTIFY cannot be the default action';
  if (p.defaultErrnoRet !== undefined && !isUint(p.defaultErrnoRet)) {
    return `defaultErrnoRet: ${show(p.defaultErrnoRet)} must be a non-negative integer`;
  }
  if (p.architectures !== undefined && p.architectures !== null) {
    if (!Array.isArray(p.architectures)) return 'architectures must be an array of SCMP_ARCH_* names';
    for (const [i, a] of p.architectures.entries()) {
      if (typeof a !== 'string' || !ARCHES.has(a)) return `architectures[${i}]: ${show(a)} is not a seccomp architecture (SCMP_ARCH_*)`;
    }
  }
  if (p.flags !== undefined && p.flags !== null) {
    if (!Array.isArray(p.flags)) return 'flags must be an array of SECCOMP_FILTER_FLAG_* names';
    for (const [i, f] of p.flags.entries()) {
      if (typeof f !== 'string' || !FLAGS.has(f)) return `flags[${i}]: ${show(f)} is not a seccomp filter flag (one of ${SECCOMP_FLAGS.join(', ')})`;
    }
  }
  if (p.listenerPath !== undefined && typeof p.listenerPath !== 'string') return 'listenerPath must be a string';
  if (p.listenerMetadata !== undefined && typeof p.listenerMetadata !== 'string') return 'listenerMetadata must be a string';
  if (p.syscalls === undefined || p.syscalls === null) return undefined;
  if (!Array.isArray(p.syscalls)) return 'syscalls must be an array';
  for (const [i, s] of p.syscalls.entries()) {
    const problem = checkSyscallRule(s);
    if (problem) return `syscalls[${i}]${problem}`;
  }
  return undefined;
}

/** What is wrong with one syscall rule, as a path suffix and message. */
function checkSyscallRule(s: unknown): string | undefined {
  if (!isObject(s)) return ': each syscall rule must be an object';
  if (!Array.isArray(s.names) || s.names.length === 0) return '.names must be a non-empty array of syscall names';
  for (const [j, n] of s.names.entries()) {
    if (typeof n !== 'string' || !SYSCALL_NAME.test(n)) return `.names[${j}]: ${show(n)} is not a syscall name`;
  }
  if (s.action === undefined) return '.action is required';
  if (typeof s.action !== 'string' || !ACTIONS.has(s.action)) {
    return `.action: ${show(s.action)} is not a seccomp action (one of ${SECCOMP_ACTIONS.join(', ')})`;
  }
  if (s.action === 'SCMP_ACT_NOTIFY' && s.names.includes('write')) {
    // The listener reports through write(2); intercepting it would deadlock the container.
    return ': SCMP_ACT_NOTIFY cannot apply to "write"';
  }
  if (s.errnoRet !== undefined && !isUint(s.errnoRet)) return `.errnoRet: ${show(s.errnoRet)} must be a non-negative integer`;
  if (s.args === undefined || s.args === null) return undefined;
  if (!Array.isArray(s.args)) return '.args must be an array';
  if (s.args.length > 6) return `.args has ${s.args.length} entries; a syscall has at most 6 arguments`;
  for (const [k, a] of s.args.entries()) {
    if (!isObject(a)) return `.args[${k}] must be an object`;
    if (!isUint(a.index) || a.index > 5) return `.args[${k}].index: ${show(a.index)} must be an integer 0..5`;
    if (!isUint(a.value)) return `.args[${k}].value: ${show(a.value)} must be a non-negative integer`;
    if (a.valueTwo !== undefined && !isUint(a.valueTwo)) return `.args[${k}].valueTwo: ${show(a.valueTwo)} must be a non-negative integer`;
    if (typeof a.op !== 'string' || !OPERATORS.has(a.op)) {
      return `.args[${k}].op: ${show(a.op)} is not a seccomp comparison (one of ${SECCOMP_OPERATORS.join(', ')})`;
    }
  }
  return undefined;
}
