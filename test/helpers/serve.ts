// `orch-conformance serve` as users start it (the built bin, on a free port), for tests that drive
// the CLI or a real client against it. Stopped at teardown.
import { execaNode, type ResultPromise } from 'execa';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/orch-conformance.js', import.meta.url));

export interface StartedServe {
  proc: ResultPromise;
  /** From the `api:` line: https://…, or http://… with --plain-http. */
  url: string;
  /** From the `ca:` line, printed before `api:` when serve knows a CA file (by default: one it generated). */
  ca?: string;
  /** From the `agent-client-ca:` line: the CA of the node proxy's client certificate, for agent --client-ca-file. */
  agentClientCa?: string;
  /** The companions' URLs from the `controller-manager:` and `scheduler:` lines, by name. */
  components?: Record<string, string>;
  /** From the `kubeconfig:` line: the admin kubeconfig serve wrote. */
  kubeconfig?: string;
}

/** Starts `serve --api-port 0 <args>` (or the --api-port in `args`) and resolves once it printed its API URL. */
export async function startServe(t: { teardown(fn: () => void): void }, args: readonly string[] = []): Promise<StartedServe> {
  const proc = execaNode(BIN, ['serve', ...(args.includes('--api-port') ? [] : ['--api-port', '0']), ...args], { reject: false });
  t.teardown(() => { proc.kill('SIGTERM'); });
  return new Promise<StartedServe>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /^api: (\S+)$/m.exec(out)?.[1];
      if (url) {
        const components = Object.fromEntries([...out.matchAll(/^(controller-manager|scheduler): (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
        resolve({ proc, url, ca: /^ca: (\S+)$/m.exec(out)?.[1], agentClientCa: /^agent-client-ca: (\S+)$/m.exec(out)?.[1], components, kubeconfig: /^kubeconfig: (\S+)$/m.exec(out)?.[1] });
      }
    });
    proc.on('exit', () => reject(new Error(`serve exited: ${out}`)));
  });
}

/** Starts `orch-conformance <command> --secure-port 0 ...` and resolves with the URL it prints as `<command>: <url>`. */
export function startComponent(t: { teardown(fn: () => unknown): void }, command: 'controller-manager' | 'scheduler', args: readonly string[]): Promise<string> {
  const proc: ResultPromise = execaNode(BIN, [command, '--secure-port', '0', ...args], { reject: false });
  t.teardown(() => { proc.kill('SIGTERM'); });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = new RegExp(`^${command}: (\\S+)$`, 'm').exec(out)?.[1];
      if (url) resolve(url);
    });
    proc.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
    proc.on('exit', () => reject(new Error(`${command} exited: ${out}`)));
  });
}
