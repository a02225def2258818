// Spec 001 §4.3 and §10, and the own-labels rule of §2.2, observed on an agent: the metrics
// endpoints of spec 002 its HTTPS port serves, the stages §10 gives its features as the agent
// reports them in `orch_feature_enabled` (spec 002 §9), and node labels set through the API
// surviving the agent's own status writes.
import { defineCase, type Case, type CaseContext } from '../case.js';
import type { ApiClient } from '../../runner/client.js';
import { expectCode, expectTrue, fail, show, skip } from '../verify.js';
import { parseExposition, samplesOf, type Exposition } from '../002-metrics-debug/exposition.js';
import { parseMediaType } from '../002-metrics-debug/metrics-protobuf.js';
import { agentCase, nodePath } from './agent-kit.js';
import { launchedReady, runtimeNotReady } from './agent-node-kit.js';

const TEXT_ACCEPT = 'text/plain;version=0.0.4';

/** GET `path` on the agent under test (or the one `client` reaches, e.g. a launched agent) with a text Accept; the body read as text exposition, which it must be. */
export async function scrapeAgent(ctx: CaseContext, path: string, client: ApiClient = ctx.agent().client): Promise<Exposition> {
  const res = await client.get(path, { headers: { accept: TEXT_ACCEPT } });
  expectCode(res, 200, `GET ${path} of the agent (Accept: ${TEXT_ACCEPT})`);
  const type = parseMediaType(res.headers['content-type']).type;
  expectTrue(type === 'text/plain' || type === 'application/openmetrics-text', `GET ${path} of the agent: media type`,
    'text/plain or application/openmetrics-text (a text exposition)', show(res.headers['content-type']));
  // OpenMetrics exemplars (` # {...} v`) are not part of the 0.0.4 grammar.
  const exp = parseExposition(type === 'application/openmetrics-text' ? res.text.replace(/ # \{.*$/gm, '') : res.text);
  expectTrue(exp.errors.length === 0, `GET ${path} of the agent: readable text exposition`, 'no unreadable lines', exp.errors.slice(0, 5).join('; '));
  return exp;
}

/** A metric is exposed: its family is declared (# TYPE) or it has samples. */
export const exposes = (exp: Exposition, name: string) => exp.families.get(name)?.type !== undefined || samplesOf(exp, name).length > 0;

/**
 * §10's feature stages whose gate has a name in the spec. The stage label is upstream's
 * (`ALPHA`, `BETA`, empty for GA); the spec's own word counts as well.
 */
const STAGES: ReadonlyArray<{ id: string; req: string; feature: string; gate: string; stage: 'beta' | 'GA'; since: string }> = [
  { id: 'checkpoint-beta', req: '001-10-checkpoint-beta', feature: 'Container checkpoint', gate: 'ContainerCheckpoint', stage: 'beta', since: '1.30' },
  { id: 'declared-features-ga', req: '001-10-declared-features-ga', feature: 'Node declared features', gate: 'NodeDeclaredFeatures', stage: 'GA', since: '1.37' },
  // §2.1: the allocation records are used when in-place pod resize is on, gate InPlacePodVerticalScaling, GA since 1.35.
  { id: 'pod-allocation-records-ga', req: '001-10-pod-allocation-records-ga', feature: 'Pod allocation records', gate: 'InPlacePodVerticalScaling', stage: 'GA', since: '1.35' },
];
const STAGE_LABELS: Record<'beta' | 'GA', readonly string[]> = { beta: ['beta'], GA: ['', 'ga', 'stable'] };

export const agentEndpointCases: Case[] = [
  defineCase({
    ...agentCase('4.3', 'MUST', 'read'),
    id: 'agent.node.metrics.text',
    title: 'The agent serves /metrics (spec 002): 200 with a Prometheus text exposition of its metrics',
    requirements: ['001-4.3-stats-metrics'],
    async run(ctx) {
      const exp = await scrapeAgent(ctx, '/metrics');
      expectTrue([...exp.families.values()].some((f) => f.type !== undefined), 'GET /metrics of the agent: metric families', 'at least one family declared with # TYPE', `${exp.samples.length} samples, no # TYPE line`);
    },
  }),
  defineCase({
    ...agentCase('4.3', 'MUST', 'read'),
    id: 'agent.node.metrics.slis',
    title: 'The agent serves /metrics/slis (spec 002): 200 with orch_healthcheck and orch_healthchecks_total in text exposition format',
    requirements: ['001-4.3-stats-metrics'],
    async run(ctx) {
      const exp = await scrapeAgent(ctx, '/metrics/slis');
      for (const name of ['orch_healthcheck', 'orch_healthchecks_total']) {
        expectTrue(exposes(exp, name), `${name} in the agent's /metrics/slis`, 'the metric (# TYPE or samples)', [...exp.families.keys()].join(', ') || '(no family)');
      }
    },
  }),
  ...STAGES.map((s) => defineCase({
    ...agentCase('10', 'MUST', 'read'),
    id: `agent.node.stage.${s.id}`,
    title: `${s.feature} is ${s.stage} (since ${s.since}): the agent reports gate ${s.gate} at that stage, on by default, in orch_feature_enabled`,
    requirements: [s.req],
    // Beta and GA features are on by default; a run with the gate set otherwise skips the case.
    gates: { [s.gate]: true },
    async run(ctx: CaseContext) {
      const series = samplesOf(await scrapeAgent(ctx, '/metrics'), 'orch_feature_enabled').filter((x) => x.labels['name'] === s.gate);
      // Spec 002 asks orch_feature_enabled for NativeHistograms only: an agent that lists no other gate says nothing here.
      if (series.length === 0) skip(`the agent's /metrics has no orch_feature_enabled series for gate ${s.gate} (spec 002 requires one only for NativeHistograms)`);
      expectTrue(series.length === 1, `orch_feature_enabled{name="${s.gate}"} on the agent`, 'exactly one series', series);
      const x = series[0]!;
      const stage = x.labels['stage'];
      if (stage !== undefined && !STAGE_LABELS[s.stage].includes(stage.toLowerCase())) {
        fail(`stage label of orch_feature_enabled{name="${s.gate}"} on the agent`, s.stage === 'GA' ? 'GA: "" (upstream) or "GA"' : '"BETA"', show(stage));
      }
      expectTrue(x.value === 1, `orch_feature_enabled{name="${s.gate}"} on the agent at the default gates`, `1 (${s.stage} features are on by default)`, x);
    },
  })),
  defineCase({
    ...agentCase('2.2', 'MUST', 'exec'),
    id: 'agent.node.labels.own-through-api',
    title: 'A label set on the agent\'s Node through the API stays there when the agent writes its status',
    requirements: ['001-2.2-own-labels'],
    async run(ctx) {
      const launched = await ctx.agents.launch();
      await launchedReady(ctx, launched);
      const key = 'conformance.orch.io/own-label';
      const value = ctx.uniqueName('own').slice(0, 63).replace(/[^a-zA-Z0-9]+$/, ''); // a label value: at most 63 characters, ending alphanumeric
      const res = await ctx.api.request('PATCH', nodePath(launched.nodeName), { body: { metadata: { labels: { [key]: value } } }, headers: { 'content-type': 'application/merge-patch+json' } });
      expectCode(res, 200, `add the label ${key} to the launched agent's Node (merge patch)`);
      await runtimeNotReady(ctx, launched, 'the agent writes its status again (its runtime was made not ready)');
      const node = await ctx.api.get(nodePath(launched.nodeName));
      expectCode(node, 200, 'GET the launched agent\'s Node');
      expectTrue(node.json?.metadata?.labels?.[key] === value, 'the label set through the API, after the agent wrote its status', `label ${key}=${show(value)}`, node.json?.metadata?.labels);
    },
  }),
];
