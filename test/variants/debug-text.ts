// Freedoms of the debug pages' words (spec 002 §4, §2.1): the text forms of /statusz and /flagz are
// "a warning line that it is not machine parseable, then" the fields, in no set words or formats,
// and the SLI metrics are "alpha-labeled in their help text" in no set form. This variant words
// them its own way on the API server's endpoints (the proxy stands for the API server only; the
// other components' pages stay the reference's). The "<component> statusz" line before the warning
// is kept: the metadata-name cases read the component name from it. In VARIANT_RUNS it runs with
// variants that do not touch the debug pages, so it hides none of them nor they it.
import type { ProxiedRequest, ProxiedResponse } from '../helpers/broken-target.js';
import type { LegalVariant } from '../helpers/variant-target.js';

const WARNING = 'WARNING: this page is for people; do not parse it by machine, its layout changes without notice.';

const isPath = (req: ProxiedRequest, path: string) => req.path.split('?')[0] === path;
const isText = (res: ProxiedResponse) => (res.headers['content-type'] ?? '').startsWith('text/plain');

/** Upstream's warning line, whatever its words, replaced by ours. */
const rewordWarning = (body: string) => body.replace(/^Warning: .*not meant to be machine parseable.*$/m, WARNING);

/** `0 hr 02 min 35 sec` as `0h2m35s`. */
function goDuration(upstream: string): string {
  const m = /^(\d+) hr (\d+) min (\d+) sec$/.exec(upstream.trim());
  return m ? `${Number(m[1])}h${Number(m[2])}m${Number(m[3])}s` : upstream;
}

/** Upstream's labelled lines in other words, the start time as RFC 3339 and the uptime as Go writes a duration. */
function rewordStatusz(body: string): string {
  return rewordWarning(body)
    .replace(/^Started: (.*)$/m, (_, v: string) => `Start time: ${Number.isNaN(Date.parse(v)) ? v : new Date(Date.parse(v)).toISOString()}`)
    .replace(/^Up: (.*)$/m, (_, v: string) => `Uptime = ${goDuration(v)}`)
    .replace(/^Go version: /m, 'Toolchain: ')
    .replace(/^Binary version: /m, 'Build: ')
    .replace(/^Emulation version: /m, 'Emulates API version ')
    .replace(/^Paths: (.*)$/m, (_, v: string) => `Other debug pages: ${v.split(' ').join(', ')}`);
}

export const debugTextVariants: LegalVariant[] = [
  {
    name: 'debug-text-reworded',
    freedom: '002 §4 /statusz and /flagz text: "a warning line ..., then" the fields, in words of its own (labels, warning, time and duration formats); §2.1 SLI help texts "alpha-labeled" as "(alpha) ..." rather than "[ALPHA] ..."',
    hooks: () => ({
      response(req, res) {
        if (res.status !== 200 || !isText(res)) return;
        if (isPath(req, '/statusz')) res.body = rewordStatusz(res.body);
        else if (isPath(req, '/flagz')) res.body = rewordWarning(res.body);
        else if (isPath(req, '/metrics/slis')) res.body = res.body.replace(/^(# HELP \S+ )\[ALPHA\] /gm, '$1(alpha) ');
      },
    }),
  },
];
