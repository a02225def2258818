// Reading the CRI container log format (upstream pkg/kubelet/kuberuntime/logs): one record a line,
// `<RFC3339Nano timestamp> <stdout|stderr> <tags> <text>`, where the first tag is `F` (the line ends
// here) or `P` (a partial line, continued by the next record of the stream). What the reader writes
// follows upstream's logWriter: the text of each record, a newline after a full record, and with
// `timestamps` the record's time in RFC3339NanoFixed (nine fraction digits) and a space before each
// line (not before the continuation of a partial one); `limitBytes` counts those prefixes too.
import { open, stat, type FileHandle } from 'node:fs/promises';

export interface CriLogRecord {
  /** Nanoseconds since the epoch. */
  ns: bigint;
  /** The timestamp as RFC3339NanoFixed, in the zone it was written in. */
  fixed: string;
  stream: 'stdout' | 'stderr';
  partial: boolean;
  text: string;
}

const TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/** An RFC 3339 time (fraction optional) to nanoseconds and its fixed form; undefined when malformed. */
export function parseRfc3339Nano(s: string): { ns: bigint; fixed: string } | undefined {
  const m = TIME.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  const frac = (m[2] ?? '').padEnd(9, '0');
  return { ns: BigInt(ms) * 1_000_000n + BigInt(frac), fixed: `${m[1]}.${frac}${m[3]}` };
}

/** One line of the file (without its newline); undefined for a line that is not a CRI record (skipped, as upstream does). */
export function parseCriLine(line: string): CriLogRecord | undefined {
  const a = line.indexOf(' ');
  const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
  if (b < 0) return undefined;
  const c = line.indexOf(' ', b + 1);
  const time = parseRfc3339Nano(line.slice(0, a));
  const stream = line.slice(a + 1, b);
  if (!time || (stream !== 'stdout' && stream !== 'stderr')) return undefined;
  const tags = c < 0 ? line.slice(b + 1) : line.slice(b + 1, c);
  return { ...time, stream, partial: tags.split(':')[0] === 'P', text: c < 0 ? '' : line.slice(c + 1) };
}

export interface LogReadOptions {
  /** Records before this time (ns) are skipped. */
  sinceNs?: bigint;
  timestamps: boolean;
  /** Bytes written at most; undefined: no limit. */
  limitBytes?: number;
}

/**
 * Turns records into the bytes a client gets, as upstream's logWriter: keeps whether the last record
 * ended its line (a timestamp only starts a line) and the bytes still allowed.
 */
export class LogFormatter {
  private lineStart = true;
  private left: number;

  constructor(private readonly o: LogReadOptions) {
    this.left = o.limitBytes ?? Infinity;
  }

  /** True once limitBytes is spent: nothing more will be written. */
  get done(): boolean {
    return this.left <= 0;
  }

  /** The bytes for one record ('' when skipped), cut at the limit. */
  format(r: CriLogRecord): Buffer {
    if (this.done || (this.o.sinceNs !== undefined && r.ns < this.o.sinceNs)) return Buffer.alloc(0);
    const prefix = this.o.timestamps && this.lineStart ? `${r.fixed} ` : '';
    this.lineStart = !r.partial;
    let out = Buffer.from(`${prefix}${r.text}${r.partial ? '' : '\n'}`);
    if (out.length > this.left) out = out.subarray(0, this.left);
    this.left -= out.length;
    return out;
  }
}

const CHUNK = 64 * 1024;

/**
 * Where the last `n` lines of the file start (upstream tail.FindTailLineStartIndex: counts records,
 * reading backwards in chunks, so a long file is never read whole). A last line without its newline
 * (a record being written) counts as one.
 */
export async function tailStart(fh: FileHandle, size: number, n: number): Promise<number> {
  if (n <= 0) return size;
  let pos = size;
  let seen = 0;
  let first = true;
  const buf = Buffer.alloc(CHUNK);
  while (pos > 0) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    await fh.read(buf, 0, len, pos);
    for (let i = len - 1; i >= 0; i--) {
      if (buf[i] !== 0x0a) { first = false; continue; }
      // The newline that ends the file closes the last line rather than starting one.
      if (first && pos + i === size - 1) { first = false; continue; }
      first = false;
      if (++seen === n) return pos + i + 1;
    }
  }
  return 0;
}

/** Reads complete lines from a file position on; keeps an unfinished last line for the next read. */
export class LineReader {
  private rest = Buffer.alloc(0);
  private readonly buf = Buffer.alloc(CHUNK);

  private constructor(private fh: FileHandle, private pos: number, private readonly path: string) {}

  static async open(path: string, from: (fh: FileHandle, size: number) => Promise<number>): Promise<LineReader> {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      return new LineReader(fh, await from(fh, size), path);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }

  /** The complete lines written since the last call (at most one chunk of bytes); [] at the end of the file. */
  async next(): Promise<string[]> {
    const { bytesRead } = await this.fh.read(this.buf, 0, CHUNK, this.pos);
    if (bytesRead === 0) return [];
    this.pos += bytesRead;
    const all = Buffer.concat([this.rest, this.buf.subarray(0, bytesRead)]);
    const end = all.lastIndexOf(0x0a);
    if (end < 0) { this.rest = all; return []; }
    this.rest = Buffer.from(all.subarray(end + 1));
    return all.subarray(0, end).toString('utf8').split('\n');
  }

  /**
   * Following a log the runtime may reopen (rotation: the path names a new, shorter file): true when
   * the path now holds another file or this one shrank, and the reader moved to its start.
   */
  async reopenIfReplaced(): Promise<boolean> {
    let now: { ino: number; size: number };
    try {
      now = await stat(this.path);
    } catch {
      return false;
    }
    const mine = await this.fh.stat();
    if (now.ino === mine.ino && now.size >= this.pos) return false;
    await this.fh.close();
    this.fh = await open(this.path, 'r');
    this.pos = 0;
    this.rest = Buffer.alloc(0);
    return true;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
