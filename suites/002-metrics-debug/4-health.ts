// Spec 002 §4 lists /healthz, /livez and /readyz among the essential read-only paths; how they
// answer follows upstream (k8s.io/apiserver healthz). Failure answers need a failing check, which
// only the operator can name: those cases are in 4-health-failing.ts.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectTrue, show } from '../verify.js';
import { debugCase, everyComponent, expectMediaType, listedChecks } from './debug-common.js';

const common = { ...debugCase, suite: 'health', spec: { doc: '002', section: '4' }, level: 'SHOULD' } as const;
const ENDPOINTS = ['healthz', 'livez', 'readyz'] as const;

function getHealth(ctx: CaseContext, path: string, query?: Record<string, string>) {
  return ctx.component().get(path, { query, headers: { accept: undefined } });
}

/** `/<endpoint>?verbose&exclude=...` with repeated exclude parameters. */
function getVerbose(ctx: CaseContext, endpoint: string, exclude: string[] = []) {
  const q = ['verbose', ...exclude.map((e) => `exclude=${encodeURIComponent(e)}`)].join('&');
  return ctx.component().get(`/${endpoint}?${q}`, { headers: { accept: undefined } });
}

export const healthCases: Case[] = everyComponent([
  defineCase({
    ...common,
    id: 'debug.health.ok',
    title: '/healthz, /livez and /readyz of a healthy component answer 200 "ok"',
    requirements: ['002-4-health-ok'],
    async run(ctx) {
      for (const e of ENDPOINTS) {
        const res = await getHealth(ctx, `/${e}`);
        expectCode(res, 200, `GET /${e}`);
        expectMediaType(res, 'text/plain', `GET /${e}`);
        expectEqual(res.text, 'ok', `body of GET /${e}`);
      }
    },
  }),
  defineCase({
    ...common,
    id: 'debug.health.verbose',
    title: '?verbose lists every check as "[+]<name> ok" and ends "<endpoint> check passed"',
    requirements: ['002-4-health-verbose'],
    async run(ctx) {
      for (const e of ENDPOINTS) {
        const res = await getVerbose(ctx, e);
        expectCode(res, 200, `GET /${e}?verbose`);
        const lines = res.text.split('\n').filter((l) => l !== '');
        expectEqual(lines.at(-1), `${e} check passed`, `last line of GET /${e}?verbose`);
        const body = lines.slice(0, -1);
        expectTrue(body.length > 0 && body.every((l) => /^\[\+\]\S.* ok$/.test(l)), `the check lines of GET /${e}?verbose`, 'one or more lines "[+]<name> ok"', body.join('\n'));
      }
    },
  }),
  defineCase({
    ...common,
    id: 'debug.health.exclude',
    title: '?exclude=<name> (repeatable) leaves checks out, listing them "excluded: ok", and warns about unknown names',
    requirements: ['002-4-health-exclude'],
    async run(ctx) {
      const all = listedChecks((await getVerbose(ctx, 'readyz')).text).map((c) => c.name);
      expectTrue(all.length >= 2, 'GET /readyz?verbose', 'at least two checks to exclude from', all);
      const [x, y] = all as [string, string];
      const unknown = `no-such-check-${ctx.runId}`;
      const res = await getVerbose(ctx, 'readyz', [x, y, unknown]);
      expectCode(res, 200, `GET /readyz?verbose&exclude=${x}&exclude=${y}&exclude=${unknown}`);
      const lines = res.text.split('\n');
      for (const n of [x, y]) expectTrue(lines.includes(`[+]${n} excluded: ok`), `listing of the excluded check ${n}`, show(`[+]${n} excluded: ok`), res.text);
      for (const n of all.slice(2)) expectTrue(lines.includes(`[+]${n} ok`), `listing of the check ${n}, not excluded`, show(`[+]${n} ok`), res.text);
      const warn = `warn: some health checks cannot be excluded: no matches for ${JSON.stringify(unknown)}`;
      expectTrue(lines.includes(warn), 'the warning about an exclude that matches no check', show(warn), res.text);
    },
  }),
  defineCase({
    ...common,
    id: 'debug.health.individual',
    title: '/<endpoint>/<check> runs one check and answers 200 "ok"',
    requirements: ['002-4-health-individual'],
    async run(ctx) {
      for (const e of ['healthz', 'readyz']) {
        for (const c of listedChecks((await getVerbose(ctx, e)).text)) {
          const res = await getHealth(ctx, `/${e}/${c.name}`);
          expectCode(res, 200, `GET /${e}/${c.name}`);
          expectEqual(res.text, 'ok', `body of GET /${e}/${c.name}`);
        }
      }
    },
  }),
]);
