// How fast the processes an embedded run starts come up (issue 25, "fast starts"): `serve` to a
// served /version over HTTPS, and an agent launch as --agent-exec starts it (the runner's flags, a
// JSON kubeconfig of the run's API, a CRI runtime) to its "agent:" line. Each is set against a
// baseline measured in the same run, round by round, so that a busy machine slows both alike:
//
//   serve        / a bare Node HTTPS server (node:https, a certificate read from a file) answering
//                  /version to the same client                                        aim: 3x
//   agent launch / a bare Node process printing one line                              aim: 2x
//
// Figures are medians over the rounds, of wall time (spawn to ready) and of the process's own CPU
// time (user + system, read from /proc/<pid>/stat when it is ready): on a shared machine the CPU
// ratio is the steadier one. Linux only (/proc).
//
//   node dist/bench/startup.js [--rounds 7] [--deadline-seconds 60]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateSelfSigned } from '../reference/tls.js';
import { loadKubeconfig } from '../runner/kubeconfig.js';
import { positiveInt, printTable, quantile } from './report.js';
import { stopProcess } from './load.js';

const BIN = fileURLToPath(new URL('../bin/orch-conformance.js', import.meta.url));

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'deadline-seconds': { type: 'string', default: '60' },
  },
});
const ROUNDS = positiveInt('startup', 'rounds', args.rounds!);
const DEADLINE_MS = positiveInt('startup', 'deadline-seconds', args['deadline-seconds']!) * 1000;

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system) a live process has used so far, ms. */
function cpuMs(pid: number): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12th and 13th after the name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

interface Started {
  proc: ChildProcess;
  /** Standard output up to the ready line. */
  out: string;
}

const running = new Set<ChildProcess>();

/** Spawns `node <argv>` and resolves once its standard output matches `ready`. */
function start(argv: readonly string[], ready: RegExp): Promise<Started> {
  const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let out = '';
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-8192)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${argv.join(' ')}: not ready within ${DEADLINE_MS / 1000} s: ${out}${err}`)), DEADLINE_MS);
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ proc, out });
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')}: exited (${code ?? signal}) before it was ready: ${out}${err}`));
    });
  });
}


/** GET `url` over HTTPS trusting `ca`; rejects unless it answers 200. */
function getOk(url: string, ca: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET ${url}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Sample { wallMs: number; cpuMs: number }

/** One start: spawn to ready (and, for servers, to /version answered), the child's CPU then; stops it. */
async function measure(argv: readonly string[], ready: RegExp, served?: (s: Started) => Promise<void>): Promise<Sample> {
  const t0 = performance.now();
  const s = await start(argv, ready);
  try {
    if (served) await served(s);
    return { wallMs: performance.now() - t0, cpuMs: cpuMs(s.proc.pid!) };
  } finally {
    await stopProcess(s.proc);
  }
}

/** The first capture of `re` in `text`; throws when absent. */
function line(text: string, re: RegExp): string {
  const m = re.exec(text);
  if (!m) throw new Error(`no ${re} in: ${text}`);
  return m[1]!;
}

const work = mkdtempSync(join(tmpdir(), 'oc-bench-startup-'));
try {
  // The bare HTTPS server's certificate, made once: the baseline reads a file, as a server given its
  // pair does; serve generates its own at start, which is part of what is measured.
  const pair = generateSelfSigned('127.0.0.1');
  writeFileSync(join(work, 'tls.crt'), pair.certPem);
  writeFileSync(join(work, 'tls.key'), pair.keyPem, { mode: 0o600 });
  const bareHttps = `const https = require('node:https'); const fs = require('node:fs');
const s = https.createServer({ cert: fs.readFileSync(${JSON.stringify(join(work, 'tls.crt'))}), key: fs.readFileSync(${JSON.stringify(join(work, 'tls.key'))}) },
  (req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ major: '1', minor: '37' })); });
s.listen(0, '127.0.0.1', () => process.stdout.write('api: https://127.0.0.1:' + s.address().port + '\\n'));`;
  const bareProcess = `process.stdout.write('ready\\n'); setInterval(() => {}, 1 << 30);`;

  // The agents' control plane and runtime, up for the whole run (as an embedded run's are).
  const plane = await start([BIN, 'serve', '--api-port', '0', '--kubeconfig-out', join(work, 'admin.kubeconfig')], /^api: /m);
  const cri = await start([BIN, 'mock-cri', '--socket', join(work, 'cri', 'cri.sock')], /^cri: /m);
  // The kubeconfig as the runner writes it for the agents it launches (runner/agent-exec.ts): JSON.
  const k = loadKubeconfig(join(work, 'admin.kubeconfig'));
  const kubeconfig = join(work, 'agent.kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'run',
    clusters: [{ name: 'run', cluster: { server: k.server, 'certificate-authority-data': Buffer.from(k.caPem ?? '').toString('base64') } }],
    users: [{ name: 'run', user: { token: k.token } }],
    contexts: [{ name: 'run', context: { cluster: 'run', user: 'run' } }],
  }, null, 2), { mode: 0o600 });
  const criUrl = line(cri.out, /^cri: (\S+)$/m);

  const samples: Record<'bare' | 'agent' | 'https' | 'serve', Sample[]> = { bare: [], agent: [], https: [], serve: [] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.bare.push(await measure(['-e', bareProcess], /^ready$/m));
    const node = `bench-startup-${round}`;
    samples.agent.push(await measure([BIN, 'agent', '--root-dir', join(work, node), '--container-runtime-endpoint', criUrl, '--hostname-override', node,
      '--address', '127.0.0.1', '--port', '0', '--kubeconfig', kubeconfig], /^agent: /m));
    const version = (ca: (s: Started) => string) => async (s: Started) => getOk(`${line(s.out, /^api: (\S+)$/m)}/version`, ca(s));
    samples.https.push(await measure(['-e', bareHttps], /^api: /m, version(() => pair.caPem)));
    samples.serve.push(await measure([BIN, 'serve', '--api-port', '0'], /^api: /m, version((s) => readFileSync(line(s.out, /^ca: (\S+)$/m), 'utf8'))));
  }
  await Promise.all([stopProcess(plane.proc), stopProcess(cri.proc)]);

  const p50 = (xs: Sample[], f: keyof Sample) => quantile(xs.map((s) => s[f]), 0.5);
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  console.log(`startup: ${ROUNDS} rounds, medians; CPU = the process's user + system time when ready`);
  printTable(['start', 'wall', 'CPU'], [
    ['bare Node process (one line printed)', ms(p50(samples.bare, 'wallMs')), ms(p50(samples.bare, 'cpuMs'))],
    ['agent launch (--agent-exec flags) to "agent:"', ms(p50(samples.agent, 'wallMs')), ms(p50(samples.agent, 'cpuMs'))],
    ['bare Node HTTPS server to /version', ms(p50(samples.https, 'wallMs')), ms(p50(samples.https, 'cpuMs'))],
    ['serve to /version over HTTPS', ms(p50(samples.serve, 'wallMs')), ms(p50(samples.serve, 'cpuMs'))],
  ]);
  console.log('');
  const ratio = (a: Sample[], b: Sample[], f: keyof Sample) => p50(a, f) / p50(b, f);
  const verdict = (r: number, aim: number) => `${r.toFixed(1)}x${r <= aim ? '' : ' (over the aim)'}`;
  printTable(['ratio', 'aim', 'wall', 'CPU'], [
    ['agent launch / bare Node process', '2x', verdict(ratio(samples.agent, samples.bare, 'wallMs'), 2), verdict(ratio(samples.agent, samples.bare, 'cpuMs'), 2)],
    ['serve / bare Node HTTPS server', '3x', verdict(ratio(samples.serve, samples.https, 'wallMs'), 3), verdict(ratio(samples.serve, samples.https, 'cpuMs'), 3)],
  ]);
} finally {
  for (const p of running) p.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
