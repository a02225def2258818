// A strict reader of the Prometheus text exposition format (version 0.0.4), for cases that check
// what a component exposes: HELP and TYPE per metric family, samples with labels, and every line it
// could not read.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  /** The sample's own timestamp (ms since the epoch), when it carries one. */
  readonly timestamp?: number;
}

export interface Family {
  help?: string;
  type?: string;
}

export interface Exposition {
  readonly families: ReadonlyMap<string, Family>;
  readonly samples: readonly Sample[];
  /** Lines that are not valid text exposition, with their line number. */
  readonly errors: readonly string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function unescape(s: string, quotes: boolean): string {
  return s.replace(quotes ? /\\([\\"n])/g : /\\([\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(s: string): number | undefined {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  const n = Number(s);
  return s.trim() !== '' && !Number.isNaN(n) ? n : undefined;
}

/** `{a="x",b="y\"z"}` from position `i` (at `{`); returns the labels and the position after `}`. */
function parseLabels(line: string, i: number): { labels: Record<string, string>; end: number } | string {
  const labels: Record<string, string> = {};
  i++;
  for (;;) {
    while (line[i] === ' ') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq < 0) return 'label without "="';
    const name = line.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) return `bad label name ${JSON.stringify(name)}`;
    if (line[eq + 1] !== '"') return `label ${name}: value not quoted`;
    let j = eq + 2;
    let raw = '';
    while (j < line.length && line[j] !== '"') {
      if (line[j] === '\\') {
        raw += line.slice(j, j + 2);
        j += 2;
      } else {
        raw += line[j++];
      }
    }
    if (j >= line.length) return `label ${name}: unterminated value`;
    if (name in labels) return `label ${name} given twice`;
    labels[name] = unescape(raw, true);
    i = j + 1;
    while (line[i] === ' ') i++;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') return `label ${name}: expected "," or "}"`;
  }
}

export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const samples: Sample[] = [];
  const errors: string[] = [];
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = {}));
    return f;
  };
  text.split('\n').forEach((line, n) => {
    const err = (why: string) => errors.push(`line ${n + 1}: ${why}: ${JSON.stringify(line.slice(0, 200))}`);
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ''] = m as unknown as [string, 'HELP' | 'TYPE', string, string?];
      if (!NAME.test(name)) return err('bad metric name');
      const f = family(name);
      if (kind === 'HELP') {
        if (f.help !== undefined) return err(`second HELP for ${name}`);
        f.help = unescape(rest, false);
      } else {
        if (f.type !== undefined) return err(`second TYPE for ${name}`);
        if (!TYPES.has(rest.trim())) return err(`unknown type ${JSON.stringify(rest.trim())}`);
        f.type = rest.trim();
      }
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    if (!m) return err('not a sample');
    const name = m[1]!;
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === '{') {
      const l = parseLabels(line, i);
      if (typeof l === 'string') return err(l);
      labels = l.labels;
      i = l.end;
    }
    const parts = line.slice(i).trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || !/^\s/.test(line.slice(i))) return err('expected " <value> [timestamp]"');
    const value = parseValue(parts[0]!);
    if (value === undefined) return err(`bad value ${JSON.stringify(parts[0])}`);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) return err(`bad timestamp ${JSON.stringify(parts[1])}`);
    samples.push(parts[1] !== undefined ? { name, labels, value, timestamp: Number(parts[1]) } : { name, labels, value });
  });
  return { families, samples, errors };
}

/** Samples of one metric name. */
export function samplesOf(e: Exposition, name: string): Sample[] {
  return e.samples.filter((s) => s.name === name);
}
