// Prometheus text exposition (0.0.4) written directly, for the agent's /metrics/cadvisor and
// /metrics/resource: their samples carry their own timestamps (when the figure was measured), which
// prom-client cannot express, and they are rebuilt from scratch on every scrape anyway.

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge';

interface Family { help: string; type: MetricType; lines: string[] }

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
/** A label value escaped for the exposition (most need nothing: checked first, as this runs per sample). */
export const escapeLabel = (s: string) => (/[\\"\n]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : s);
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/** `a="x",b="y"`: label pairs rendered for the exposition (names checked, values escaped). */
export function labelText(labels: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [k, v] of labels) {
    if (!LABEL.test(k)) throw new Error(`invalid label name ${JSON.stringify(k)}`);
    out += `${out ? ',' : ''}${k}="${escapeLabel(v)}"`;
  }
  return out;
}

/** Families in the order first declared; a family declared twice keeps its first help and type. */
export class TextExposition {
  private readonly families = new Map<string, Family>();

  family(name: string, type: MetricType, help: string): this {
    if (!NAME.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
    if (!this.families.has(name)) this.families.set(name, { help, type, lines: [] });
    return this;
  }

  has(name: string): boolean {
    return this.families.has(name);
  }

  /** One sample of a declared family; labels in the order given, `timestampMs` optional. */
  sample(name: string, labels: ReadonlyArray<readonly [string, string]>, value: number, timestampMs?: number): void {
    this.sampleText(name, labelText(labels), value, timestampMs);
  }

  /** One sample whose labels were rendered by `labelText` (a series' labels rendered once, used by many families). */
  sampleText(name: string, labels: string, value: number, timestampMs?: number): void {
    const f = this.families.get(name);
    if (!f) throw new Error(`metric family ${name} not declared`);
    f.lines.push(`${name}${labels ? `{${labels}}` : ''} ${formatValue(value)}${timestampMs === undefined ? '' : ` ${Math.round(timestampMs)}`}`);
  }

  render(): string {
    let out = '';
    for (const [name, f] of this.families) {
      out += `# HELP ${name} ${escapeHelp(f.help)}\n# TYPE ${name} ${f.type}\n`;
      if (f.lines.length) out += `${f.lines.join('\n')}\n`;
    }
    return out;
  }
}
