// Checkpoint archives (mocks/cri/checkpoint.ts): a private tar that both the `tar` package and the
// system's tar read, with the manifest, the config and the fake memory image.
import t from 'tap';
import { execa } from 'execa';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { list as tarList } from 'tar';
import {
  CHECKPOINT_ENTRIES,
  CHECKPOINT_FORMAT,
  CheckpointError,
  PAGES_BYTES,
  fakeMemoryImage,
  writeCheckpoint,
  type CheckpointSource,
} from '../../../mocks/cri/checkpoint.js';

const root = mkdtempSync(join(tmpdir(), 'extras-ckpt-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

const SOURCE: CheckpointSource = {
  id: 'c0ffee0123456789',
  name: 'web',
  sandboxId: 'sb-42',
  image: 'docker.io/library/nginx:1.25',
  config: { metadata: { name: 'web', attempt: 0 }, image: { image: 'nginx:1.25' }, command: ['sleep', '30'], labels: { app: 'web' }, big: 12345678901234567890n },
  createdAt: '1700000000000000000',
  startedAt: '1700000001000000000',
};

const mode = (p: string) => statSync(p).mode & 0o777;

async function listWithPackage(file: string): Promise<{ path: string; mode: number; type: string }[]> {
  const entries: { path: string; mode: number; type: string }[] = [];
  await tarList({ file, onReadEntry: (e) => void entries.push({ path: e.path, mode: (e.mode ?? 0) & 0o777, type: e.type }) });
  return entries;
}

t.test('the archive holds the manifest, the config and the memory image, readable by any tar', async (t) => {
  const file = join(root, 'checkpoint-web.tar');
  await writeCheckpoint(file, SOURCE);
  t.equal(mode(file), 0o600, 'archive is owner-only');

  const entries = await listWithPackage(file);
  t.same(entries.map((e) => e.path), [...CHECKPOINT_ENTRIES], 'the tar package lists the entries');
  t.same(entries.map((e) => e.type), ['File', 'File', 'File', 'Directory']);
  t.ok(entries.filter((e) => e.type === 'File').every((e) => e.mode === 0o600), 'files are 0600 inside the archive too');

  const system = await execa('tar', ['-tf', file]);
  t.same(system.stdout.split('\n').filter(Boolean), [...CHECKPOINT_ENTRIES], 'system tar lists the same entries');

  const out = join(root, 'extracted');
  mkdirSync(out);
  await execa('tar', ['-xf', file, '-C', out]);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  t.match(manifest, {
    format: CHECKPOINT_FORMAT,
    containerId: SOURCE.id,
    containerName: 'web',
    sandboxId: 'sb-42',
    image: SOURCE.image,
    createdAt: SOURCE.createdAt,
    startedAt: SOURCE.startedAt,
    files: { 'pages-1.img': { bytes: PAGES_BYTES } },
  });
  t.ok(Number.isFinite(Date.parse(manifest.checkpointedAt)));
  const config = JSON.parse(readFileSync(join(out, 'config.dump'), 'utf8'));
  t.same(config, { ...(SOURCE.config as object), big: '12345678901234567890' }, 'config as JSON, BigInt as a decimal string');
  const pages = readFileSync(join(out, 'pages-1.img'));
  t.equal(pages.length, PAGES_BYTES);
  t.ok(pages.equals(fakeMemoryImage(SOURCE.id)), 'memory image is the deterministic one');
  t.ok(statSync(join(out, 'checkpoint')).isDirectory());
  t.equal(mode(join(out, 'pages-1.img')), 0o600, 'extracted memory image stays private');
  t.same(readdirSync(root).filter((n) => n.includes('partial')), [], 'no partial file left behind');
});

t.test('the memory image is deterministic per container', async (t) => {
  t.ok(fakeMemoryImage('a').equals(fakeMemoryImage('a')));
  t.notOk(fakeMemoryImage('a').equals(fakeMemoryImage('b')));
  const img = fakeMemoryImage('a');
  t.ok(new Set(img).size > 200, 'not a constant fill');
});

t.test('the archive is 0600 whatever the umask', async (t) => {
  const old = process.umask(0);
  try {
    const file = join(root, 'umask0.tar');
    await writeCheckpoint(file, SOURCE);
    t.equal(mode(file), 0o600);
  } finally {
    process.umask(old);
  }
});

t.test('an existing file is replaced by a private archive; a symlink is replaced, not followed', async (t) => {
  const file = join(root, 'existing.tar');
  writeFileSync(file, 'old', { mode: 0o644 });
  await writeCheckpoint(file, SOURCE);
  t.equal(mode(file), 0o600);
  t.same((await listWithPackage(file)).map((e) => e.path), [...CHECKPOINT_ENTRIES]);

  const victim = join(root, 'victim.txt');
  writeFileSync(victim, 'keep me', { mode: 0o644 });
  const link = join(root, 'link.tar');
  symlinkSync(victim, link);
  await writeCheckpoint(link, SOURCE);
  t.equal(readFileSync(victim, 'utf8'), 'keep me', 'the symlink target is untouched');
  t.notOk(lstatSync(link).isSymbolicLink(), 'the link itself became the archive');
  t.equal(mode(link), 0o600);
  t.throws(() => readlinkSync(link));
});

t.test('bad locations are refused before anything is written', async (t) => {
  const dir = join(root, 'refusals');
  mkdirSync(join(dir, 'a-directory'), { recursive: true });
  const cases: [string, RegExp][] = [
    ['', /location is empty/],
    ['relative/ckpt.tar', /must be an absolute path/],
    ['ckpt.tar', /must be an absolute path/],
    [join(dir, 'missing-parent', 'ckpt.tar'), /parent directory .*missing-parent does not exist/],
    [join(dir, 'a-directory'), /is an existing directory/],
    [join(dir, 'ckpt') + '/', /names a directory/],
    [join(dir, 'x\0.tar'), /NUL/],
  ];
  for (const [location, msg] of cases) {
    await t.rejects(writeCheckpoint(location, SOURCE), { name: 'CheckpointError', message: msg }, JSON.stringify(location));
  }
  writeFileSync(join(dir, 'file'), '');
  await t.rejects(writeCheckpoint(join(dir, 'file', 'ckpt.tar'), SOURCE), { message: /parent .* is not a directory/ });
  t.same(readdirSync(dir).sort(), ['a-directory', 'file'], 'nothing was created');
  t.same(readdirSync(join(dir, 'a-directory')), []);
  t.ok(new CheckpointError('x') instanceof Error);
});

t.test('a config that cannot be serialised fails cleanly', async (t) => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const dir = join(root, 'cyclic');
  mkdirSync(dir);
  await t.rejects(writeCheckpoint(join(dir, 'c.tar'), { ...SOURCE, config: cyclic }), { name: 'CheckpointError', message: /config cannot be serialised/ });
  t.same(readdirSync(dir), []);
});
