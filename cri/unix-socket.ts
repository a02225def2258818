// Unix socket paths for servers that must not clobber each other: the CRI runtime's socket, its control
// API, the agent's pod info socket. Shared by the mock (a server) and the reference agent (a server of
// its own sockets), so it lives beside the CRI definitions rather than in either.
import { connect } from 'node:net';
import { lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** sockaddr_un.sun_path holds 108 bytes including the terminating NUL on Linux. */
export const MAX_SOCKET_PATH_BYTES = 107;

/** True when a server accepts connections at `path` (a live socket must not be replaced). */
function socketIsLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', (err: NodeJS.ErrnoException) => {
      s.destroy();
      // Refused or gone: nobody listens. Anything else (EACCES...): assume somebody does.
      resolve(!(err.code === 'ECONNREFUSED' || err.code === 'ENOENT'));
    });
  });
}

/** Creates the socket's directory (0700) if missing and removes a stale socket left by a dead process.
 *  Refuses to touch a path that is not a socket, or a socket something still listens on. */
export async function prepareSocketPath(socketPath: string): Promise<string> {
  const abs = resolve(socketPath);
  if (Buffer.byteLength(abs) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`socket path ${abs} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a unix socket address holds`);
  }
  await mkdir(dirname(abs), { recursive: true, mode: 0o700 });
  let st;
  try {
    st = await lstat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return abs;
    throw err;
  }
  if (!st.isSocket()) throw new Error(`${abs} exists and is not a socket: refusing to replace it`);
  if (await socketIsLive(abs)) throw new Error(`${abs} is in use: another server listens on it`);
  await unlink(abs);
  return abs;
}

