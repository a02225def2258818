// An open stdin of a simulated process: bytes a streaming client sends (exec's stdin, attach's stdin),
// bounded, read by the programs that read stdin. It is the StdinReader hook of process.ts: `cat` without
// files copies stdin to stdout until EOF; a shell without -c (`sh`, `sh -i`, `bash -s`) reads lines and
// runs each as a script, printing as it goes, so `kubectl exec -i pod -- sh` works line by line. Any
// other program ignores stdin and runs as usual. Not covered: stdin inside a script (`sh -c 'cat'`,
// `read`, pipes): a script's commands see an empty stdin.
import { StringDecoder } from 'node:string_decoder';
import { posix } from 'node:path';
import { isShell, runScriptLine, type ShellContext, type StdinReader } from '../process.js';

/** How much unread stdin a process holds; a writer is told to wait past it. */
export const STDIN_BUFFER_BYTES = 1 << 20;

export class StdinPipe implements StdinReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private ended = false;
  private wake: (() => void) | undefined;
  private readonly drainWaiters = new Set<() => void>();

  constructor(private readonly limit = STDIN_BUFFER_BYTES) {}

  /** Queues bytes; false when the buffer is past its bound (the writer should wait for onDrain). Bytes
   *  after the end are dropped. */
  write(data: Buffer): boolean {
    if (this.ended || data.length === 0) return !this.ended;
    this.chunks.push(data);
    this.size += data.length;
    this.wake?.();
    return this.size < this.limit;
  }

  /** EOF: readers get what is queued, then the end. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  get closed(): boolean { return this.ended; }

  /** Calls `fn` once, when the buffer has room again. */
  onDrain(fn: () => void): void {
    if (this.size < this.limit) fn();
    else this.drainWaiters.add(fn);
  }

  /** The next bytes, or null at EOF; rejects when `signal` fires first. */
  async read(signal: AbortSignal): Promise<Buffer | null> {
    for (;;) {
      if (signal.aborted) throw new Error('aborted');
      const chunk = this.chunks.shift();
      if (chunk) {
        this.size -= chunk.length;
        if (this.size < this.limit) {
          const waiters = [...this.drainWaiters];
          this.drainWaiters.clear();
          for (const w of waiters) w();
        }
        return chunk;
      }
      if (this.ended) return null;
      await new Promise<void>((resolve) => {
        const done = () => { this.wake = undefined; signal.removeEventListener('abort', done); resolve(); };
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  run(argv: string[], ctx: ShellContext): Promise<number> | undefined {
    if (argv.length === 0) return undefined;
    const name = posix.basename(argv[0]);
    if (name === 'cat' && argv.slice(1).every((a) => a === '-')) return this.cat(ctx);
    // A shell without a script: no -c and no script file operand.
    if (isShell(argv) && !argv.includes('-c') && argv.slice(1).every((a) => a.startsWith('-'))) return this.shell(ctx);
    return undefined;
  }

  private async cat(ctx: ShellContext): Promise<number> {
    const text = new StringDecoder('utf8');
    for (;;) {
      const chunk = await this.read(ctx.signal);
      if (chunk === null) break;
      ctx.out('stdout', text.write(chunk));
    }
    const rest = text.end();
    if (rest) ctx.out('stdout', rest);
    return 0;
  }

  private async shell(ctx: ShellContext): Promise<number> {
    const text = new StringDecoder('utf8');
    let pending = '';
    let status = 0;
    for (;;) {
      const chunk = await this.read(ctx.signal);
      pending += chunk === null ? text.end() : text.write(chunk);
      const lines = pending.split('\n');
      pending = chunk === null ? '' : lines.pop()!;
      for (const line of lines) {
        if (line.trim() === '') continue;
        const r = await runScriptLine(line, ctx, status);
        status = r.status;
        if (r.exited) return status;
      }
      if (chunk === null) return status;
    }
  }
}
