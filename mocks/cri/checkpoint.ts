// Checkpoint archives of the mock CRI runtime (spec 001 §4.1).
//
// CheckpointContainer must leave a tar archive at the requested location that any tar can read. A
// real archive holds every memory page of the container, private keys included, so it is written
// owner-only from its first byte: the archive is built into a temporary file created 0600 next to
// the target (O_EXCL, so no other file is reused) and renamed over the location when complete, so a
// reader never sees a partial or world-readable archive, and a symlink at the location is replaced
// rather than followed. The entries are staged in a private (0700) temporary directory because the
// `tar` package packs files from disk; they are 0600 in the archive too, so extraction keeps them private.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { create as tarCreate } from 'tar';

/** The value of `format` in every manifest this module writes. */
export const CHECKPOINT_FORMAT = 'orch-mock-cri-checkpoint/v1';

/** Archive entries, in archive order. */
export const CHECKPOINT_ENTRIES = ['manifest.json', 'config.dump', 'pages-1.img', 'checkpoint/'] as const;

/** Size of the fake memory image: two 4 KiB pages, enough to look like one without slowing tests. */
export const PAGES_BYTES = 8192;

export interface CheckpointSource {
  id: string;
  name: string;
  sandboxId: string;
  image: string;
  config: unknown;
  createdAt: string;
  startedAt: string;
}

/** A location that cannot take an archive, or an archive that could not be written. */
export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

/** Deterministic bytes standing in for the container's memory: SHA-256 blocks keyed by container id,
 *  so two checkpoints of one container are identical and different containers differ. */
export function fakeMemoryImage(containerId: string, size = PAGES_BYTES): Buffer {
  const out = Buffer.alloc(size);
  for (let off = 0, block = 0; off < size; off += 32, block++) {
    createHash('sha256').update(`${containerId}\0page-block\0${block}`).digest().copy(out, off);
  }
  return out;
}

/** JSON that survives values a decoded request may hold: BigInt becomes a decimal string. */
function toJson(value: unknown): string {
  return JSON.stringify(
    value ?? null,
    function (this: unknown, _key, v: unknown) {
      if (typeof v === 'bigint') return v.toString();
      return v;
    },
    2,
  );
}

/** Refuses a location before anything is written: relative, missing parent, a directory. */
async function checkLocation(location: unknown): Promise<string> {
  if (typeof location !== 'string' || location === '') throw new CheckpointError('checkpoint location is empty');
  if (location.includes('\0')) throw new CheckpointError('checkpoint location contains a NUL byte');
  if (!isAbsolute(location)) throw new CheckpointError(`checkpoint location ${location} must be an absolute path`);
  if (location.endsWith('/')) throw new CheckpointError(`checkpoint location ${location} names a directory, not an archive file`);
  const target = normalize(location);
  const parent = dirname(target);
  try {
    const st = await stat(parent);
    if (!st.isDirectory()) throw new CheckpointError(`checkpoint location ${target}: parent ${parent} is not a directory`);
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(`checkpoint location ${target}: parent directory ${parent} does not exist`);
  }
  try {
    const st = await lstat(target);
    if (st.isDirectory()) throw new CheckpointError(`checkpoint location ${target} is an existing directory`);
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new CheckpointError(`checkpoint location ${target}: ${(err as Error).message}`);
    }
  }
  return target;
}

/** Writes a tar archive (mode 0600) at `location` (absolute path; parent must exist) holding a manifest,
 *  the container config and a fake memory image; rejects with CheckpointError on a bad location. */
export async function writeCheckpoint(location: string, c: CheckpointSource): Promise<void> {
  const target = await checkLocation(location);
  let config: string;
  try {
    config = toJson(c.config) + '\n';
  } catch (err) {
    throw new CheckpointError(`container ${c.id}: its config cannot be serialised: ${(err as Error).message}`);
  }
  const pages = fakeMemoryImage(c.id);
  const manifest = {
    format: CHECKPOINT_FORMAT,
    containerId: c.id,
    containerName: c.name,
    sandboxId: c.sandboxId,
    image: c.image,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    checkpointedAt: new Date().toISOString(),
    files: {
      'config.dump': { bytes: Buffer.byteLength(config) },
      'pages-1.img': { bytes: pages.length, sha256: createHash('sha256').update(pages).digest('hex') },
    },
  };

  const stage = await mkdtemp(join(tmpdir(), 'orch-mock-cri-ckpt-')); // 0700
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.partial`);
  let renamed = false;
  try {
    await writeFile(join(stage, 'manifest.json'), toJson(manifest) + '\n', { mode: 0o600 });
    await writeFile(join(stage, 'config.dump'), config, { mode: 0o600 });
    await writeFile(join(stage, 'pages-1.img'), pages, { mode: 0o600 });
    await mkdir(join(stage, 'checkpoint'), { mode: 0o700 });
    await packInto(stage, partial);
    await rename(partial, target);
    renamed = true;
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(`checkpoint of container ${c.id} to ${target} failed: ${(err as Error).message}`);
  } finally {
    await rm(stage, { recursive: true, force: true });
    if (!renamed) await rm(partial, { force: true });
  }
}

/** Packs the staged entries into a new file created 0600 (fails if `file` exists). */
function packInto(stage: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // 'wx' = O_CREAT|O_EXCL; the mode is applied at creation, so the file is never wider than 0600.
    const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    const pack = tarCreate({ cwd: stage, portable: true }, [...CHECKPOINT_ENTRIES]);
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      out.destroy();
      reject(err);
    };
    pack.on('error', fail);
    out.on('error', fail);
    out.on('close', () => {
      if (!failed) resolve();
    });
    pack.pipe(out);
  });
}
