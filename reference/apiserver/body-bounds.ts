// Bounds on the shape of request bodies, checked before the expensive parse. The byte limit
// (3 MiB) is not enough: a body of that size that is all structure (700,000 `{}` in a flow list,
// a million `- a` lines, deep nesting, an alias bomb) took the yaml library seconds and gigabytes,
// blocking every other request. Every request body is parsed through here: JSON by `parseJson`
// (and `checkJson` before the raw-shape parser of fieldValidation), YAML by `readYaml` (JSON text
// in a YAML body as JSON), so that a body is refused within a few milliseconds, or parsed within
// the budget of the whole request (100 ms, 50 MB). Refusals are 400s worded like the decoders' own
// errors (the caller puts its usual prefix before the message).
import type { Document } from 'yaml';
import { yaml } from '../packages.js';

/**
 * Nesting depth, JSON and YAML alike. Upstream's JSON decoder (encoding/json) allows 10,000 levels,
 * which Go's growable stacks afford; V8's fixed stack does not: JSON.stringify (storage, every
 * response) gives up between 4,000 and 5,000 levels, structuredClone (apply, patches) before 2,000,
 * and the yaml library, about 15 frames a level, between 500 and 1,500 levels, as an error or worse
 * (a regular expression compiled that close to the end of the stack aborts the process). Objects
 * nest 10 to 20 levels (their managedFields a few more); 200 leaves room for any free-form value
 * and keeps every one of those far from the end of the stack.
 */
export const MAX_DEPTH = 200;

/**
 * Collections and their entries in a body (YAML's with its aliases expanded). JSON.parse is native
 * and fast, but past it the server walks the value in JS again and again (fieldValidation's raw
 * shape, decoding, defaults and validation, managedFields' field sets, storage, the response):
 * items of keyed lists (containers, env) cost about 12 µs each to create, 28 to apply, so a pod of
 * 1,600 containers, at this limit, takes about 60 ms to create and 140 to apply. Upstream has no
 * such limit. Objects stay well under it: the bulkiest legitimate ones, roles aggregating many
 * rules and pods of many containers and variables (20 of 20: 1,300), under 2,500; nodes, with the
 * 50 images kubelet reports, under 1,000.
 */
export const MAX_NODES = 5_000;

/**
 * The yaml library's work on a body, in tokens (scalars, indicators, spaces, line breaks,
 * comments), counting every YAML_CHARS_PER_TOKEN characters of text as a token too, and
 * double-quoted characters thrice. Counting (its own lexer, stopped at the limit) and parsing
 * together take about 1.5 µs a token and 38 ns a character (double-quoted ones another 80 ns,
 * decoded one at a time into ropes of 32 bytes a character): this many take about 30 ms, leaving
 * the rest of the budget to what follows (MAX_NODES). A manifest has about 9 tokens a line: a pod
 * of 20 containers of 20 variables (870 lines) is 8,000; text alone reaches the limit at 1 MB, four
 * times the most any kind takes in strings (annotations: 256 KiB). JSON text (what kubectl sends,
 * YAML too) is read by JSON.parse and held to JSON's bounds instead.
 */
export const MAX_YAML_TOKENS = 20_000;
const YAML_CHARS_PER_TOKEN = 50;

/**
 * Aliases in a YAML body. Each is resolved by a walk over the document's anchors, and each may
 * stand for a whole subtree: the yaml library's own maxAliasCount (100, per anchor, weighted by
 * the aliases inside it) limits the toJS result but not what JSON.stringify and the raw walk then
 * expand, so the expansion itself is measured against MAX_NODES. goyaml refuses "excessive
 * aliasing" the same way: never under 100 aliases, above that when aliases expand to most of the
 * document (99% for small ones, 10% for large).
 */
export const MAX_YAML_ALIASES = 100;

export class BodyBoundsError extends Error {
  override readonly name = 'BodyBoundsError';
}

const tooDeep = (): BodyBoundsError => new BodyBoundsError(`exceeded max depth: more than ${MAX_DEPTH} nested levels`);
const tooManyNodes = (): BodyBoundsError => new BodyBoundsError(`too many values: more than ${MAX_NODES} collections and entries`);

/**
 * Refuses JSON text nested deeper than MAX_DEPTH or holding more than MAX_NODES collections
 * and entries (counted as every `{`, `[` and `,`). One pass; strings are skipped whole.
 */
export function checkJson(text: string): void {
  let depth = 0;
  let nodes = 0;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x22: // "
        i = stringEnd(text, i);
        break;
      case 0x5b: // [
      case 0x7b: // {
        if (++depth > MAX_DEPTH) throw tooDeep();
        if (++nodes > MAX_NODES) throw tooManyNodes();
        break;
      case 0x2c: // ,
        if (++nodes > MAX_NODES) throw tooManyNodes();
        break;
      case 0x5d: // ]
      case 0x7d: // }
        if (depth > 0) depth--;
        break;
    }
  }
}

/** The index of the quote closing the JSON string opened at `start` (the text's end if none). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** JSON.parse within the bounds. */
export function parseJson(text: string): unknown {
  checkJson(text);
  return JSON.parse(text);
}

/**
 * Refuses YAML text past the token, depth or alias limits, reading the yaml library's own lexer
 * (so nothing the parser sees escapes the count) and stopping at the first limit passed; returns
 * how many aliases it holds. Depth is that of flow collections plus block collections; the latter
 * are followed by their columns: a `-` or `?` opens (or continues) a collection at its column, a
 * `key:` at its key's, a line closes those to the right of its indentation.
 */
function checkYaml(text: string): number {
  const tooMuch = (): BodyBoundsError =>
    new BodyBoundsError(`too much YAML: more than ${MAX_YAML_TOKENS} tokens, counting every ${YAML_CHARS_PER_TOKEN} characters as one more`);
  let tokens = text.length / YAML_CHARS_PER_TOKEN;
  if (tokens > MAX_YAML_TOKENS) throw tooMuch();
  let flow = 0;
  let aliases = 0;
  let column = 0;
  let lineStart = true;
  let nodeColumn = 0; // where the current node (a mapping's key, if `:` follows) began
  let nodeStart = true;
  let scalar = false; // the lexer marks the next token as a scalar's text
  const levels: number[] = []; // open block collections: column * 2, plus 1 for a sequence
  const open = (at: number, sequence: boolean): void => {
    const level = at * 2 + (sequence ? 1 : 0);
    let top = levels[levels.length - 1];
    // A key where a sequence was, at the same column: that sequence was the previous key's value.
    if (!sequence && top === level + 1) {
      levels.pop();
      top = levels[levels.length - 1];
    }
    // The same collection again is a further entry; a sequence at a mapping's column is its value.
    if (top === level) return;
    levels.push(level);
    if (levels.length + flow > MAX_DEPTH) throw tooDeep();
  };
  for (const token of new (yaml().Lexer)().lex(text)) {
    if (++tokens > MAX_YAML_TOKENS) throw tooMuch();
    const c = token.charCodeAt(0);
    if (c === 0x1f) {
      scalar = true;
      continue;
    }
    if (c === 0x18) flow = 0; // a flow collection ended by an error
    if (c < 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) continue; // the lexer's markers take no room
    const blank = !scalar && (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x23); // spaces, line breaks, comments
    if (!blank && flow === 0) {
      if (lineStart) {
        while (levels.length && levels[levels.length - 1]! >> 1 > column) levels.pop();
        lineStart = false;
      }
      if (nodeStart) {
        nodeColumn = column;
        nodeStart = false;
      }
    }
    if (!blank && !scalar) {
      switch (c) {
        case 0x2d: // - (an indicator: a scalar starting with it is marked, `---` is longer)
        case 0x3f: // ?
          if (flow === 0 && token.length === 1) {
            open(column, c === 0x2d);
            nodeStart = true;
          }
          break;
        case 0x3a: // :
          if (flow === 0 && token.length === 1) {
            open(nodeColumn, false);
            nodeStart = true;
          }
          break;
        case 0x5b: // [
        case 0x7b: // {
          if (++flow + levels.length > MAX_DEPTH) throw tooDeep();
          break;
        case 0x5d: // ]
        case 0x7d: // }
          if (flow > 0) flow--;
          break;
        case 0x2a: // *
          if (++aliases > MAX_YAML_ALIASES) throw new BodyBoundsError(`excessive aliasing: more than ${MAX_YAML_ALIASES} YAML aliases`);
          break;
        case 0x22: // "
          tokens += (2 * token.length) / YAML_CHARS_PER_TOKEN;
          if (tokens > MAX_YAML_TOKENS) throw tooMuch();
          break;
      }
    }
    scalar = false;
    const newline = token.lastIndexOf('\n');
    if (newline === -1) {
      column += token.length;
    } else {
      column = token.length - newline - 1;
      if (column === 0) lineStart = nodeStart = true;
    }
  }
  return aliases;
}

/**
 * The size of a document with its aliases expanded, in MAX_NODES's units (collections and their
 * entries), refusing an alias inside its own anchor. Anchors are looked up as the yaml library
 * does (the last node so anchored before the alias); recursion is bounded by MAX_DEPTH.
 */
function expandedSize(doc: Document): number {
  const { isAlias, isCollection, isPair } = yaml();
  const anchored = new Map<string, unknown>();
  const sizes = new Map<unknown, number>();
  const size = (node: unknown): number => {
    if (isAlias(node)) {
      const source = anchored.get(node.source);
      const n = sizes.get(source);
      if (source !== undefined && n === undefined) throw new BodyBoundsError(`excessive aliasing: alias *${node.source} is inside its own anchor`);
      return n ?? 0; // an unknown anchor is the parser's error to report
    }
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (anchor) anchored.set(anchor, node);
    let n = 0;
    if (isCollection(node)) {
      n = 1;
      for (const item of node.items) n += 1 + (isPair(item) ? size(item.key) + size(item.value) : size(item));
    }
    if (anchor) sizes.set(node, n);
    return n;
  };
  return size(doc.contents);
}

type ParsedYaml = { readonly json: true } | { readonly doc: Document.Parsed } | { readonly error: unknown };

/**
 * The body being read, parsed: a create or update body is read twice (its value, then its raw
 * shape for fieldValidation), an apply body the other way round, one right after the other, and
 * parsing is the costly part. Kept until the current job ends.
 */
let last: { readonly text: string; readonly parsed: ParsedYaml } | undefined;

function parseYamlBounded(text: string): ParsedYaml {
  if (last?.text === text) return last.parsed;
  let parsed: ParsedYaml;
  try {
    parsed = parseYamlText(text);
  } catch (error) {
    parsed = { error };
  }
  last = { text, parsed };
  queueMicrotask(() => (last = undefined));
  return parsed;
}

function parseYamlText(text: string): ParsedYaml {
  // JSON text (what kubectl sends) is YAML too, and read far faster as JSON.
  if (/^\s*[[{]/.test(text)) {
    checkJson(text);
    if (isJson(text)) return { json: true };
  }
  const aliases = checkYaml(text);
  const doc = yaml().parseDocument(text, { uniqueKeys: false });
  if (expandedSize(doc) > MAX_NODES) {
    throw aliases ? new BodyBoundsError(`excessive aliasing: the aliases expand to more than ${MAX_NODES} collections and entries`) : tooManyNodes();
  }
  return { doc };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a YAML body within the bounds: JSON text with `json`, anything else from the yaml
 * library's document (duplicate keys kept, YAML 1.2 core schema) with `fromDocument`, which
 * reports the document's errors as it sees fit.
 */
export function readYaml<T>(text: string, json: (text: string) => T, fromDocument: (doc: Document.Parsed) => T): T {
  const parsed = parseYamlBounded(text);
  if ('error' in parsed) throw parsed.error;
  if ('json' in parsed) return json(text);
  if (!parsed.doc.errors.length) refuseUnconvertibleKeys(parsed.doc);
  return fromDocument(parsed.doc);
}

/**
 * YAML allows any node as a mapping key; JSON only strings. Upstream turns string, number and
 * boolean keys into strings and refuses the rest (collections and null) when it converts YAML to
 * JSON, so a body with such a key is a 400, not an object with a made-up key.
 */
function refuseUnconvertibleKeys(doc: Document.Parsed): void {
  const { isScalar, visit } = yaml();
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key;
      if (isScalar(key) && key.value !== null && key.value !== undefined && typeof key.value !== 'object') return;
      const shown = isScalar(key) ? 'null' : String(key).replace(/\s+/g, ' ').slice(0, 64);
      throw new Error(`error converting YAML to JSON: yaml: invalid map key: ${shown}`);
    },
  });
}

/** What `yaml.parse(text, { uniqueKeys: false })` gives (the last of duplicate keys wins), within the bounds. */
export function parseYaml(text: string): unknown {
  return readYaml(text, JSON.parse, (doc) => {
    if (doc.errors.length) throw doc.errors[0];
    return doc.toJS();
  });
}
