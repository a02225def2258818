// A service manager's notify socket for the project's tests: the suites' own receiver
// (suites/001-node-agent/agent-exec-notify.ts), whose waitFor rejects here instead of resolving
// undefined, so a test that waits for a message fails saying what did arrive.
import { listenNotify } from '../../suites/001-node-agent/agent-exec-notify.js';

export interface NotifyListener {
  readonly messages: ReadonlyArray<{ text: string; at: number }>;
  waitFor(match: (text: string) => boolean, timeoutMs: number, from?: number): Promise<{ text: string; at: number; index: number }>;
  close(): Promise<void>;
}

export async function listenNotifySocket(address: string): Promise<NotifyListener> {
  const sock = await listenNotify(address);
  return {
    messages: sock.messages,
    async waitFor(match, timeoutMs, from) {
      const got = await sock.waitFor(match, timeoutMs, from);
      if (!got) throw new Error(`no matching message on ${address} within ${timeoutMs} ms; received: ${JSON.stringify(sock.messages.map((m) => m.text))}`);
      return got;
    },
    close: () => sock.close(),
  };
}
