// A private etcd (Debian's `etcd-server`, v3.4; .ci/run installs it) for the storage tests: members
// on free loopback ports, each with a fresh 0700 data directory under one temp dir, started as one
// cluster and waited for until every member answers /health; killed and removed at teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../runner/agent-exec.js';

export const ETCD_BIN = '/usr/bin/etcd';
/** How long a cluster may take to become healthy. */
export const ETCD_START_MS = 30_000;

/** Why a private etcd cannot be started here, or undefined when it can. */
export function etcdUnavailable(): string | undefined {
  return existsSync(ETCD_BIN) ? undefined : `${ETCD_BIN} is missing (apt-get install --no-install-recommends etcd-server; .ci/run installs it)`;
}

export interface EtcdMember {
  readonly name: string;
  /** Its client URL, http://127.0.0.1:<port>. */
  readonly clientUrl: string;
  /** Whether its process is running. */
  running(): boolean;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data (after kill) and waits until it is healthy. */
  restart(): Promise<void>;
  /** SIGSTOP: the process hangs, its connections stay open and unanswered (SIGCONT with resume()). */
  pause(): void;
  resume(): void;
}

export interface RunningEtcd {
  readonly members: readonly EtcdMember[];
  /** Every member's client URL, for `--etcd-servers`. */
  readonly clientUrls: string[];
  /** Every member's log so far. */
  log(): string;
  /** Kills every member and removes the directory; safe to call more than once. */
  close(): Promise<void>;
}

interface MemberState {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
  proc?: ChildProcess;
  exited: boolean;
}

export interface EtcdTls {
  /** PEMs of the members' serving certificate (for 127.0.0.1) and key, and of the CA that signed both. */
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  /** A client certificate and key the CA signed: what the health check presents. */
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

/**
 * Starts an etcd cluster of `size` members (default 1) and waits until each is healthy; it is closed
 * at `t`'s teardown, whatever the test's outcome. With `tls`, clients speak HTTPS and must present a
 * certificate signed by `tls.caPem` (etcd's --client-cert-auth); members still talk plain HTTP.
 */
export async function startEtcd(t: { teardown(fn: () => unknown): void }, size = 1, tls?: EtcdTls): Promise<RunningEtcd> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-etcd-'));
  let log = '';
  const states: MemberState[] = [];
  const scheme = tls ? 'https' : 'http';
  for (let i = 0; i < size; i++) {
    const name = `m${i}`;
    const dataDir = join(dir, name);
    mkdirSync(dataDir, { mode: 0o700 });
    states.push({ name, clientUrl: `${scheme}://127.0.0.1:${await freePort()}`, peerUrl: `http://127.0.0.1:${await freePort()}`, dataDir, exited: true });
  }
  const tlsArgs: string[] = [];
  if (tls) {
    const files = { cert: join(dir, 'server.crt'), key: join(dir, 'server.key'), ca: join(dir, 'ca.crt') };
    writeFileSync(files.cert, tls.certPem);
    writeFileSync(files.key, tls.keyPem, { mode: 0o600 });
    writeFileSync(files.ca, tls.caPem);
    tlsArgs.push(`--cert-file=${files.cert}`, `--key-file=${files.key}`, `--trusted-ca-file=${files.ca}`, '--client-cert-auth');
  }
  const initialCluster = states.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const launch = (s: MemberState): void => {
    const args = [
      `--name=${s.name}`,
      `--data-dir=${s.dataDir}`,
      `--listen-client-urls=${s.clientUrl}`,
      `--advertise-client-urls=${s.clientUrl}`,
      `--listen-peer-urls=${s.peerUrl}`,
      `--initial-advertise-peer-urls=${s.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      '--initial-cluster-state=new',
      `--initial-cluster-token=${dir}`,
      '--logger=zap',
      '--log-level=warn',
      ...tlsArgs,
    ];
    const proc = spawn(ETCD_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (c: Buffer) => (log += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    s.proc = proc;
    s.exited = false;
    proc.once('exit', () => (s.exited = true));
  };
  const kill = async (s: MemberState): Promise<void> => {
    if (s.exited || !s.proc) return;
    const proc = s.proc;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await gone;
  };
  const healthy = async (s: MemberState): Promise<void> => {
    const deadline = Date.now() + ETCD_START_MS;
    for (;;) {
      if (s.exited) throw new Error(`etcd member ${s.name} exited early:\n${log}`);
      const ok = tls
        ? await healthyOverTls(s.clientUrl, tls)
        : await fetch(`${s.clientUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
            async (r) => r.status === 200 && ((await r.json()) as { health?: string }).health === 'true',
            () => false,
          );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`etcd member ${s.name} not healthy within ${ETCD_START_MS} ms:\n${log}`);
      await sleep(100);
    }
  };
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await Promise.all(states.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  t.teardown(close);
  states.forEach(launch);
  await Promise.all(states.map(healthy));
  return {
    members: states.map((s) => ({
      name: s.name,
      clientUrl: s.clientUrl,
      running: () => !s.exited,
      kill: () => kill(s),
      restart: async () => {
        await kill(s);
        launch(s);
        await healthy(s);
      },
      pause: () => void s.proc?.kill('SIGSTOP'),
      resume: () => void s.proc?.kill('SIGCONT'),
    })),
    clientUrls: states.map((s) => s.clientUrl),
    log: () => log,
    close,
  };
}

/** etcd's /health over TLS, presenting the client certificate. */
function healthyOverTls(url: string, tls: EtcdTls): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpsGet(`${url}/health`, { ca: tls.caPem, cert: tls.clientCertPem, key: tls.clientKeyPem, timeout: 2_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')));
    });
    req.once('error', () => resolve(false));
    req.once('timeout', () => req.destroy());
  });
}
