// Spec 002 §4: /metrics/slis, the text and structured forms of /statusz and /flagz, their gates,
// /configz and the essential read-only paths.
import { defineCase, type Case } from '../case.js';
import { expectCode, expectEqual, expectTrue, fail, skip } from '../verify.js';
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
  zpageText,
} from './debug-common.js';

const common = { ...debugCase, spec: { doc: '002', section: '4' } } as const;

/** Index of the first line at or after `from` that starts with `label` and a delimiter. */
function lineOf(lines: string[], label: string, from = 0): number {
  return lines.findIndex((l, i) => i >= from && DELIMITERS.some((d) => l.startsWith(`${label}${d}`) && l.length > label.length + d.length));
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
    gates: { ComponentStatusz: true },
    title: '/statusz without Accept is plain text: the warning, then started, uptime, toolchain, binary and emulation versions, paths',
    requirements: ['002-4-statusz-text'],
    level: 'MUST',
    async run(ctx) {
      const lines = linesAfterWarning(await zpageText(ctx, '/statusz'), '/statusz');
      let at = -1;
      for (const label of ['Started', 'Up', '(toolchain version)', 'Binary version', 'Emulation version', 'Paths']) {
        const next = label === '(toolchain version)'
          ? lines.findIndex((l, i) => i > at && /version/i.test(l) && lineOf([l], 'Binary version') < 0 && lineOf([l], 'Emulation version') < 0)
          : lineOf(lines, label, at + 1);
        if (next < 0) fail(`/statusz text: "${label}" after the ${at < 0 ? 'warning' : 'previous field'}`, `a line "${label}<delimiter><value>"`, lines.slice(at + 1).join('\n'));
        at = next;
      }
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
    gates: { ComponentFlagz: true },
    title: '/flagz without Accept is plain text: the warning, then name=value lines',
    requirements: ['002-4-flagz-text'],
    level: 'MUST',
    async run(ctx) {
      const flags = linesAfterWarning(await zpageText(ctx, '/flagz'), '/flagz').filter((l) => l !== '');
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
