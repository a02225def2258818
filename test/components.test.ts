// Spec 002's rules for every component are checked on every component the run has: the embedded
// reference's controller manager and scheduler next to its API server. Proof that the per-component
// loop (suites/002-metrics-debug/debug-common.ts onEveryComponent) really reads each one: a proxy in
// front of a companion sees every such case, a companion broken in a case's rule (the breakage that
// proves the case on the API server, test/proof/) fails the case naming that companion, and the real
// companions pass them all. proof.test.ts proves each case on the API server alone.
import t, { type Test } from 'tap';
import { metricsDebugCases } from '../suites/002-metrics-debug/index.js';
import { onEveryComponent } from '../suites/002-metrics-debug/debug-common.js';
import { AGENT_KINDS, type Case, type CaseContext } from '../suites/case.js';
import { CaseFailure, CaseSkip, fail, skip } from '../suites/verify.js';
import { runCases, type TargetGroup } from '../runner/run.js';
import { groupByProfile, startEmbeddedTarget, type EmbeddedTarget } from '../runner/embedded.js';
import { processSelfSigned } from '../reference/tls.js';
import { startBrokenTarget, type Breakage } from './helpers/broken-target.js';
import { BREAKAGES } from './proof/index.js';

const EVERY = metricsDebugCases.filter((c) => c.everyComponent);
const COMPANIONS = ['controller-manager', 'scheduler'] as const;

/**
 * Where the API server's breakage leaves a companion's answers alone, the same rule broken on the
 * companion: its own readiness check missing from the SLIs (the API server's breakage drops
 * `storage`, a check only the API server has).
 */
const COMPANION_BREAKAGES: Record<string, Breakage> = {
  'debug.slis.dependency-checks': {
    response: (r, res) => {
      if (r.path.split('?')[0] === '/metrics/slis') res.body = res.body.replace(/^orch_healthcheck\{name="(informer-sync|sched-handler-sync)".*\n/gm, '');
    },
  },
};

t.test('the rules for every component: every metrics case of spec 002 but those reading a fact about one check', async (t) => {
  const generic = metricsDebugCases.filter((c) => c.needs.includes('metrics') && !c.facts?.length && !c.components && !c.needs.some((k) => AGENT_KINDS.has(k)));
  t.same(generic.filter((c) => !c.everyComponent).map((c) => c.id), [], 'generic metrics cases not checked on every component');
  t.same(metricsDebugCases.filter((c) => c.everyComponent && c.facts?.length).map((c) => c.id), [], 'fact cases stay on the API server');
  t.ok(EVERY.length >= 50, `${EVERY.length} cases for every component`);
});

/** A context whose components are names (component() returns the name, as a stand-in client). */
function fakeContext(names: string[]): CaseContext {
  const ctx = {
    runId: 'unit', namespace: 'unit', labels: {}, signal: new AbortController().signal, facts: {},
    uniqueName: () => 'x', track: () => undefined,
    componentNames: () => names,
    component: (n = 'apiserver') => n,
  };
  return ctx as unknown as CaseContext;
}

t.test('onEveryComponent: each component once, the agent aside, failures named', async (t) => {
  const ctx = fakeContext(['apiserver', 'controller-manager', 'agent', 'scheduler']);
  const seen: string[] = [];
  await onEveryComponent(ctx, async (one, name) => {
    seen.push(name);
    t.equal(one.component() as unknown, name, `component() defaults to ${name}`);
    t.same(one.componentNames(), [name], 'componentNames() is the one component checked');
  });
  t.same(seen, ['apiserver', 'controller-manager', 'scheduler'], 'every component but the agent, in order');

  const one = await onEveryComponent(ctx, async (_c, name) => { if (name === 'controller-manager') fail('GET /readyz?verbose', 'ok', 'broken'); }).catch((e) => e);
  t.ok(one instanceof CaseFailure, 'a failure on one component fails the case');
  t.equal(one.message, '[controller-manager] GET /readyz?verbose');
  t.same([one.expected, one.actual], ['ok', 'broken']);

  const two = await onEveryComponent(ctx, async (_c, name) => { if (name !== 'apiserver') fail('GET /version', 'a version', `${name} broken`); }).catch((e) => e);
  t.equal(two.message, '[controller-manager] GET /version; [scheduler] GET /version', 'every failing component named');
  t.equal(two.actual, '[controller-manager] controller-manager broken\n[scheduler] scheduler broken');

  const mixed = await onEveryComponent(ctx, async (_c, name) => {
    if (name === 'scheduler') throw new Error('connect ECONNREFUSED');
    if (name === 'controller-manager') fail('GET /flagz', 'x', 'y');
  }).catch((e) => e);
  t.ok(mixed instanceof CaseFailure, 'a failure wins over an error elsewhere');
  t.match(mixed.message, /could not check \[scheduler\] connect ECONNREFUSED/);

  const errored = await onEveryComponent(ctx, async (_c, name) => { if (name === 'scheduler') throw new Error('connect ECONNREFUSED'); }).catch((e) => e);
  t.ok(errored instanceof Error && !(errored instanceof CaseFailure) && !(errored instanceof CaseSkip), 'an error alone errors the case');
  t.match(errored.message, /^\[scheduler\] connect ECONNREFUSED/);

  await t.resolves(onEveryComponent(ctx, async (_c, name) => { if (name === 'scheduler') skip('no /configz'); }), 'observed on some components: passes');
  const skipped = await onEveryComponent(ctx, async () => skip('no /configz')).catch((e) => e);
  t.ok(skipped instanceof CaseSkip, 'observed on none: skipped');
  t.match(skipped.message, /^\[apiserver\] no \/configz; \[controller-manager\] no \/configz; \[scheduler\] no \/configz$/);
});

/** The embedded references the cases need (one per gate set), each with its controller manager and scheduler. */
async function withTargets(t: Test, use: (cases: Case[], group: Omit<TargetGroup, 'cases'>) => Promise<void>): Promise<void> {
  const started: EmbeddedTarget[] = [];
  t.teardown(() => Promise.all(started.map((s) => s.close())));
  let n = 0;
  for (const g of groupByProfile(EVERY)) {
    const target = await startEmbeddedTarget(g.profile, { runId: `components${n++}` });
    started.push(target);
    for (const name of COMPANIONS) t.ok(target.group.components?.[name], `the embedded target has a ${name} (${JSON.stringify(g.profile.overrides)})`);
    await use(g.cases, target.group);
  }
}

async function runOne(c: Case, group: Omit<TargetGroup, 'cases'>, components: NonNullable<TargetGroup['components']>) {
  const report = await runCases({ cases: [c], conn: group.conn, components, embedded: false, gates: group.gates, facts: group.facts, version: 'test', timeoutMs: 20_000, strict: true });
  return report.cases[0]!;
}

/** Runs `work` over `items`, four at a time. */
async function fourAtATime<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => { for (let x = queue.shift(); x !== undefined; x = queue.shift()) await work(x); };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

t.test('every case reads each companion and passes on the real ones', async (t) => {
  const tls = processSelfSigned('127.0.0.1');
  const checked: Record<string, number> = { apiserver: 0, 'controller-manager': 0, scheduler: 0 };
  await withTargets(t, async (cases, group) => {
    // Counting HTTPS proxies (the HTTPS rules still hold through them) in front of each component's
    // endpoints; the API itself (conn) is not proxied.
    const names = ['apiserver', ...COMPANIONS];
    const requests = new Map<string, number>(names.map((n) => [n, 0]));
    const proxies = await Promise.all(names.map((name) => {
      const conn = name === 'apiserver' ? group.conn : group.components![name]!;
      const counting: Breakage = { request: () => { requests.set(name, requests.get(name)! + 1); } };
      return startBrokenTarget(conn.baseUrl, counting, { caPem: conn.caPem, tls });
    }));
    try {
      const components = Object.fromEntries(names.map((name, i) => [name, { ...group.conn, baseUrl: proxies[i]!.url, caPem: tls.caPem }]));
      // One case at a time, so that the requests a proxy sees are that case's.
      for (const c of cases) {
        for (const name of names) requests.set(name, 0);
        const r = await runOne(c, group, components);
        t.equal(r.status, 'passed', `${c.id} passes on apiserver, controller-manager and scheduler${r.status !== 'passed' ? `: ${r.message} expected=${r.expected} actual=${r.actual}` : ''}`);
        for (const name of names) {
          t.ok(requests.get(name)! > 0, `${c.id} read the ${name}'s endpoints (${requests.get(name)} requests)`);
          if (r.status === 'passed' && requests.get(name)! > 0) checked[name]!++;
        }
      }
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  });
  t.comment(`cases checked per component: ${JSON.stringify(checked)}`);
  t.same(checked, { apiserver: EVERY.length, 'controller-manager': EVERY.length, scheduler: EVERY.length }, 'every case on each of the three components');
});

for (const broken of COMPANIONS) {
  t.test(`each case fails against a ${broken} broken in its rule, naming the ${broken}`, async (t) => {
    await withTargets(t, async (cases, group) => {
      await fourAtATime(cases, async (c) => {
        const real = group.components![broken]!;
        const proxy = await startBrokenTarget(real.baseUrl, COMPANION_BREAKAGES[c.id] ?? BREAKAGES[c.id]!, { caPem: real.caPem });
        try {
          const r = await runOne(c, group, { ...group.components, [broken]: { ...real, baseUrl: proxy.url } });
          t.equal(r.status, 'failed', `${c.id} fails with the ${broken} broken${r.status !== 'failed' ? ` (got ${r.status}: ${r.message})` : ''}`);
          t.match(r.message, new RegExp(`^\\[${broken}\\] `), `${c.id}: the failure names the ${broken}`);
          const others = ['apiserver', ...COMPANIONS.filter((n) => n !== broken)];
          t.notOk(others.some((n) => r.message.includes(`[${n}]`)), `${c.id}: and no other component (${r.message})`);
        } finally {
          await proxy.close();
        }
      });
    });
  });
}
