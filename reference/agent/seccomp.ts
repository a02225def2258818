// Spec 001 §2.4: the seccomp profile a container runs with, as the CRI SecurityProfile the agent
// puts in its CreateContainer request. Upstream's getSeccompProfile: the container's own
// seccompProfile wins, else the pod's, else the seccompDefault configuration (RuntimeDefault when
// true, Unconfined otherwise). Privileged containers always run Unconfined (the spec's rule;
// upstream leaves that to the runtime). A Localhost profile names a file under
// `<rootDir>/seccomp`; its name is validated as the API server validates it (relative, no `..`).
// Whether the file exists is the runtime's business: its refusal is a CreateContainerError.
import { isAbsolute, join } from 'node:path';
import { broken } from './breaks.js';

export type SeccompProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

/** runtime.v1 SecurityProfile, with the field names the project's CRI client uses. */
export interface CriSecurityProfile {
  profile_type: SeccompProfileType;
  /** Absolute path of the profile file for Localhost; '' otherwise. */
  localhost_ref: string;
}

/** A seccompProfile the agent cannot apply; the message names the field, as upstream's validation does. */
export class SeccompFieldError extends Error {
  override readonly name = 'SeccompFieldError';
  constructor(readonly field: string, readonly detail: string) {
    super(`${field}: ${detail}`);
  }
}

const TYPES: readonly SeccompProfileType[] = ['Localhost', 'RuntimeDefault', 'Unconfined'];

interface SeccompProfile {
  type?: unknown;
  localhostProfile?: unknown;
}

/** Where the container sits in the pod spec, for field paths in messages. */
function containerField(pod: any, container: any): string {
  const spec = pod?.spec ?? {};
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const items: any[] = Array.isArray(spec[list]) ? spec[list] : [];
    const i = items.findIndex((c) => c === container);
    if (i >= 0) return `spec.${list}[${i}]`;
  }
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const items: any[] = Array.isArray(spec[list]) ? spec[list] : [];
    const i = items.findIndex((c) => c?.name !== undefined && c?.name === container?.name);
    if (i >= 0) return `spec.${list}[${i}]`;
  }
  return `container ${JSON.stringify(container?.name ?? '')}`;
}

/** Upstream's validateLocalDescendingPath messages for localhostProfile. */
function checkLocalhostProfile(field: string, name: unknown): string {
  if (name === undefined || name === null || name === '') {
    throw new SeccompFieldError(field, 'Required value: localhostProfile must be set if seccompProfile type is Localhost.');
  }
  if (typeof name !== 'string') throw new SeccompFieldError(field, `Invalid value: ${JSON.stringify(name)}: must be a string`);
  if (isAbsolute(name) || name.startsWith('\\')) throw new SeccompFieldError(field, `Invalid value: ${JSON.stringify(name)}: must be a relative path`);
  if (name.split(/[\\/]/).includes('..')) throw new SeccompFieldError(field, `Invalid value: ${JSON.stringify(name)}: must not contain '..'`);
  return name;
}

function fromField(profile: SeccompProfile, field: string, rootDir: string): CriSecurityProfile {
  const type = profile.type;
  if (typeof type !== 'string' || !TYPES.includes(type as SeccompProfileType)) {
    throw new SeccompFieldError(
      `${field}.type`,
      type === undefined || type === null || type === '' ? 'Required value' : `Unsupported value: ${JSON.stringify(type)}: supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
    );
  }
  if (type === 'Localhost') {
    const name = checkLocalhostProfile(`${field}.localhostProfile`, profile.localhostProfile);
    // Test-only (breaks.ts): a Localhost profile is not passed on, so a missing one goes unnoticed.
    if (broken('seccomp-localhost-ignored')) return { profile_type: 'RuntimeDefault', localhost_ref: '' };
    // Test-only (breaks.ts): the profile is looked up outside `<rootDir>/seccomp`.
    if (broken('seccomp-localhost-wrong-dir')) return { profile_type: 'Localhost', localhost_ref: join(rootDir, 'profiles', name) };
    return { profile_type: 'Localhost', localhost_ref: join(rootDir, 'seccomp', name) };
  }
  if (profile.localhostProfile !== undefined && profile.localhostProfile !== null) {
    throw new SeccompFieldError(`${field}.localhostProfile`, `Invalid value: ${JSON.stringify(profile.localhostProfile)}: can only be set when seccomp type is Localhost`);
  }
  // Test-only (breaks.ts): one of the two types is passed on as the other.
  if (type === 'RuntimeDefault' && broken('seccomp-runtime-default-as-unconfined')) return { profile_type: 'Unconfined', localhost_ref: '' };
  if (type === 'Unconfined' && broken('seccomp-unconfined-as-runtime-default')) return { profile_type: 'RuntimeDefault', localhost_ref: '' };
  return { profile_type: type as SeccompProfileType, localhost_ref: '' };
}

/**
 * The effective profile of `container` (a container, init container or ephemeral container of
 * `pod`): its own seccompProfile, else the pod's, else RuntimeDefault when `seccompDefault` is on
 * and Unconfined otherwise; privileged means Unconfined whatever is set. Localhost resolves to
 * `<rootDir>/seccomp/<localhostProfile>` after validation; a bad field throws SeccompFieldError.
 */
export function effectiveSeccomp(pod: any, container: any, opts: { rootDir: string; seccompDefault: boolean }): CriSecurityProfile {
  // Test-only (breaks.ts): a privileged container gets the profile it would have without `privileged`
  // (pod-workers.ts then sends it unprivileged), so it runs confined.
  if (container?.securityContext?.privileged === true && !broken('seccomp-privileged-confined')) return { profile_type: 'Unconfined', localhost_ref: '' };
  const own: SeccompProfile | undefined = container?.securityContext?.seccompProfile ?? undefined;
  const podLevel: SeccompProfile | undefined = pod?.spec?.securityContext?.seccompProfile ?? undefined;
  // Test-only (breaks.ts): the pod's profile wins over the container's own.
  if (podLevel && own && broken('seccomp-pod-wins')) return fromField(podLevel, 'spec.securityContext.seccompProfile', opts.rootDir);
  if (own) return fromField(own, `${containerField(pod, container)}.securityContext.seccompProfile`, opts.rootDir);
  // Test-only (breaks.ts): containers without a profile do not inherit the pod's.
  if (podLevel && !broken('seccomp-no-inherit')) return fromField(podLevel, 'spec.securityContext.seccompProfile', opts.rootDir);
  return { profile_type: opts.seccompDefault ? 'RuntimeDefault' : 'Unconfined', localhost_ref: '' };
}
