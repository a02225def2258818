// Spec 000 §6: the controllers and the scheduler are separate components that act through the API.
// The cases that wait on them (those declaring `controllers`) run once against the reference split
// as an implementer would run it: `serve --controllers '' --no-scheduler` for the API server alone,
// and `controller-manager` and `scheduler` processes reaching it through a proxy that delays every
// request, so that they see the API late, as over a network. Nothing may fail or error; skips are
// allowed and listed in the diagnostics. One split control plane per embedded profile (gates and
// facts), configured as runner/embedded.ts configures the in-process reference for the same facts.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ALL_CASES } from '../suites/index.js';
import { EMBEDDED_FACTS, groupByProfile, type Profile } from '../runner/embedded.js';
import { defaultGates } from '../runner/gates.js';
import { CONTROL_PLANE_PARTS } from '../runner/controllers.js';
import { newRunId, runGroups, type TargetGroup } from '../runner/run.js';
import type { TargetFacts } from '../runner/facts.js';
import type { TargetConnection } from '../runner/client.js';
import { startBrokenTarget } from './helpers/broken-target.js';
import { startComponent, startServe } from './helpers/serve.js';

const CASES = ALL_CASES.filter((c) => (c.controllers?.length ?? 0) > 0);
/** What the proxy adds to every request of the controller manager and the scheduler. */
const LATENCY_MS = 25;

type Teardown = { teardown(fn: () => unknown): void };


/** The API server alone, and the controller manager and scheduler as processes of their own behind a slow proxy. */
async function startSplit(t: Teardown, profile: Profile): Promise<Omit<TargetGroup, 'cases'>> {
  const gates = Object.entries(profile.overrides).map(([k, v]) => `${k}=${v}`).join(',');
  const gateArgs = gates ? ['--feature-gates', gates] : [];
  const api = await startServe(t, ['--controllers', '', '--no-scheduler', ...gateArgs]);
  if (!api.ca) throw new Error('serve printed no CA');
  // Nothing in-process may stand in for the components under test.
  if (Object.keys(api.components ?? {}).length) throw new Error(`serve runs components of its own: ${JSON.stringify(api.components)}`);
  const caPem = await readFile(api.ca, 'utf8');
  const proxy = await startBrokenTarget(api.url, { request: async () => { await sleep(LATENCY_MS); } }, { caPem });
  t.teardown(() => proxy.close());

  const facts: { -readonly [K in keyof TargetFacts]: TargetFacts[K] } = { controllers: [...CONTROL_PLANE_PARTS] };
  const cmArgs = ['--api', proxy.url, ...gateArgs];
  for (const fact of profile.facts) {
    if (fact !== 'nodeMonitorGracePeriod') throw new Error(`no split set-up for fact ${fact}: configure it here as runner/embedded.ts does`);
    const { nodeMonitorGracePeriodMs, nodeMonitorPeriodMs } = EMBEDDED_FACTS.nodeMonitor;
    cmArgs.push('--node-monitor-grace-period', `${nodeMonitorGracePeriodMs}ms`, '--node-monitor-period', `${nodeMonitorPeriodMs}ms`);
    facts.nodeMonitorGracePeriodSeconds = nodeMonitorGracePeriodMs / 1000;
  }
  const [cm, scheduler] = await Promise.all([
    startComponent(t, 'controller-manager', cmArgs),
    startComponent(t, 'scheduler', ['--api', proxy.url, ...gateArgs]),
  ]);
  // The components serve with certificates of their own making: their endpoints are not what these
  // cases check (none lists a component), so they are not verified.
  const component = (baseUrl: string): TargetConnection => ({ baseUrl, insecureSkipTlsVerify: true });
  return {
    conn: { baseUrl: api.url, caPem },
    components: { 'controller-manager': component(cm), scheduler: component(scheduler) },
    gates: { ...defaultGates(), ...profile.overrides },
    facts,
  };
}

// A minute or so on two idle cores; room for a busy CI machine.
t.setTimeout(5 * 60_000);

t.test('the controller and scheduler cases pass against the reference split into processes, with a slow API between them', async (t) => {
  const t0 = performance.now();
  const profiles = groupByProfile(CASES);
  const groups: TargetGroup[] = await Promise.all(profiles.map(async (g) => ({ ...(await startSplit(t, g.profile)), cases: g.cases })));
  const started = performance.now();
  const report = await runGroups(groups, { embedded: false, runId: newRunId(), version: 'test', timeoutMs: 30_000, strict: false });
  t.equal(report.cases.length, CASES.length, 'every controller case ran, once');
  const bad = report.cases.filter((c) => c.status !== 'passed' && c.status !== 'skipped');
  t.same(bad.map((c) => `${c.id}: ${c.status}: ${c.message} expected=${c.expected} actual=${c.actual}`), [], 'no case failed, errored or warned');
  for (const c of report.cases.filter((r) => r.status === 'skipped')) t.comment(`skipped ${c.id}: ${c.message}`);
  t.comment(`${profiles.length} split control planes started in ${((started - t0) / 1000).toFixed(1)} s; ${CASES.length} cases ran in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});
