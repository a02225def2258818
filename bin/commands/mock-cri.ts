// `mock-cri`: the mock CRI runtime (mocks/cri/) as a process, for an agent under test to use as its
// container runtime, until SIGINT or SIGTERM. Sockets are owner-only and removed on exit.
import { startMockCri } from '../../mocks/cri/server.js';
import { UsageError } from '../../runner/errors.js';
import { EXIT } from './exit-codes.js';

export interface MockCriArgs {
  socket: string;
  control?: string;
  root?: string;
  seccompDir?: string;
  images?: string[];
}

/** Why the runtime could not start, in words rather than the system's error code. */
function startFailure(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EADDRINUSE': return 'a process already listens on that socket: stop it or pick another --socket/--control';
    case 'EACCES': return 'permission denied: pick paths in a directory you own';
    case 'ENAMETOOLONG': return 'socket path too long (unix sockets allow about 107 bytes): pick a shorter path';
    default: return err.message ?? String(err);
  }
}

export async function cmdMockCri(args: MockCriArgs): Promise<number> {
  const images = (args.images ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  // Registered before start, so a signal during start still ends through close().
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let cri;
  try {
    cri = await startMockCri({ socket: args.socket, control: args.control, root: args.root, seccompDir: args.seccompDir, images });
  } catch (err) {
    throw new UsageError(`cannot start the mock CRI runtime on ${args.socket}: ${startFailure(err as NodeJS.ErrnoException)}`);
  }
  process.stdout.write(`cri: ${cri.criUrl}\n`);
  if (cri.controlPath) process.stdout.write(`control: ${cri.controlPath}\n`);
  await stopped;
  await cri.close();
  return EXIT.ok;
}
