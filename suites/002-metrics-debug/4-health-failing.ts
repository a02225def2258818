// Spec 002 §2.1 and §4 with a failing health check: the endpoint answers 500 with the listing and
// the SLI gauge reads 0. A case cannot make a check fail on an arbitrary component, so these need
// the operator to name one that fails (target fact `failingHealthCheck`: `run
// --failing-health-check readyz/etcd`); the embedded run starts a reference with one planted.
// The fact names a check of the API server, so these read the API server only (not every
// component, unlike the other rules of spec 002 here).
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectTrue, fail, show } from '../verify.js';
import { samplesOf } from './exposition.js';
import { debugCase, listedChecks, slis } from './debug-common.js';
import { fact, type FailingCheck } from '../../runner/facts.js';

const common = { ...debugCase, level: 'SHOULD', facts: ['failingHealthCheck'] } as const;

const failing = (ctx: CaseContext): FailingCheck => fact(ctx.facts, 'failingHealthCheck');

export const failingHealthCases: Case[] = [
  defineCase({
    ...common,
    suite: 'health',
    spec: { doc: '002', section: '4' },
    id: 'debug.health.failing-check',
    title: 'A failing check turns its endpoint 500 with the full listing, "[-]<name> failed: reason withheld" and "<endpoint> check failed"',
    requirements: ['002-4-health-failure'],
    async run(ctx) {
      const { endpoint, check } = failing(ctx);
      // Not verbose: a failure shows the listing anyway.
      const res = await ctx.component().get(`/${endpoint}`, { headers: { accept: undefined } });
      expectCode(res, 500, `GET /${endpoint} with ${check} failing`);
      const listed = listedChecks(res.text);
      const mine = listed.find((c) => c.name === check);
      if (!mine) fail(`the listing of GET /${endpoint}`, `a line for ${check}`, res.text);
      expectTrue(res.text.split('\n').includes(`[-]${check} failed: reason withheld`), `the line for ${check}`, `"[-]${check} failed: reason withheld"`, res.text);
      expectTrue(listed.some((c) => c.ok), `the listing of GET /${endpoint}`, 'the passing checks too ("[+]<name> ok")', res.text);
      expectEqual(res.text.trimEnd().split('\n').at(-1), `${endpoint} check failed`, `last line of GET /${endpoint}`);
    },
  }),
  defineCase({
    ...common,
    suite: 'slis',
    spec: { doc: '002', section: '2.1' },
    id: 'debug.slis.healthcheck-failed-zero',
    title: 'orch_healthcheck is 0 for the failing check and 1 for a passing one of the same endpoint',
    requirements: ['002-2.1-healthcheck-failed-zero'],
    async run(ctx) {
      const { endpoint, check } = failing(ctx);
      if (endpoint === 'livez') fail('the failing check named by --failing-health-check', 'a healthz or readyz check (the SLI type label has only those)', `livez/${check}`);
      const listing = await ctx.component().get(`/${endpoint}`, { query: { verbose: '' }, headers: { accept: undefined } });
      const passing = listedChecks(listing.text).find((c) => c.ok && !c.excluded);
      const { exp } = await slis(ctx);
      const samples = samplesOf(exp, 'orch_healthcheck');
      const value = (name: string) => samples.find((s) => s.labels['name'] === name && s.labels['type'] === endpoint)?.value;
      expectEqual(value(check), 0, `orch_healthcheck{name=${show(check)},type=${show(endpoint)}}`);
      if (passing) expectEqual(value(passing.name), 1, `orch_healthcheck{name=${show(passing.name)},type=${show(endpoint)}}`);
    },
  }),
];
