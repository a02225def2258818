// The v1 Status objects upstream's remotecommand server writes on the error stream (protocol v4 and
// later, and every WebSocket protocol), as k8s.io/kubelet/pkg/cri/streaming/remotecommand/exec.go builds
// them: Success; a non-zero exit as NonZeroExitCode with the code as an ExitCode cause; anything else as
// apierrors.NewInternalError. JSON field order is Go's (metav1.Status: metadata, status, message, reason,
// details, code), with its omitempty fields left out.
export interface V1Status {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export const success = (): V1Status => ({ metadata: {}, status: 'Success' });

/**
 * A command that exited non-zero. The message wraps the runtime's exit error, which containerd words
 * "error executing command <argv as Go %v>, exit code N" (its streaming runtime's CodeExitError).
 */
export function nonZeroExit(exitCode: number, cmd: readonly string[]): V1Status {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${cmd.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** Any other failure: upstream's NewInternalError of "error executing command in container: <err>". */
export function internalError(err: string): V1Status {
  const wrapped = `error executing command in container: ${err}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${wrapped}`,
    reason: 'InternalError',
    details: { causes: [{ message: wrapped }] },
    code: 500,
  };
}

/** An attach that failed: upstream's ServeAttach, "error attaching to container: <err>" as an internal error. */
export function attachError(err: string): V1Status {
  const wrapped = `error attaching to container: ${err}`;
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${wrapped}`, reason: 'InternalError', details: { causes: [{ message: wrapped }] }, code: 500 };
}
