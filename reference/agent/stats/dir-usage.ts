// Disk usage of directories (container logs, pod volumes), as upstream's `du`-based figures, kept
// for a while: walking a tree per request for hundreds of containers would cost more than the rest of
// the answer. A figure older than `maxAgeMs` is served while a fresh walk runs in the background;
// a directory asked for the first time is walked before the answer (its figure is then current).
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Usage { bytes: number; inodes: number }

const NONE: Usage = { bytes: 0, inodes: 0 };

/** Bytes (allocated blocks, as du counts) and inodes under `dir`; a missing directory uses nothing. */
export async function walkUsage(dir: string): Promise<Usage> {
  let bytes = 0;
  let inodes = 0;
  const visit = async (path: string): Promise<void> => {
    let st;
    try {
      st = await lstat(path);
    } catch {
      return; // gone meanwhile, or never there
    }
    inodes += 1;
    bytes += st.blocks * 512;
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = await readdir(path);
    } catch {
      return;
    }
    await Promise.all(names.map((n) => visit(join(path, n))));
  };
  await visit(dir);
  return inodes === 0 ? NONE : { bytes, inodes };
}

export class DirUsageCache {
  private readonly entries = new Map<string, { usage: Usage; at: number; walking?: Promise<Usage> }>();

  constructor(private readonly maxAgeMs = 10_000, private readonly walk: (dir: string) => Promise<Usage> = walkUsage) {}

  async usage(dir: string): Promise<Usage> {
    const e = this.entries.get(dir);
    const now = Date.now();
    if (e && now - e.at < this.maxAgeMs) return e.usage;
    if (e) {
      e.walking ??= this.walk(dir).then(
        (u) => { this.entries.set(dir, { usage: u, at: Date.now() }); return u; },
        () => { e.walking = undefined; return e.usage; },
      );
      return e.usage;
    }
    const usage = await this.walk(dir).catch(() => NONE);
    this.entries.set(dir, { usage, at: Date.now() });
    return usage;
  }

  /** Forgets directories not in `keep` (pods and containers that are gone). */
  retain(keep: ReadonlySet<string>): void {
    for (const k of this.entries.keys()) if (!keep.has(k)) this.entries.delete(k);
  }
}
