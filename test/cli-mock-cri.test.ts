// `orch-conformance mock-cri` as users start it: the lines it prints, owner-only sockets a real gRPC
// client talks to, the control API on its socket, and both sockets gone after SIGTERM.
import t from 'tap';
import { execaNode } from 'execa';
import { existsSync, writeFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from './helpers/serve.js';
import { criClient } from '../cri/proto.js';

function controlGet(socketPath: string, path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('mock-cri prints its sockets, serves CRI and control owner-only, and removes both on SIGTERM', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-mock-cri-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'run', 'cri.sock');
  const control = join(dir, 'run', 'control.sock');
  const imagesFile = join(dir, 'images.yaml');
  writeFileSync(imagesFile, '- tags: [example.org/named:1]\n  user: www-data\n  size: 4242\n');
  const proc = execaNode(BIN, ['mock-cri', '--socket', socket, '--control', control, '--images', 'example.org/team/app:2.0',
    '--images', 'example.org/tags:1,tag=example.org/tags:2,user=1002', '--images-file', imagesFile], { reject: false });
  t.teardown(() => { proc.kill('SIGKILL'); });
  const out = await new Promise<string>((resolve, reject) => {
    let text = '';
    proc.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      if (/^control: /m.test(text)) resolve(text);
    });
    proc.on('exit', () => reject(new Error(`mock-cri exited: ${text}`)));
  });
  t.match(out, new RegExp(`^cri: unix://${socket}\ncontrol: ${control}\n$`), 'cri: then control: lines');
  t.equal(statSync(socket).mode & 0o777, 0o600, 'CRI socket 0600');
  t.equal(statSync(control).mode & 0o777, 0o600, 'control socket 0600');
  t.equal(statSync(join(dir, 'run')).mode & 0o777, 0o700, 'socket directory 0700');

  const cri = criClient(`unix://${socket}`);
  t.teardown(() => cri.close());
  const version = await cri.call('Version', { version: 'v1' });
  t.equal(version.runtime_api_version, 'v1');
  const image = await cri.call('ImageStatus', { image: { image: 'example.org/team/app:2.0' } });
  t.same(image.image?.repo_tags, ['example.org/team/app:2.0'], '--images are present at start');
  const tagged = (await cri.call('ImageStatus', { image: { image: 'example.org/tags:2' } })).image;
  t.same([tagged?.repo_tags, tagged?.uid], [['example.org/tags:1', 'example.org/tags:2'], { value: '1002' }], '--images declares tags and user of one image');
  const named = (await cri.call('ImageStatus', { image: { image: 'example.org/named:1' } })).image;
  t.same([named?.username, named?.size], ['www-data', '4242'], '--images-file declares images too');
  const calls = await controlGet(control, '/calls?rpc=Version');
  t.equal(calls.status, 200);
  t.equal(calls.body.calls.length, 1, 'the control API sees the call');

  proc.kill('SIGTERM');
  const r = await proc;
  t.equal(r.exitCode, 0, r.stderr);
  t.notOk(existsSync(socket), 'CRI socket removed');
  t.notOk(existsSync(control), 'control socket removed');
});

t.test('mock-cri: usage errors are one line, exit 2', async (t) => {
  const missing = await execaNode(BIN, ['mock-cri'], { reject: false });
  t.equal(missing.exitCode, 2);
  t.match(missing.stderr, /socket/);
  const dir = mkdtempSync(join(tmpdir(), 'cli-mock-cri-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bad = await execaNode(BIN, ['mock-cri', '--socket', join(dir, 'x'.repeat(120), 'cri.sock')], { reject: false });
  t.equal(bad.exitCode, 2, bad.stderr);
  t.match(bad.stderr, /^orch-conformance: cannot start the mock CRI runtime on [^\n]+$/, 'one line');
  t.notMatch(bad.stderr, /\bat \S+ \(/, 'no stack trace');
  for (const [args, why] of [
    [['--images', 'busybox,user=not valid'], /^orch-conformance: bad image declaration: .*not an image user[^\n]*$/],
    [['--images', 'user=1002'], /^orch-conformance: --images: .*no image reference comes before it[^\n]*$/],
    [['--images', 'a.io/x:1', '--images', 'a.io/y:1,tag=a.io/x:1'], /^orch-conformance: bad image declaration: a\.io\/x:1 is declared for two images[^\n]*$/],
    [['--images-file', join(dir, 'absent.yaml')], /^orch-conformance: --images-file .*cannot read it/],
  ] as const) {
    const r = await execaNode(BIN, ['mock-cri', '--socket', join(dir, 'run', 'c.sock'), ...args], { reject: false });
    t.equal(r.exitCode, 2, args.join(' '));
    t.match(r.stderr, why, args.join(' '));
  }
  writeFileSync(join(dir, 'bad.yaml'), 'tags: [busybox]\n');
  const notList = await execaNode(BIN, ['mock-cri', '--socket', join(dir, 'run', 'c.sock'), '--images-file', join(dir, 'bad.yaml')], { reject: false });
  t.equal(notList.exitCode, 2);
  t.match(notList.stderr, /must hold a list of image declarations/);
  const help = await execaNode(BIN, ['mock-cri', '--help'], { reject: false });
  t.match(help.stdout, /--images-file/);
  t.match(help.stdout, /--control/);
  t.match(help.stdout, /--seccomp-dir/);
  t.match(help.stdout, /--images/);
});
