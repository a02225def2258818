// HPACK (RFC 7541) as the authority layer (authority.ts) needs it: a decoder that keeps one peer's
// dynamic table, and an encoder that never touches the receiver's. hpack.js's own compressor and
// decompressor are object-mode streams built for another framing; only its RFC data (the static table
// and the Huffman code) is used here.
//
// Names and values are latin1 strings: one char per byte, so what goes in comes out byte for byte.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const STATIC: { name: string; value: string }[] = require('hpack.js/lib/hpack/static-table.js').table;
/** [bit length, code] of each of the 257 symbols (256 = EOS), RFC 7541 Appendix B. */
const HUFFMAN_CODES: [number, number][] = require('hpack.js/lib/hpack/huffman.js').encode;

export class HpackError extends Error {}

export interface HeaderField {
  name: string;
  value: string;
  /** Sent as "never indexed" (RFC 7541 §6.2.3): intermediaries must keep it so. */
  neverIndex: boolean;
}

/** Huffman decoding trie: node n's children at 2n (bit 0) and 2n+1 (bit 1); a leaf is -(symbol + 1); 0 = none. */
const TRIE = (() => {
  const nodes: number[] = [0, 0];
  for (let sym = 0; sym < HUFFMAN_CODES.length; sym++) {
    const [bits, code] = HUFFMAN_CODES[sym];
    let node = 0;
    for (let b = bits - 1; b >= 0; b--) {
      const slot = 2 * node + ((code >>> b) & 1);
      if (b === 0) {
        nodes[slot] = -(sym + 1);
      } else {
        if (nodes[slot] === 0) {
          nodes[slot] = nodes.length / 2;
          nodes.push(0, 0);
        }
        node = nodes[slot];
      }
    }
  }
  return Int32Array.from(nodes);
})();

function huffmanDecode(buf: Buffer, start: number, end: number): string {
  let out = '';
  let node = 0;
  // Bits read since the last symbol, and whether they were all ones: what may legally pad the end.
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = buf[i];
    for (let b = 7; b >= 0; b--) {
      const bit = (byte >>> b) & 1;
      const next = TRIE[2 * node + bit];
      pending++;
      if (!bit) allOnes = false;
      if (next < 0) {
        const sym = -next - 1;
        if (sym === 256) throw new HpackError('EOS symbol in a Huffman-coded string');
        out += String.fromCharCode(sym);
        node = 0;
        pending = 0;
        allOnes = true;
      } else if (next === 0) {
        throw new HpackError('invalid Huffman code');
      } else {
        node = next;
      }
    }
  }
  // §5.2: padding is the most significant bits of EOS (all ones), strictly shorter than 8 bits.
  if (pending > 7 || !allOnes) throw new HpackError('invalid Huffman padding');
  return out;
}

/** Entry size as §4.1 counts it. */
const entrySize = (name: string, value: string) => 32 + name.length + value.length;

/**
 * One direction's decoding context. `maxTableSize` is the SETTINGS_HEADER_TABLE_SIZE the receiving
 * server advertised: the sender may not grow its table past it (nghttp2's default, 4096, unless the
 * server says otherwise; the servers here never do).
 */
export class HpackDecoder {
  private table: { name: string; value: string }[] = [];
  private size = 0;
  private limit: number;

  constructor(private readonly maxTableSize = 4096) {
    this.limit = maxTableSize;
  }

  /** Decodes one complete header block; throws HpackError on anything RFC 7541 forbids. */
  decode(block: Buffer): HeaderField[] {
    const fields: HeaderField[] = [];
    let pos = 0;
    const end = block.length;

    const int = (prefixBits: number): number => {
      if (pos >= end) throw new HpackError('truncated integer');
      const max = (1 << prefixBits) - 1;
      let v = block[pos++] & max;
      if (v < max) return v;
      let shift = 0;
      for (;;) {
        if (pos >= end) throw new HpackError('truncated integer');
        const b = block[pos++];
        v += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if (v > 0x7fffffff) throw new HpackError('integer too large');
        if (!(b & 0x80)) return v;
      }
    };
    const str = (): string => {
      if (pos >= end) throw new HpackError('truncated string');
      const huffman = (block[pos] & 0x80) !== 0;
      const len = int(7);
      if (len > end - pos) throw new HpackError('truncated string');
      const s = huffman ? huffmanDecode(block, pos, pos + len) : block.toString('latin1', pos, pos + len);
      pos += len;
      return s;
    };
    const lookup = (index: number): { name: string; value: string } => {
      if (index <= 0) throw new HpackError('index 0');
      if (index <= STATIC.length) return STATIC[index - 1];
      const e = this.table[index - STATIC.length - 1];
      if (!e) throw new HpackError(`index ${index} beyond the dynamic table`);
      return e;
    };

    while (pos < end) {
      const b = block[pos];
      if (b & 0x80) {
        // §6.1 indexed field.
        const e = lookup(int(7));
        fields.push({ name: e.name, value: e.value, neverIndex: false });
      } else if (b & 0x40) {
        // §6.2.1 literal with incremental indexing.
        const index = int(6);
        const name = index ? lookup(index).name : str();
        const value = str();
        this.add(name, value);
        fields.push({ name, value, neverIndex: false });
      } else if (b & 0x20) {
        // §6.3 table size update: only before the first field of a block (§4.2), within the limit.
        if (fields.length) throw new HpackError('dynamic table size update after a header field');
        const size = int(5);
        if (size > this.maxTableSize) throw new HpackError(`dynamic table size ${size} above the ${this.maxTableSize} allowed`);
        this.limit = size;
        this.evict(0);
      } else {
        // §6.2.2 without indexing, §6.2.3 never indexed.
        const neverIndex = (b & 0x10) !== 0;
        const index = int(4);
        const name = index ? lookup(index).name : str();
        fields.push({ name, value: str(), neverIndex });
      }
    }
    return fields;
  }

  private add(name: string, value: string): void {
    const size = entrySize(name, value);
    this.evict(size);
    // §4.4: an entry larger than the table empties it and is not added.
    if (size > this.limit) return;
    this.table.unshift({ name, value });
    this.size += size;
  }

  /** Evicts the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.table.length && this.size + room > this.limit) {
      const e = this.table.pop()!;
      this.size -= entrySize(e.name, e.value);
    }
  }
}

const STATIC_EXACT = new Map<string, number>();
const STATIC_NAME = new Map<string, number>();
STATIC.forEach((e, i) => {
  if (!STATIC_EXACT.has(`${e.name}\0${e.value}`)) STATIC_EXACT.set(`${e.name}\0${e.value}`, i + 1);
  if (!STATIC_NAME.has(e.name)) STATIC_NAME.set(e.name, i + 1);
});

/**
 * Encodes `fields` without the dynamic table: static-table references and literals "without indexing"
 * (or "never indexed" where the sender said so), no Huffman. The receiver's table is never added to,
 * so a decoder that also sees blocks from elsewhere (the original sender's) can never disagree with it.
 */
export function encodeWithoutIndexing(fields: readonly HeaderField[]): Buffer {
  const bytes: number[] = [];
  const int = (first: number, prefixBits: number, v: number) => {
    const max = (1 << prefixBits) - 1;
    if (v < max) {
      bytes.push(first | v);
      return;
    }
    bytes.push(first | max);
    v -= max;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 0x80);
    }
    bytes.push(v);
  };
  const str = (s: string) => {
    int(0, 7, s.length);
    for (let i = 0; i < s.length; i++) bytes.push(s.charCodeAt(i) & 0xff);
  };
  for (const f of fields) {
    const exact = f.neverIndex ? undefined : STATIC_EXACT.get(`${f.name}\0${f.value}`);
    if (exact) {
      int(0x80, 7, exact);
      continue;
    }
    const nameIndex = STATIC_NAME.get(f.name) ?? 0;
    int(f.neverIndex ? 0x10 : 0x00, 4, nameIndex);
    if (!nameIndex) str(f.name);
    str(f.value);
  }
  return Buffer.from(bytes);
}
