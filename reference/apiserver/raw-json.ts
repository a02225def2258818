// The shape of a JSON or YAML body as written, duplicate keys included. JSON.parse (and YAML's
// toJS) keep only the last of duplicate keys, so fieldValidation (Warn, Strict) needs its own look at
// the raw text to report them, as upstream's strict decoder does.
import type { Node as YamlNode } from 'yaml';
import { yaml } from '../packages.js';
import { readYaml } from './body-bounds.js';

/** An object keeps every entry in document order, repeated keys included. */
export type RawNode =
  | { readonly kind: 'object'; readonly entries: ReadonlyArray<readonly [string, RawNode]> }
  | { readonly kind: 'array'; readonly items: readonly RawNode[] }
  | { readonly kind: 'scalar'; readonly null: boolean };

const NULL: RawNode = { kind: 'scalar', null: true };
const SCALAR: RawNode = { kind: 'scalar', null: false };

export class RawJsonError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = 'RawJsonError';
  }
}

interface ObjectFrame {
  readonly kind: 'object';
  readonly entries: Array<readonly [string, RawNode]>;
  key: string;
}

interface ArrayFrame {
  readonly kind: 'array';
  readonly items: RawNode[];
}

/**
 * Parses JSON text (RFC 8259) into a RawNode. Iterative, so nesting depth is bounded by memory,
 * not by the call stack: a hostile body cannot crash the server through it.
 */
export function parseRawJson(text: string): RawNode {
  const n = text.length;
  let i = 0;
  const stack: Array<ObjectFrame | ArrayFrame> = [];

  const fail = (what: string): never => {
    throw new RawJsonError(i >= n ? 'unexpected end of JSON input' : `${what}, found ${JSON.stringify(text[i])}`, i);
  };
  const skipSpace = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  /** The end (exclusive) of the string starting at the quote at i; sets i past it. */
  const skipString = (): boolean => {
    // Returns whether the string holds escapes (then it must be decoded).
    let escaped = false;
    i++;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return escaped;
      }
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else if (c < 0x20) {
        fail('control character in string');
      } else {
        i++;
      }
    }
  };
  const readKey = (): string => {
    skipSpace();
    if (text.charCodeAt(i) !== 0x22) fail('expected a string key');
    const start = i;
    const escaped = skipString();
    let key: string;
    if (!escaped) {
      key = text.slice(start + 1, i - 1);
    } else {
      try {
        key = JSON.parse(text.slice(start, i)) as string;
      } catch {
        i = start;
        return fail('invalid escape in string');
      }
    }
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) fail('expected ":"');
    i++;
    return key;
  };
  const readScalar = (): RawNode => {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      if (skipString()) {
        try {
          JSON.parse(text.slice(start, i));
        } catch {
          i = start;
          fail('invalid escape in string');
        }
      }
      return SCALAR;
    }
    for (const [word, node] of [['true', SCALAR], ['false', SCALAR], ['null', NULL]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return node;
      }
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = i;
    if (i < n && m.test(text)) {
      i = m.lastIndex;
      return SCALAR;
    }
    return fail('expected a value');
  };

  for (;;) {
    skipSpace();
    let value: RawNode;
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        value = { kind: 'object', entries: [] };
      } else {
        stack.push({ kind: 'object', entries: [], key: readKey() });
        continue;
      }
    } else if (c === 0x5b) {
      i++;
      skipSpace();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        value = { kind: 'array', items: [] };
      } else {
        stack.push({ kind: 'array', items: [] });
        continue;
      }
    } else {
      value = readScalar();
    }
    // Attach the finished value to its container, closing containers that end here.
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) {
        skipSpace();
        if (i < n) fail('unexpected data after the value');
        return value;
      }
      if (top.kind === 'object') top.entries.push([top.key, value]);
      else top.items.push(value);
      skipSpace();
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (top.kind === 'object') top.key = readKey();
        break;
      }
      if ((top.kind === 'object' && d === 0x7d) || (top.kind === 'array' && d === 0x5d)) {
        i++;
        stack.pop();
        value = top.kind === 'object' ? { kind: 'object', entries: top.entries } : { kind: 'array', items: top.items };
        continue;
      }
      fail(top.kind === 'object' ? 'expected "," or "}"' : 'expected "," or "]"');
    }
  }
}

/**
 * The RawNode of a YAML body, duplicate keys included, within the bounds of body-bounds.ts (JSON
 * text is read as JSON). Keys are turned into strings the way the body decoder does (`yaml` with
 * string map keys; null becomes "").
 */
export function parseRawYaml(text: string): RawNode {
  return readYaml(text, parseRawJson, (doc) => {
    if (doc.errors.length) throw new RawJsonError(doc.errors[0]!.message.split('\n')[0]!, doc.errors[0]!.pos[0]);
    const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
    // An alias is the RawNode of its anchor, shared: the anchor was converted before it (in
    // document order), and the bounds refused aliases inside their own anchor and expansions past
    // the node limit. Recursion is bounded by the depth limit.
    const anchored = new Map<string, RawNode>();
    const convert = (node: unknown): RawNode => {
      if (isAlias(node)) return anchored.get(node.source) ?? NULL;
      let raw: RawNode;
      if (isMap(node)) {
        const entries: Array<readonly [string, RawNode]> = [];
        for (const pair of node.items) {
          if (!isPair(pair)) continue;
          convert(pair.key); // for an anchor it may carry
          entries.push([yamlKey(pair.key), convert(pair.value)]);
        }
        raw = { kind: 'object', entries };
      } else if (isSeq(node)) {
        raw = { kind: 'array', items: node.items.map(convert) };
      } else if (isScalar(node)) {
        raw = node.value === null || node.value === undefined ? NULL : SCALAR;
      } else {
        raw = node === null || node === undefined ? NULL : SCALAR;
      }
      const anchor = (node as { anchor?: string } | null)?.anchor;
      if (anchor) anchored.set(anchor, raw);
      return raw;
    };
    return convert(doc.contents);
  });
}

function yamlKey(key: unknown): string {
  if (yaml().isScalar(key)) return key.value === null || key.value === undefined ? '' : String(key.value);
  if (key === null || key === undefined) return '';
  if (typeof key === 'object' && 'toString' in key) return String((key as YamlNode).toString());
  return String(key);
}
