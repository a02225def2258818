// What a terminal does between a TTY process and its client, as far as the simulated shell needs: output
// "\n" becomes "\r\n" (onlcr) and stderr shares the one terminal stream; input "\r" becomes "\n" (icrnl)
// and is echoed (echo), ^D at the start of a line is EOF, ^C interrupts the foreground process (130, as
// 128 + SIGINT). Window size changes are accepted and kept.
import type { StdinSink } from './remotecommand.js';

export function ttyOutput(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

export interface TtyInput extends StdinSink { size?: { width: number; height: number } }

/** A line discipline in front of a process's stdin. `echo` writes to the terminal, `interrupt` is ^C. */
export function ttyInput(inner: StdinSink | undefined, echo: (text: string) => void, interrupt: () => void): TtyInput {
  let lineStart = true;
  return {
    write(data: Buffer): boolean {
      const out: number[] = [];
      for (const byte of data) {
        if (byte === 0x03) { echo('^C\r\n'); interrupt(); return true; }
        if (byte === 0x04) {
          if (lineStart) { inner?.end(); return true; }
          continue;
        }
        const b = byte === 0x0d ? 0x0a : byte;
        out.push(b);
        lineStart = b === 0x0a;
      }
      const buf = Buffer.from(out);
      echo(ttyOutput(buf.toString()));
      return inner ? inner.write(buf) : true;
    },
    end() { inner?.end(); },
    onDrain(fn) { if (inner) inner.onDrain(fn); else fn(); },
  };
}
