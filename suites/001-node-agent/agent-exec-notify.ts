// A service manager's notify socket for the watchdog cases (spec 001 §5.2): a unix datagram socket
// that collects what an agent sends to $NOTIFY_SOCKET. Node has no unix datagram sockets, so libc's
// socket/bind/recv are called through koffi (a dependency of the kit). Kept apart from the reference
// agent's own sender so that a bug there cannot hide in the check. Linux only: elsewhere the
// watchdog cases skip.
import { unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { skip } from '../verify.js';

const require = createRequire(import.meta.url);
const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const SOL_SOCKET = 1;
const SO_RCVTIMEO = 20;

let libc: { socket: (...a: unknown[]) => number; bind: (...a: unknown[]) => number; setsockopt: (...a: unknown[]) => number; close: (fd: number) => number; recv: any; errno(): number } | undefined;

function lib() {
  if (process.platform !== 'linux') skip(`the notify socket is a Linux unix datagram socket; this run is on ${process.platform}`);
  if (!libc) {
    const koffi = require('koffi') as typeof import('koffi');
    const l = koffi.load('libc.so.6');
    const num = (f: (...a: unknown[]) => unknown) => (...a: unknown[]) => Number(f(...a));
    libc = {
      socket: num(l.func('int socket(int domain, int type, int protocol)')),
      bind: num(l.func('int bind(int fd, const uint8_t *addr, uint32_t len)')),
      setsockopt: num(l.func('int setsockopt(int fd, int level, int name, const uint8_t *value, uint32_t len)')),
      close: num(l.func('int close(int fd)')) as (fd: number) => number,
      recv: l.func('long recv(int fd, _Out_ uint8_t *buf, size_t len, int flags)'),
      errno: () => koffi.errno(),
    };
  }
  return libc;
}

export interface NotifySocket {
  /** Datagrams received so far, with their arrival time (ms since the epoch). */
  readonly messages: ReadonlyArray<{ text: string; at: number }>;
  /** The first message from index `from` on whose text `match` accepts, or undefined after timeoutMs. */
  waitFor(match: (text: string) => boolean, timeoutMs: number, from?: number): Promise<{ text: string; at: number; index: number } | undefined>;
  close(): Promise<void>;
}

/** Whether a datagram carries the assignment (sd_notify messages are newline-separated `KEY=value` lines). */
export const says = (text: string, line: string) => text.split('\n').includes(line);

/**
 * Binds a notify socket at `address`: a file system path, or `@name` for an abstract socket (a NUL
 * then the name, no trailing NUL, as systemd addresses it).
 */
export async function listenNotify(address: string): Promise<NotifySocket> {
  const c = lib();
  const abstract = address.startsWith('@');
  const name = abstract ? Buffer.concat([Buffer.from([0]), Buffer.from(address.slice(1))]) : Buffer.from(address);
  const addr = Buffer.alloc(110);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, 2);
  const fd = c.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error(`cannot create a unix datagram socket: errno ${c.errno()}`);
  if (c.bind(fd, addr, 2 + name.length + (abstract ? 0 : 1)) !== 0) {
    const errno = c.errno();
    c.close(fd);
    throw new Error(`cannot bind the notify socket ${address}: errno ${errno}`);
  }
  // A receive timeout of 100 ms lets the loop (on koffi's worker thread) notice close().
  const tv = Buffer.alloc(16);
  tv.writeBigInt64LE(100_000n, 8);
  c.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv, 16);
  const messages: Array<{ text: string; at: number }> = [];
  const wake = new Set<() => void>();
  let closed = false;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const buf = Buffer.alloc(4096);
  const loop = () => {
    if (closed) return done();
    c.recv.async(fd, buf, buf.length, 0, (err: unknown, n: unknown) => {
      if (!err && Number(n) >= 0) {
        messages.push({ text: buf.subarray(0, Number(n)).toString('utf8'), at: Date.now() });
        for (const w of [...wake]) w();
      }
      loop();
    });
  };
  loop();
  return {
    messages,
    waitFor(match, timeoutMs, from = 0) {
      return new Promise((resolve) => {
        const look = () => {
          for (let i = from; i < messages.length; i++) {
            if (match(messages[i]!.text)) { finish({ ...messages[i]!, index: i }); return; }
          }
        };
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        const finish = (v: { text: string; at: number; index: number } | undefined) => { clearTimeout(timer); wake.delete(look); resolve(v); };
        wake.add(look);
        look();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await finished;
      c.close(fd);
      if (!abstract) try { unlinkSync(address); } catch { /* gone */ }
    },
  };
}
