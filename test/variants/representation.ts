// Freedoms of the representation: JSON key order, whitespace (except that `pretty` decides between
// one line and indented output), fields and annotations a server adds of its own, and the wording
// of Status messages and Warning headers (spec rules are about codes, reasons and fields).
import type { ProxiedRequest, ProxiedResponse } from '../helpers/broken-target.js';
import { layoutLike, walkObjects, watchEvent, type LegalVariant } from '../helpers/variant-target.js';

/** The server's own extras, as a server with admission plugins or newer fields would add them. */
const EXTRA_FIELD = 'serverExtra';
const EXTRA_ANNOTATION = 'variant.example.com/added-by-server';
const EXTRA_VALUE = { note: 'a field this server adds' };

function parseObject(text: string): any {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every object with metadata (resources, lists, Status) gets an extra field; every one with
 * ObjectMeta (a name) an extra annotation. References to objects (kind, name, no metadata) stay.
 */
function addExtras(v: unknown): void {
  walkObjects(v, (o) => {
    const meta = o.metadata && typeof o.metadata === 'object' && !Array.isArray(o.metadata) ? o.metadata : undefined;
    if (!meta) return;
    if (typeof meta.name === 'string') meta.annotations = { ...meta.annotations, [EXTRA_ANNOTATION]: 'true' };
    o[EXTRA_FIELD] = { ...EXTRA_VALUE };
  });
}

/** What a client sends back of those extras goes, as the server that added them accepts them back. */
function stripExtras(v: unknown): void {
  walkObjects(v, (o) => {
    delete o[EXTRA_FIELD];
    const a = o.metadata?.annotations;
    if (a && typeof a === 'object') delete a[EXTRA_ANNOTATION];
  });
}

/** The same value with every object's keys in reverse order. */
function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversedKeys(x)]));
}

/** One line, with spaces after every `:` and `,` (JSON.stringify writes none). */
function oneLine(v: unknown): string {
  if (Array.isArray(v)) return v.length ? `[ ${v.map((x) => oneLine(x ?? null)).join(', ')} ]` : '[]';
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    return entries.length ? `{ ${entries.map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`).join(', ')} }` : '{}';
  }
  return JSON.stringify(v) ?? 'null';
}

/** Indented (pretty) stays indented, with four spaces instead of two; one line stays one line. */
function relayout(original: string, v: unknown): string {
  const indented = /^[[{]\s*\n/.test(original);
  return indented ? `${JSON.stringify(v, null, 4)}\n` : oneLine(v);
}

/**
 * Other words for a message: the quoted names in it (objects, fields) are kept, since a server's
 * message would still name what it is about, the rest is said differently.
 */
export function reword(text: string): string {
  const quoted = text.match(/"(?:[^"\\]|\\.)*"/g) ?? [];
  return `Request not accepted as sent${quoted.length ? `; concerns ${quoted.join(', ')}` : ''} (worded by the variant)`;
}

/** Each `299 - "text"` warning, reworded. */
function rewordWarnings(header: string): string {
  return header.split(/, (?=\d{3} )/).map((w) => {
    const m = /^(\d{3}) (\S+) "((?:[^"\\]|\\.)*)"(.*)$/.exec(w);
    if (!m) return w;
    const text = m[3]!.replace(/\\(.)/g, '$1');
    const quoted = text.match(/"[^"]*"/g) ?? [];
    const again = `Note from the server${quoted.length ? ` about ${quoted.join(', ')}` : ''}: it was not used as sent`;
    return `${m[1]} ${m[2]} "${again.replace(/(["\\])/g, '\\$1')}"${m[4]}`;
  }).join(', ');
}

function rewordStatus(v: unknown): void {
  walkObjects(v, (o) => {
    if (o.kind === 'Status' && typeof o.message === 'string') o.message = reword(o.message);
  });
}

function editJson(res: ProxiedResponse, edit: (o: any) => void, layout: (original: string, o: unknown) => string): void {
  const o = parseObject(res.body);
  if (!o) return;
  edit(o);
  res.body = layout(res.body, o);
}

/** `"key": value` of an extra as it comes back in a client's JSON (any spacing), with one comma. */
function entryPattern(key: string, value: unknown): RegExp {
  const esc = (s: string) => [...s].map((c) => {
    const lit = /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
    return '{}:,'.includes(c) ? `\\s*${lit}\\s*` : lit;
  }).join('');
  const entry = `${esc(JSON.stringify(key))}\\s*:\\s*${esc(JSON.stringify(value))}`;
  return new RegExp(`,\\s*${entry}|${entry}\\s*,?`, 'g');
}

const EXTRA_ENTRIES = [entryPattern(EXTRA_FIELD, EXTRA_VALUE), entryPattern(EXTRA_ANNOTATION, 'true')];

/**
 * The extras a client sends back go. Cut out of the text, so that the rest of the body keeps its
 * bytes (duplicate keys, key order: what fieldValidation cases send on purpose); a body where they
 * are not found that way (another layout) is parsed and written again.
 */
function stripRequest(req: ProxiedRequest): void {
  if (!req.body.includes(EXTRA_FIELD) && !req.body.includes(EXTRA_ANNOTATION)) return;
  req.body = EXTRA_ENTRIES.reduce((text, p) => text.replace(p, ''), req.body);
  if (!req.body.includes(EXTRA_FIELD) && !req.body.includes(EXTRA_ANNOTATION)) return;
  const o = parseObject(req.body);
  if (!o) return;
  stripExtras(o);
  req.body = JSON.stringify(o);
}

export const representationVariants: LegalVariant[] = [
  {
    name: 'json-layout-and-extras',
    freedom: 'JSON key order and whitespace (pretty only decides one line vs indented); fields and annotations a server adds to every object',
    hooks: () => ({
      request: stripRequest,
      response(_req, res) {
        editJson(res, addExtras, (original, o) => relayout(original, reversedKeys(o)));
      },
      watchLine(_req, line) {
        const e = watchEvent(line);
        if (!e) return line;
        addExtras(e.object);
        return oneLine(reversedKeys(e));
      },
    }),
  },
  {
    name: 'messages-reworded',
    freedom: 'Status.message and Warning header texts worded differently (code, reason, details and fields kept)',
    hooks: () => ({
      response(_req, res) {
        editJson(res, rewordStatus, layoutLike);
        if (res.headers['warning']) res.headers['warning'] = rewordWarnings(res.headers['warning']);
      },
      watchHead(_req, head) {
        if (head.headers['warning']) head.headers['warning'] = rewordWarnings(head.headers['warning']);
      },
      watchLine(_req, line) {
        const e = watchEvent(line);
        if (!e) {
          // A Status refusing the watch comes as the body, not as an event.
          const s = parseObject(line);
          if (s?.kind !== 'Status') return line;
          rewordStatus(s);
          return JSON.stringify(s);
        }
        rewordStatus(e);
        return JSON.stringify(e);
      },
    }),
  },
];
