// The shardSelector of list and watch (alpha, gate ShardedListAndWatch; upstream KEP-5866): a CEL
// expression of `shardRange(<path>, '<hexStart>', '<hexEnd>')` terms joined by `||`. An object is
// selected when the 64-bit FNV-1a hash of the path's string bytes lies in [start, end) of a term.
import { invalidOptions } from './errors.js';
import { fieldErrors } from './field-errors.js';
import type { ApiObject } from './strategy.js';

/** The paths a term may hash. */
export const SHARD_PATHS = ['object.metadata.uid', 'object.metadata.namespace'] as const;
export type ShardPath = (typeof SHARD_PATHS)[number];

/** The end of the hash space, 2^64 (an upper bound may equal it). */
export const HASH_SPACE_END = 1n << 64n;

export interface ShardRange {
  readonly path: ShardPath;
  /** Inclusive. */
  readonly start: bigint;
  /** Exclusive. */
  readonly end: bigint;
}

export interface ShardSelector {
  readonly text: string;
  readonly ranges: readonly ShardRange[];
  matches(obj: ApiObject): boolean;
}

const FNV_OFFSET_64 = 0xcbf29ce484222325n;
const FNV_PRIME_64 = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/** FNV-1a, 64 bits, over the UTF-8 bytes of `s`. */
export function fnv1a64(s: string): bigint {
  let h = FNV_OFFSET_64;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= BigInt(b);
    h = (h * FNV_PRIME_64) & MASK_64;
  }
  return h;
}

function valueAt(obj: ApiObject, p: ShardPath): string {
  const meta = obj.metadata ?? {};
  const v = p === 'object.metadata.uid' ? meta.uid : meta.namespace;
  return typeof v === 'string' ? v : '';
}

export function inShardRange(obj: ApiObject, r: ShardRange): boolean {
  const h = fnv1a64(valueAt(obj, r.path));
  return h >= r.start && h < r.end;
}

class ShardSyntaxError extends Error {}

/** A tiny scanner over the selector: whitespace-insensitive between tokens, as CEL is. */
class Scanner {
  pos = 0;
  constructor(private readonly s: string) {}

  skip(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos]!)) this.pos++;
  }

  done(): boolean {
    this.skip();
    return this.pos >= this.s.length;
  }

  expect(text: string, what = `'${text}'`): void {
    this.skip();
    if (!this.s.startsWith(text, this.pos)) throw new ShardSyntaxError(`expected ${what} at position ${this.pos}`);
    this.pos += text.length;
  }

  tryTake(text: string): boolean {
    this.skip();
    if (!this.s.startsWith(text, this.pos)) return false;
    this.pos += text.length;
    return true;
  }

  identifierPath(): string {
    this.skip();
    const m = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(this.s.slice(this.pos));
    if (!m) throw new ShardSyntaxError(`expected a field path at position ${this.pos}`);
    this.pos += m[0].length;
    return m[0];
  }

  quoted(): string {
    this.skip();
    const q = this.s[this.pos];
    if (q !== "'") throw new ShardSyntaxError(`expected a single-quoted string at position ${this.pos}`);
    const close = this.s.indexOf("'", this.pos + 1);
    if (close < 0) throw new ShardSyntaxError(`unterminated string at position ${this.pos}`);
    const v = this.s.slice(this.pos + 1, close);
    this.pos = close + 1;
    return v;
  }
}

function parseBound(text: string, which: 'start' | 'end'): bigint {
  if (!/^0x[0-9a-fA-F]+$/.test(text)) throw new ShardSyntaxError(`shardRange ${which} bound ${JSON.stringify(text)} must be a hex string with a 0x prefix`);
  const v = BigInt(text);
  if (v > HASH_SPACE_END) throw new ShardSyntaxError(`shardRange ${which} bound ${text} is beyond the hash space [0x0, 0x10000000000000000]`);
  return v;
}

/** Parses and validates a shard selector; throws 422 Invalid on anything malformed. */
export function parseShardSelector(text: string): ShardSelector {
  const ranges: ShardRange[] = [];
  try {
    const sc = new Scanner(text);
    do {
      sc.expect('shardRange', "'shardRange('");
      sc.expect('(');
      const p = sc.identifierPath();
      if (!(SHARD_PATHS as readonly string[]).includes(p)) {
        throw new ShardSyntaxError(`unsupported path ${JSON.stringify(p)}: supported paths are ${SHARD_PATHS.map((x) => JSON.stringify(x)).join(', ')}`);
      }
      sc.expect(',');
      const start = parseBound(sc.quoted(), 'start');
      sc.expect(',');
      const end = parseBound(sc.quoted(), 'end');
      sc.expect(')');
      if (start >= HASH_SPACE_END) throw new ShardSyntaxError('shardRange start bound must be below 0x10000000000000000');
      if (start >= end) throw new ShardSyntaxError('shardRange start bound must be lower than its end bound');
      ranges.push({ path: p as ShardPath, start, end });
    } while (sc.tryTake('||'));
    if (!sc.done()) throw new ShardSyntaxError(`unexpected input at position ${sc.pos}: terms must be joined by '||'`);
  } catch (err) {
    if (!(err instanceof ShardSyntaxError)) throw err;
    throw invalidOptions('ListOptions', [fieldErrors.invalid('shardSelector', text, err.message)]);
  }
  return {
    text,
    ranges,
    matches: (obj) => ranges.some((r) => inShardRange(obj, r)),
  };
}
