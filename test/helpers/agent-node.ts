// A node for the agent cases' proofs and tests: the reference control plane, a mock CRI runtime with
// its control socket, and the reference agent as a process of its own (the CLI), optionally broken:
// by its test-only switch (reference/agent/breaks.ts), by a proxy between it and the API server (its
// writes and reads rewritten), or by a proxy in front of its HTTPS port.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedTarget, writeAgentTls, type EmbeddedTarget } from '../../runner/embedded.js';
import { referenceAgentCommand } from '../../runner/agent-exec.js';
import type { NodeTargets } from '../../runner/run.js';
import { startMockCri, type MockCri } from '../../mocks/cri/server.js';
import { startBrokenTarget, type Breakage } from './broken-target.js';

export interface AgentBreakage {
  /** Test-only switches of the agent process (ORCH_CONFORMANCE_AGENT_BREAK), for it and for agents cases launch. */
  switch?: string;
  /** Rewrites what passes between the agent and the API server. */
  api?: Breakage;
  /** Rewrites what the agent's HTTPS endpoints answer. */
  endpoints?: Breakage;
  /** More command-line options of the shared agent (a legal variant's setting, e.g. --checkpoint-default-timeout). */
  args?: readonly string[];
}

export interface ProofNode {
  target: EmbeddedTarget;
  node: NodeTargets;
  cri: MockCri;
  /** What the agent process printed. */
  output(): string;
  close(): Promise<void>;
}

const BREAK_ENV = 'ORCH_CONFORMANCE_AGENT_BREAK';

/** Starts control plane, runtime and agent (unless `withAgent` is false: agent-exec cases start their own). */
export async function startProofNode(runId: string, breakage: AgentBreakage = {}, withAgent = true): Promise<ProofNode> {
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => { for (const c of closers.reverse()) await c().catch(() => undefined); };
  try {
    // Authentication on, so that the agent's TokenReviews of the run's token succeed.
    const target = await startEmbeddedTarget({ overrides: {}, facts: [] }, { runId, auth: true });
    closers.push(() => target.close());
    const agentExec = `${breakage.switch ? `env ${BREAK_ENV}=${breakage.switch} ` : ''}${referenceAgentCommand()}`;
    const dir = await mkdtemp(join(tmpdir(), 'oc-proof-node-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const cri = await startMockCri({ socket: join(dir, 'cri', 'cri.sock'), control: join(dir, 'cri', 'control.sock'), root: join(dir, 'cri-state'), seccompDir: join(dir, 'root', 'seccomp') });
    closers.push(() => cri.close());
    if (!withAgent) return { target, node: { agentExec, criControl: cri.controlPath }, cri, output: () => '', close };

    let apiUrl = target.group.conn.baseUrl;
    const args = ['--root-dir', join(dir, 'root'), '--container-runtime-endpoint', cri.criUrl, '--hostname-override', `oc-${runId}-node`, '--address', '127.0.0.1', '--port', '0', '--node-ip', '127.0.0.1'];
    // The serving certificate the reference's node proxy verifies, and the CA of the client
    // certificate it presents: the node proxy case reaches the agent through the API server.
    const tls = await writeAgentTls(dir, target.agentTls);
    args.push('--cert-dir', tls.certDir, ...(tls.clientCaFile ? ['--client-ca-file', tls.clientCaFile] : []));
    if (target.group.conn.token) {
      // A file rather than --token: the token stays out of ps.
      const tokenFile = join(dir, 'api-token');
      await writeFile(tokenFile, target.group.conn.token, { mode: 0o600 });
      args.push('--token-file', tokenFile);
    }
    if (breakage.api) {
      const proxy = await startBrokenTarget(apiUrl, breakage.api, { caPem: target.group.conn.caPem });
      closers.push(() => proxy.close());
      apiUrl = proxy.url;
    } else if (target.group.conn.caPem) {
      const caFile = join(dir, 'api-ca.pem');
      await import('node:fs/promises').then((fs) => fs.writeFile(caFile, target.group.conn.caPem!, { mode: 0o600 }));
      args.push('--ca', caFile);
    }
    args.push('--api', apiUrl, ...(breakage.args ?? []));
    const child = spawn('/bin/sh', ['-c', `exec ${agentExec} "$@"`, 'agent', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    closers.push(async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    });
    const deadline = Date.now() + 20_000;
    while (!/^agent: (\S+)$/m.test(out)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the reference agent did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const agentUrl = /^agent: (\S+)$/m.exec(out)![1]!;
    // The agent prints a CA only when it generated its pair (a broken one ignoring --cert-dir).
    const caFile = /^ca: (\S+)$/m.exec(out)?.[1];
    const agentCa = caFile ? await readFile(caFile, 'utf8') : target.agentTls.serving.caPem;
    let url = agentUrl;
    if (breakage.endpoints) {
      const proxy = await startBrokenTarget(agentUrl, breakage.endpoints, { caPem: agentCa });
      closers.push(() => proxy.close());
      url = proxy.url;
    }
    const nodeName = /^node: (\S+)$/m.exec(out)![1]!;
    return {
      target, cri, output: () => out, close,
      node: { agent: { conn: { baseUrl: url, caPem: agentCa, token: target.group.conn.token }, nodeName }, criControl: cri.controlPath, agentExec, agentPodSocket: join(dir, 'root', 'pods', 'agent.sock') },
    };
  } catch (err) {
    await close();
    throw err;
  }
}
