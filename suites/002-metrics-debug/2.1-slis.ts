// Spec 002 §2.1: the health SLI metrics at /metrics/slis, checked against the component's own
// health endpoints (whose evaluations the metrics record).
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectTrue, fail, show } from '../verify.js';
import { upstream } from '../findings.js';
import { samplesOf, type Exposition, type Sample } from './exposition.js';
import { debugCase, everyComponent, listedChecks, onEveryComponent, slis } from './debug-common.js';

const common = { ...debugCase, suite: 'slis', spec: { doc: '002', section: '2.1' } } as const;

const GAUGE = 'orch_healthcheck';
const COUNTER = 'orch_healthchecks_total';
const TYPES = ['healthz', 'readyz'] as const;

/** The verbose listings of /healthz and /readyz (each GET is an evaluation the SLIs record). */
async function verboseChecks(ctx: CaseContext): Promise<Record<(typeof TYPES)[number], ReturnType<typeof listedChecks>>> {
  const out = {} as Record<(typeof TYPES)[number], ReturnType<typeof listedChecks>>;
  for (const type of TYPES) {
    const res = await ctx.component().get(`/${type}`, { query: { verbose: '' }, headers: { accept: undefined } });
    expectCode(res, [200, 500], `GET /${type}?verbose`);
    out[type] = listedChecks(res.text);
    expectTrue(out[type].length > 0, `GET /${type}?verbose lists its checks`, 'at least one "[+]<name> ok" line', res.text);
  }
  return out;
}

/** Every sample of `name` has exactly these labels, with values among those allowed. */
function expectLabels(samples: Sample[], name: string, allowed: Record<string, readonly string[] | undefined>): void {
  const want = Object.keys(allowed).sort().join(',');
  for (const s of samples) {
    expectEqual(Object.keys(s.labels).sort().join(','), want, `labels of ${name}${show(s.labels)}`);
    for (const [label, values] of Object.entries(allowed)) {
      if (values) expectTrue(values.includes(s.labels[label]!), `${label} label of ${name}${show(s.labels)}`, values.map((v) => show(v)).join(' or '), s.labels[label]);
    }
  }
}

function expectFamilyType(exp: Exposition, name: string, type: string): void {
  expectEqual(exp.families.get(name)?.type, type, `# TYPE of ${name}`);
}

function find(samples: Sample[], labels: Record<string, string>): Sample | undefined {
  return samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export const sliCases: Case[] = everyComponent([
  defineCase({
    ...common,
    id: 'debug.slis.healthcheck-gauge',
    title: 'orch_healthcheck is a gauge labelled name and type (healthz or readyz), 1 for each passing check',
    requirements: ['002-2.1-healthcheck-gauge'],
    level: 'MUST',
    async run(ctx) {
      const listed = await verboseChecks(ctx);
      const { exp } = await slis(ctx, false);
      expectFamilyType(exp, GAUGE, 'gauge');
      const gauges = samplesOf(exp, GAUGE);
      expectLabels(gauges, GAUGE, { name: undefined, type: TYPES });
      for (const type of TYPES) {
        for (const c of listed[type].filter((x) => x.ok && !x.excluded)) {
          const s = find(gauges, { name: c.name, type });
          expectTrue(s?.value === 1, `${GAUGE}{name=${show(c.name)},type=${show(type)}} after /${type} reported the check ok`, '1', s ? String(s.value) : 'no such series');
        }
      }
    },
  }),
  defineCase({
    ...common,
    id: 'debug.slis.healthchecks-total-counter',
    title: 'orch_healthchecks_total is a counter labelled name, type and status that counts every result',
    requirements: ['002-2.1-healthchecks-total-counter'],
    level: 'MUST',
    async run(ctx) {
      const listed = await verboseChecks(ctx);
      const before = samplesOf((await slis(ctx, false)).exp, COUNTER);
      // Two more evaluations of /readyz: each passing check's success count grows by at least two
      // (other clients may evaluate too).
      for (let i = 0; i < 2; i++) await ctx.component().get('/readyz', { headers: { accept: undefined } });
      const { exp } = await slis(ctx, false);
      expectFamilyType(exp, COUNTER, 'counter');
      const after = samplesOf(exp, COUNTER);
      expectLabels(after, COUNTER, { name: undefined, status: ['success', 'error'], type: TYPES });
      for (const c of listed.readyz.filter((x) => x.ok && !x.excluded)) {
        const labels = { name: c.name, status: 'success', type: 'readyz' };
        const was = find(before, labels)?.value;
        const now = find(after, labels)?.value;
        expectTrue(was !== undefined && now !== undefined && now >= was + 2,
          `${COUNTER}${show(labels)} across two more GET /readyz`, `present, and grown by at least 2 from ${was ?? '(absent)'}`, now === undefined ? 'absent' : String(now));
      }
    },
  }),
  defineCase({
    ...common,
    id: 'debug.slis.alpha-help',
    upstreamShape: true,
    title: 'The help texts of orch_healthcheck and orch_healthchecks_total are alpha-labelled',
    requirements: ['002-2.1-alpha-help-text'],
    level: 'MUST',
    async run(ctx) {
      const { exp } = await slis(ctx);
      for (const name of [GAUGE, COUNTER]) {
        const help = exp.families.get(name)?.help;
        // "alpha-labeled", in no set form: upstream's is the prefix "[ALPHA] " (a finding).
        expectTrue(/alpha/i.test(help ?? ''), `# HELP of ${name}`, 'a text that labels the metric alpha', show(help));
        upstream(() => expectTrue(help?.startsWith('[ALPHA] ') === true, `# HELP of ${name} (upstream's label)`, 'a text starting with "[ALPHA] "', show(help)));
      }
    },
  }),
  defineCase({
    ...common,
    id: 'debug.slis.help-text',
    title: 'The SLI help texts are upstream\'s, alpha-labelled',
    requirements: ['002-2.1-help-text'],
    level: 'SHOULD',
    async run(ctx) {
      const { exp } = await slis(ctx);
      expectEqual(exp.families.get(GAUGE)?.help, '[ALPHA] This metric records the result of a single healthcheck.', `# HELP of ${GAUGE}`);
      expectEqual(exp.families.get(COUNTER)?.help, '[ALPHA] This metric records the results of all healthcheck.', `# HELP of ${COUNTER}`);
    },
  }),
  defineCase({
    ...common,
    id: 'debug.slis.dependency-checks',
    title: 'The SLIs report every health check the component runs, storage among the API server\'s',
    requirements: ['002-2.1-dependency-checks'],
    level: 'MUST',
    // Every component's SLIs report its checks; the storage backend is the API server's dependency.
    everyComponent: true,
    run: (ctx) => onEveryComponent(ctx, async (ctx, component) => {
      const listed = await verboseChecks(ctx);
      const { exp } = await slis(ctx, false);
      const gauges = samplesOf(exp, GAUGE);
      for (const type of TYPES) {
        const want = listed[type].filter((c) => !c.excluded).map((c) => c.name).sort();
        const got = [...new Set(gauges.filter((s) => s.labels['type'] === type).map((s) => s.labels['name']!))].sort();
        expectTrue(want.every((n) => got.includes(n)), `checks in ${GAUGE}{type=${show(type)}}`, `every check /${type}?verbose lists: ${want.join(', ')}`, got.join(', ') || '(none)');
      }
      if (component !== 'apiserver') return;
      const storage = listed.readyz.map((c) => c.name).filter((n) => /etcd|storage/.test(n));
      if (storage.length === 0) fail('the API server reports on its storage backend', 'a /readyz check named for the storage backend (etcd, storage, ...)', listed.readyz.map((c) => c.name).join(', '));
    }),
  }),
]);
