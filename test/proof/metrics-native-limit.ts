// The proof of metrics.native.bucket-limit (spec 002 §8, at most 160 native buckets) is a reference
// whose histogram code really breaks the limit, not a rewritten scrape: `orch-conformance serve` in a
// process of its own, started with the test-only switches of reference/observability/breaks.ts.
// At the reference's usual resolution (bucket factor 1.1, schema 3: 8 buckets per doubling) no case
// can drive a histogram past 160 buckets in its time (that takes 20 doublings of latency, 30 µs to
// 30 s, every bucket hit), so the broken reference starts its histograms at schema 8 (legal by
// itself) and keeps every bucket (`native-no-bucket-limit`): the case's load then populates some 400.
// metrics-native-limit.test.ts also runs the case against a reference at schema 8 that keeps the
// limit, where the same load makes the reduction run, and it must pass.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { BIN } from '../helpers/serve.js';
import type { Breakage, ProxiedRequest, ProxiedResponse } from '../helpers/broken-target.js';

export const FINE_SCHEMA = 'native-schema-8';
export const NO_LIMIT = 'native-no-bucket-limit';

export interface SwitchedReference {
  url: string;
  caPem: string;
  close(): void;
}

/**
 * `serve --api-port 0` with ORCH_CONFORMANCE_METRICS_BREAK=<switches>, resolved once it printed its
 * URL. It does not keep the test process alive, and is stopped when that process exits.
 */
export async function startSwitchedReference(switches: readonly string[]): Promise<SwitchedReference> {
  const proc: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--api-port', '0'], {
    env: { ...process.env, ORCH_CONFORMANCE_METRICS_BREAK: switches.join(',') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => { proc.kill('SIGTERM'); };
  process.once('exit', stop);
  const close = () => { process.removeListener('exit', stop); stop(); };
  try {
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      proc.stdout!.on('data', (c: Buffer) => {
        text += c.toString();
        if (/^api: \S+$/m.test(text)) resolve(text);
      });
      proc.once('exit', (code) => reject(new Error(`serve exited (${code}) before printing its URL: ${text}`)));
    });
    proc.unref();
    (proc.stdout as unknown as { unref(): void }).unref();
    const url = /^api: (\S+)$/m.exec(out)![1]!;
    const ca = /^ca: (\S+)$/m.exec(out)?.[1];
    if (!ca) throw new Error(`serve printed no CA file: ${out}`);
    return { url, caPem: await readFile(ca, 'utf8'), close };
  } catch (err) {
    close();
    throw err;
  }
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host'];

/** Binary bodies (the protobuf scrape) travel as latin1 strings, as broken-target.ts reads them. */
const encodingOf = (headers: Record<string, string>): BufferEncoding => (/protobuf|octet-stream/i.test(headers['content-type'] ?? '') ? 'latin1' : 'utf8');

/** Sends every request to `upstream` instead of the proxy's own (a whole other reference). */
export function forwardTo(upstream: () => Promise<SwitchedReference>): Breakage {
  let agent: Agent | undefined;
  return {
    async request(req: ProxiedRequest): Promise<ProxiedResponse> {
      const ref = await upstream();
      agent ??= new Agent({ connect: { ca: ref.caPem } });
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.includes(k.toLowerCase())));
      const res = await request(new URL(req.path, ref.url), { method: req.method as 'GET', headers, body: req.body || undefined, dispatcher: agent });
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !HOP_BY_HOP.includes(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
      const bytes = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: out, body: bytes.toString(encodingOf(out)) };
    },
  };
}

let broken: Promise<SwitchedReference> | undefined;

/** The reference whose native histograms keep every bucket at schema 8: started on first use, shared. */
export const unlimitedHistograms: Breakage = forwardTo(() => (broken ??= startSwitchedReference([FINE_SCHEMA, NO_LIMIT])));
