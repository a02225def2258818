// `mock-cri`: the mock CRI runtime (mocks/cri/) as a process, for an agent under test to use as its
// container runtime, until SIGINT or SIGTERM. Sockets are owner-only and removed on exit.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { startMockCri } from '../../mocks/cri/server.js';
import { checkDeclarations, ImageDeclarationError, parseImageLines, type ImageDeclaration } from '../../mocks/cri/image-declarations.js';
import { UsageError } from '../../runner/errors.js';
import { EXIT } from './exit-codes.js';

export interface MockCriArgs {
  socket: string;
  control?: string;
  root?: string;
  seccompDir?: string;
  images?: string[];
  imagesFile?: string;
}

/** Why the runtime could not start, in words rather than the system's error code. */
function startFailure(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EADDRINUSE': return 'a process already listens on that socket: stop it or pick another --socket/--control';
    case 'EACCES': return 'permission denied: pick paths in a directory you own';
    case 'ENAMETOOLONG': return 'socket path too long (unix sockets allow about 107 bytes): pick a shorter path';
    default: return err.message ?? String(err);
  }
}

/** Every image declared on the command line and in --images-file, checked together (usage errors). */
async function imageDeclarations(args: MockCriArgs): Promise<ImageDeclaration[]> {
  const list: unknown[] = [];
  try {
    list.push(...parseImageLines(args.images ?? []));
  } catch (err) {
    if (err instanceof ImageDeclarationError) throw new UsageError(`--images: ${err.message}`);
    throw err;
  }
  if (args.imagesFile !== undefined) {
    let text: string;
    try {
      text = await readFile(args.imagesFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--images-file ${args.imagesFile}: cannot read it: ${(err as Error).message}`);
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new UsageError(`--images-file ${args.imagesFile}: not YAML or JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(doc)) throw new UsageError(`--images-file ${args.imagesFile}: must hold a list of image declarations ({tags, digests, user, size})`);
    list.push(...doc);
  }
  try {
    checkDeclarations(list);
  } catch (err) {
    if (err instanceof ImageDeclarationError) throw new UsageError(`bad image declaration: ${err.message}`);
    throw err;
  }
  return list as ImageDeclaration[];
}

export async function cmdMockCri(args: MockCriArgs): Promise<number> {
  const images = await imageDeclarations(args);
  // Registered before start, so a signal during start still ends through close().
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  let cri;
  try {
    cri = await startMockCri({ socket: args.socket, control: args.control, root: args.root, seccompDir: args.seccompDir, images });
  } catch (err) {
    throw new UsageError(`cannot start the mock CRI runtime on ${args.socket}: ${startFailure(err as NodeJS.ErrnoException)}`);
  }
  process.stdout.write(`cri: ${cri.criUrl}\n`);
  if (cri.controlPath) process.stdout.write(`control: ${cri.controlPath}\n`);
  await stopped;
  await cri.close();
  return EXIT.ok;
}
