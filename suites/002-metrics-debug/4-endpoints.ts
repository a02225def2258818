// Spec 002 §4: /metrics/slis, the text and structured forms of /statusz and /flagz, their gates,
// /configz and the essential read-only paths.
import { defineCase, type Case } from '../case.js';
import { expectCode, expectEqual, expectTrue, fail, show, skip } from '../verify.js';
import { upstream } from '../findings.js';
import { parseExposition } from './exposition.js';
import {
  debugCase,
  everyComponent,
  DELIMITERS,
  expectJsonObject,
  expectMediaType,
  expectTextHeader,
  FLAGZ_ACCEPT,
  getWithAccept,
  linesAfterWarning,
  mediaType,
  STATUSZ_ACCEPT,
  upstreamWarningWords,
  zpageText,
} from './debug-common.js';

const common = { ...debugCase, spec: { doc: '002', section: '4' } } as const;

/** Index of the first line at or after `from` that starts with `label` and a delimiter. */
function lineOf(lines: string[], label: string, from = 0): number {
  return lines.findIndex((l, i) => i >= from && DELIMITERS.some((d) => l.startsWith(`${label}${d}`) && l.length > label.length + d.length));
}

/**
 * The times a line of a text page may show, in ms since the epoch: what Date.parse reads from each
 * place a value can start (the line's start, after a space, ":" or "="). Only lines with a clock
 * time (hh:mm) are read: a version or a count is no time.
 */
function timesIn(line: string): number[] {
  if (!/\d{1,2}:\d{2}/.test(line)) return [];
  const out: number[] = [];
  for (let j = 0; j < line.length; j++) {
    if (j > 0 && !/[\s:=]/.test(line[j - 1]!)) continue;
    const t = Date.parse(line.slice(j).trim());
    if (!Number.isNaN(t)) out.push(t);
  }
  return out;
}

/** Seconds of a duration a line shows: `1 hr 02 min 35 sec`, `1h2m3s`, `3723 seconds`, or a bare count of seconds. */
function durationIn(line: string): number | undefined {
  const unit: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };
  let total = 0;
  let any = false;
  for (const m of line.matchAll(/(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)(?![a-z])/gi)) {
    total += Number(m[1]) * unit[m[2]!.toLowerCase()[0]!]!;
    any = true;
  }
  if (any) return total;
  const bare = line.match(/\b\d+\b/g);
  return bare?.length === 1 ? Number(bare[0]) : undefined;
}

/** With its gate off, a z-page is not served. */
function gateOff(path: '/statusz' | '/flagz', gate: string, requirement: string): Case {
  return defineCase({
    ...common,
    suite: path.slice(1),
    id: `debug.${path.slice(1)}.gate-off`,
    title: `With ${gate} off, ${path} is not served`,
    requirements: [requirement],
    level: 'MUST',
    gates: { [gate]: false },
    async run(ctx) {
      expectCode(await getWithAccept(ctx, path, undefined), 404, `GET ${path} with ${gate}=false`);
    },
  });
}

export const endpointCases: Case[] = everyComponent([
  defineCase({
    ...common,
    suite: 'slis',
    id: 'debug.slis.served',
    title: '/metrics/slis is served by default, in text exposition format, with both SLI metrics',
    requirements: ['002-4-metrics-slis', '002-4-metrics-slis-enabled'],
    level: 'MUST',
    async run(ctx) {
      await ctx.component().get('/healthz', { headers: { accept: undefined } });
      const res = await getWithAccept(ctx, '/metrics/slis', undefined);
      expectCode(res, 200, 'GET /metrics/slis');
      expectMediaType(res, 'text/plain', 'GET /metrics/slis');
      const exp = parseExposition(res.text);
      expectTrue(exp.errors.length === 0, 'GET /metrics/slis: text exposition format', 'no unreadable lines', exp.errors.slice(0, 5).join('; '));
      for (const name of ['orch_healthcheck', 'orch_healthchecks_total']) {
        expectTrue(exp.families.get(name)?.type !== undefined, `${name} in /metrics/slis`, 'a metric family with # TYPE', [...exp.families.keys()].join(', ') || '(none)');
      }
    },
  }),
  defineCase({
    ...common,
    suite: 'statusz',
    id: 'debug.statusz.text',
    upstreamShape: true,
    gates: { ComponentStatusz: true },
    title: '/statusz without Accept is plain text: the warning, then started time, uptime, toolchain, binary and emulation versions, paths',
    requirements: ['002-4-statusz-text'],
    level: 'MUST',
    async run(ctx) {
      // The spec lists the fields, not their labels: each is found by its value (as the structured
      // form of the same component gives it), in the spec's order; upstream's labels are findings.
      const text = await zpageText(ctx, '/statusz');
      const lines = linesAfterWarning(text, '/statusz');
      const json = await getWithAccept(ctx, '/statusz', STATUSZ_ACCEPT);
      const o: Record<string, any> = json.status === 200 && json.json && typeof json.json === 'object' ? json.json : {};
      let at = 0;
      const field = (what: string, want: string, found: (line: string) => boolean) => {
        const i = lines.findIndex((l, k) => k >= at && found(l));
        if (i < 0) fail(`/statusz text: the ${what} after the ${at === 0 ? 'warning' : 'previous field'}`, want, lines.slice(at).join('\n'));
        at = i;
      };
      const start = typeof o['startTime'] === 'string' ? Date.parse(o['startTime']) : NaN;
      field('started time', Number.isNaN(start) ? 'a line with a time in the past' : `a line with the time ${o['startTime']} (to the minute)`, (l) => {
        return timesIn(l).some((t) => (Number.isNaN(start) ? t <= Date.now() + 2000 : Math.abs(t - start) < 61_000));
      });
      const up = Number.isSafeInteger(o['uptimeSeconds']) ? (o['uptimeSeconds'] as number) : undefined;
      field('uptime', up === undefined ? 'a line with a duration' : `a line with a duration of about ${up} s`, (l) => {
        const d = durationIn(l);
        return d !== undefined && (up === undefined || Math.abs(d - up) <= 5);
      });
      const version = (name: string, v: unknown) => field(name, typeof v === 'string' && v ? `a line with ${show(v)}` : 'a line with a version', (l) => (typeof v === 'string' && v ? l.includes(v) : /\d+\.\d+/.test(l)));
      version('toolchain version', o['goVersion']);
      version('binary version', o['binaryVersion']);
      // Optional in the structured form: a component without them may list none.
      if (o['emulationVersion'] !== undefined) version('emulation version', o['emulationVersion']);
      const paths = Array.isArray(o['paths']) ? (o['paths'] as unknown[]).filter((p): p is string => typeof p === 'string') : [];
      if (paths.length) field('paths list', `a line listing ${paths.join(' ')}`, (l) => paths.every((p) => l.split(/[\s,;]+/).includes(p)));
      upstreamWarningWords(text, '/statusz');
      upstream(() => {
        let k = -1;
        for (const label of ['Started', 'Up', 'Go version', 'Binary version', ...(o['emulationVersion'] !== undefined ? ['Emulation version'] : []), ...(paths.length ? ['Paths'] : [])]) {
          const next = lineOf(lines, label, k + 1);
          if (next < 0) fail(`/statusz text: upstream's label "${label}"`, `a line "${label}<delimiter><value>"`, lines.slice(k + 1).join('\n'));
          k = next;
        }
      });
    },
  }),
  defineCase({
    ...common,
    suite: 'statusz',
    id: 'debug.statusz.text-format',
    gates: { ComponentStatusz: true },
    title: '/statusz text has upstream\'s layout: "<component> statusz", the warning, then labelled lines in order',
    requirements: ['002-4-statusz-text-format'],
    level: 'SHOULD',
    async run(ctx) {
      const { rest } = expectTextHeader(await zpageText(ctx, '/statusz'), 'statusz', '/statusz text');
      const fields = rest.filter((l) => l !== '');
      const labels = ['Started', 'Up', 'Go version', 'Binary version', 'Emulation version', 'Paths'];
      expectTrue(fields.length === labels.length && labels.every((label, i) => lineOf([fields[i]!], label) === 0),
        '/statusz text: the lines after the header', labels.map((l) => `${l}: <value>`).join('\n'), fields.join('\n'));
    },
  }),
  defineCase({
    ...common,
    suite: 'statusz',
    id: 'debug.statusz.json',
    gates: { ComponentStatusz: true },
    title: 'Accept: application/json;v=v1beta1;g=config.orch.io;as=Statusz gets the structured object, of kind Statusz',
    requirements: ['002-4-statusz-json', '002-2.3-statusz-kind'],
    level: 'MUST',
    async run(ctx) {
      const o = expectJsonObject(await getWithAccept(ctx, '/statusz', STATUSZ_ACCEPT), `GET /statusz with Accept: ${STATUSZ_ACCEPT}`);
      expectEqual(o['kind'], 'Statusz', 'kind of the /statusz answer');
    },
  }),
  gateOff('/statusz', 'ComponentStatusz', '002-4-statusz-gate'),
  defineCase({
    ...common,
    suite: 'flagz',
    id: 'debug.flagz.text',
    upstreamShape: true,
    gates: { ComponentFlagz: true },
    title: '/flagz without Accept is plain text: the warning, then name=value lines',
    requirements: ['002-4-flagz-text'],
    level: 'MUST',
    async run(ctx) {
      const text = await zpageText(ctx, '/flagz');
      const flags = linesAfterWarning(text, '/flagz').filter((l) => l !== '');
      upstreamWarningWords(text, '/flagz');
      expectTrue(flags.length > 0 && flags.every((l) => /^[^=\s]+=/.test(l)), '/flagz text: the lines after the warning', 'one or more "name=value" lines', flags.join('\n'));
    },
  }),
  defineCase({
    ...common,
    suite: 'flagz',
    id: 'debug.flagz.text-format',
    gates: { ComponentFlagz: true },
    title: '/flagz text has upstream\'s layout: "<component> flags", the warning, a blank line, name=value lines sorted',
    requirements: ['002-4-flagz-text-format'],
    level: 'SHOULD',
    async run(ctx) {
      const { rest } = expectTextHeader(await zpageText(ctx, '/flagz'), 'flags', '/flagz text');
      expectEqual(rest[0], '', '/flagz text: the line after the warning');
      const names = rest.slice(1).filter((l) => l !== '').map((l) => l.slice(0, l.indexOf('=')));
      const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expectEqual(names, sorted, '/flagz text: flag names in order');
    },
  }),
  defineCase({
    ...common,
    suite: 'flagz',
    id: 'debug.flagz.json',
    gates: { ComponentFlagz: true },
    title: 'Accept: application/json;v=v1alpha1;g=config.orch.io;as=Flagz gets the structured object: kind Flagz, apiVersion config.orch.io/v1beta1',
    requirements: ['002-4-flagz-json', '002-2.4-flagz-kind-api-version'],
    level: 'MUST',
    async run(ctx) {
      const o = expectJsonObject(await getWithAccept(ctx, '/flagz', FLAGZ_ACCEPT), `GET /flagz with Accept: ${FLAGZ_ACCEPT}`);
      expectEqual(o['kind'], 'Flagz', 'kind of the /flagz answer');
      expectEqual(o['apiVersion'], 'config.orch.io/v1beta1', 'apiVersion of the /flagz answer (asked as v1alpha1)');
    },
  }),
  gateOff('/flagz', 'ComponentFlagz', '002-4-flagz-gate'),
  defineCase({
    ...common,
    suite: 'debug-endpoints',
    id: 'debug.configz',
    title: '/configz, where the component has it, is its configuration as a JSON object',
    requirements: ['002-4-configz'],
    level: 'MUST',
    async run(ctx) {
      const res = await getWithAccept(ctx, '/configz', 'application/json');
      // "Where available": a component without /configz has nothing to check, which is not a pass.
      if (res.status === 404) skip('the component does not serve /configz (404), which spec 002 §4 allows ("where available")');
      expectJsonObject(res, 'GET /configz');
    },
  }),
  defineCase({
    ...common,
    suite: 'debug-endpoints',
    id: 'debug.paths.essential',
    gates: { ComponentStatusz: true },
    title: 'The essential read-only paths /healthz, /livez, /metrics, /readyz, /statusz and /version answer GET',
    requirements: ['002-4-essential-read-only-paths'],
    level: 'MUST',
    async run(ctx) {
      for (const [path, accept] of [['/healthz'], ['/livez'], ['/metrics', 'text/plain'], ['/readyz'], ['/statusz'], ['/version', 'application/json']] as Array<[string, string?]>) {
        expectCode(await getWithAccept(ctx, path, accept), 200, `GET ${path}`);
      }
    },
  }),
  defineCase({
    ...common,
    suite: 'debug-endpoints',
    id: 'debug.z-pages.text-not-acceptable',
    gates: { ComponentStatusz: true, ComponentFlagz: true },
    title: 'The text form of /statusz and /flagz answers text/plain, text/* and */*, and 406 to other media types',
    requirements: ['002-4-z-pages-text-not-acceptable'],
    level: 'SHOULD',
    async run(ctx) {
      for (const path of ['/statusz', '/flagz']) {
        for (const accept of ['text/plain', 'text/*', '*/*', 'text/html, */*;q=0.1']) {
          const res = await getWithAccept(ctx, path, accept);
          expectCode(res, 200, `GET ${path} with Accept: ${accept}`);
          expectTrue(mediaType(res) === 'text/plain', `GET ${path} with Accept: ${accept}: Content-Type`, 'text/plain', res.headers['content-type'] ?? '(none)');
        }
        const res = await getWithAccept(ctx, path, 'application/xml');
        expectCode(res, 406, `GET ${path} with Accept: application/xml`);
        expectEqual(res.text.trim(), 'media type not acceptable, must be: text/plain', `body of GET ${path} with Accept: application/xml`);
      }
    },
  }),
]);
