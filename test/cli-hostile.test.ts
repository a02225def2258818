// The runner never dies on a hostile target: a server that answers every request (watches
// included) with a 100 MB body. The run ends with exit 1 and a written report, each case errored
// with the cap's message, and the runner's peak memory (VmHWM, read from outside the process)
// stays under 300 MB.
import t from 'tap';
import { execaNode } from 'execa';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN } from './helpers/serve.js';

const BODY_BYTES = 100 * 1024 * 1024;
const CHUNK = Buffer.from(`${'0,'.repeat(32 * 1024)}`);

/** Streams `{"items":[0,0,0,...` up to 100 MB, honouring back-pressure; stops when the client goes. */
function sendHuge(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.on('error', () => undefined);
  let sent = 0;
  const pump = () => {
    while (sent < BODY_BYTES && !res.destroyed) {
      sent += CHUNK.length;
      if (!res.write(sent === CHUNK.length ? Buffer.concat([Buffer.from('{"items":['), CHUNK]) : CHUNK)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end('0]}');
  };
  pump();
}

/** The peak resident set size of a process in bytes (VmHWM), or undefined once it is gone. */
function peakRss(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

t.test('a target sending 100 MB bodies: exit 1, a report, bounded memory', { skip: existsSync('/proc/self/status') ? false : 'needs /proc to read the runner\'s peak memory' }, async (t) => {
  const srv = createServer((req, res) => {
    req.resume();
    sendHuge(res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => { srv.closeAllConnections(); srv.close(); });
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'oc-hostile-'));

  // Storage class cases (reads, writes, a watch) and the discovery reads.
  const child = execaNode(BIN, ['run', '--api', url, '--suite', 'storageclass,discovery', '--timeout', '60', '--reporter', `json=${dir}/r.json`], {
    reject: false, timeout: 300_000,
    // Not the test runner's own node flags (tap's loaders): the runner as users start it.
    nodeOptions: [],
  });
  let peak = 0;
  const poll = setInterval(() => { peak = Math.max(peak, peakRss(child.pid!) ?? 0); }, 20);
  const r = await child;
  clearInterval(poll);

  t.equal(r.exitCode, 1, r.stderr);
  t.notMatch(r.stderr, /internal error|heap out of memory/);
  const report = JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'));
  t.ok(report.summary.total >= 15);
  const capped = report.cases.filter((c: any) => /response body larger than 16 MiB \(--max-response-bytes\)/.test(c.message));
  t.ok(capped.length > 0, 'cases name the cap');
  t.equal(report.summary.passed, 0, 'no case passes on such answers');
  t.ok(peak > 0, 'the peak was read');
  t.ok(peak < 300 * 1024 * 1024, `peak RSS ${Math.round(peak / 1024 / 1024)} MB is under 300 MB`);
});
