// Spec 002 §9, what release 1.37 makes default: NativeHistograms beta and on, the z-pages beta
// (so served without asking), their structured forms at a beta version. A case that checks a
// default declares the gate state it needs: a run whose --gates differ skips it rather than
// blaming the target for its operator's choice. The `stage` label of orch_feature_enabled is
// upstream's (component-base), not the spec's, so only the SHOULD case requires it.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectTrue } from '../verify.js';
import { samplesOf, type Sample } from './exposition.js';
import { debugCase, everyComponent, flagzObject, getWithAccept, statuszObject } from './debug-common.js';
import { hasNativeData, histogramSeries, scrapeProtobuf, scrapeText } from './metrics-protobuf.js';

const s9 = { doc: '002', section: '9' } as const;
const Z_PAGE_GATES = { ComponentStatusz: true, ComponentFlagz: true } as const;
/** The gates spec 002 §4 and §9 call beta in release 1.37. */
const BETA_GATES = ['NativeHistograms', 'ComponentStatusz', 'ComponentFlagz'] as const;

/** The orch_feature_enabled series of each gate, from one text scrape of /metrics. */
async function featureSeries(ctx: CaseContext, gates: readonly string[]): Promise<Record<string, Sample[]>> {
  const { exp } = await scrapeText(ctx);
  const all = samplesOf(exp, 'orch_feature_enabled');
  return Object.fromEntries(gates.map((g) => [g, all.filter((s) => s.labels['name'] === g)]));
}

export const versioningCases: Case[] = everyComponent([
  defineCase({
    ...debugCase,
    suite: 'metrics',
    id: 'metrics.native.on-by-default',
    title: 'With the 1.37 default gates, NativeHistograms is on without being asked for: orch_feature_enabled says 1 and the protobuf exposition carries native histograms',
    requirements: ['002-9-native-histograms-default'],
    spec: s9,
    level: 'MUST',
    gates: { NativeHistograms: true },
    async run(ctx) {
      const s = (await featureSeries(ctx, ['NativeHistograms']))['NativeHistograms']!;
      expectTrue(s.length === 1, 'orch_feature_enabled{name="NativeHistograms"}', 'exactly one series', `${s.length} series`);
      expectEqual(s[0]!.value, 1, 'orch_feature_enabled{name="NativeHistograms"} at the 1.37 defaults');
      const all = histogramSeries(await scrapeProtobuf(ctx));
      expectTrue(all.some((x) => hasNativeData(x.h)), 'protobuf /metrics at the 1.37 defaults: native histogram data', 'a Histogram message with spans, a zero threshold or a zero count', all.length ? `${all.length} histogram series, none native` : 'no histogram family');
    },
  }),
  defineCase({
    ...debugCase,
    suite: 'metrics',
    id: 'metrics.feature-enabled.stage',
    title: `orch_feature_enabled labels the gates 1.37 has at beta (${BETA_GATES.join(', ')}) stage="BETA"`,
    requirements: ['002-9-feature-enabled-stage'],
    spec: s9,
    level: 'SHOULD',
    async run(ctx) {
      for (const [gate, s] of Object.entries(await featureSeries(ctx, BETA_GATES))) {
        expectTrue(s.length === 1, `orch_feature_enabled{name="${gate}"}`, 'exactly one series', `${s.length} series`);
        expectEqual(s[0]!.labels['stage'], 'BETA', `stage label of orch_feature_enabled{name="${gate}"}`);
      }
    },
  }),
  defineCase({
    ...debugCase,
    suite: 'debug-endpoints',
    id: 'debug.z-pages.beta-default',
    title: 'z-pages are beta in 1.37, so on by default: /statusz and /flagz are served with the default gates (and orch_feature_enabled, where it lists their gates, says 1)',
    requirements: ['002-9-z-pages-beta'],
    spec: s9,
    level: 'MUST',
    gates: Z_PAGE_GATES,
    async run(ctx) {
      for (const path of ['/statusz', '/flagz']) expectCode(await getWithAccept(ctx, path, undefined), 200, `GET ${path} at the 1.37 default gates`);
      // The spec names orch_feature_enabled for NativeHistograms only; a series for these gates is upstream's habit, so only one that is there must agree.
      for (const [gate, s] of Object.entries(await featureSeries(ctx, Object.keys(Z_PAGE_GATES)))) {
        for (const x of s) expectEqual(x.value, 1, `orch_feature_enabled{name="${gate}"} at the 1.37 defaults`);
      }
    },
  }),
  defineCase({
    ...debugCase,
    suite: 'debug-endpoints',
    id: 'debug.z-pages.structured-beta',
    title: 'The structured /statusz and /flagz are served, at a beta version of config.orch.io',
    requirements: ['002-9-structured-z-pages'],
    spec: s9,
    level: 'SHOULD',
    gates: Z_PAGE_GATES,
    async run(ctx) {
      const pages: Array<[string, Record<string, any>]> = [['/statusz', (await statuszObject(ctx)).obj], ['/flagz', await flagzObject(ctx)]];
      for (const [path, o] of pages) {
        // "They may change": any beta version passes, not only today's v1beta1.
        expectTrue(typeof o['apiVersion'] === 'string' && /^config\.orch\.io\/v\d+beta\d+$/.test(o['apiVersion']), `apiVersion of the structured ${path}`, 'config.orch.io/v<N>beta<M> (beta)', o['apiVersion']);
      }
    },
  }),
]);
