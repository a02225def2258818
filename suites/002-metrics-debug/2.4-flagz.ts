// Spec 002 §2.4: the fields of the structured Flagz object (kind and apiVersion are checked with
// the negotiation, in 4-endpoints.ts).
import { defineCase, type Case } from '../case.js';
import { expectEqual, expectTrue, show, skip } from '../verify.js';
import { debugCase, everyComponent, expectMetadataNamesComponent, flagzObject, linesAfterWarning, zpageText } from './debug-common.js';

const common = { ...debugCase, suite: 'flagz', spec: { doc: '002', section: '2.4' }, level: 'MUST', gates: { ComponentFlagz: true } } as const;

export const flagzFieldCases: Case[] = everyComponent([
  defineCase({
    ...common,
    id: 'debug.flagz.metadata-name',
    title: 'Flagz metadata, when present, is named after the component, as the text page names it',
    requirements: ['002-2.4-flagz-metadata'],
    async run(ctx) {
      await expectMetadataNamesComponent(ctx, await flagzObject(ctx), '/flagz');
    },
  }),
  defineCase({
    ...common,
    id: 'debug.flagz.flags',
    title: 'Flagz flags, when present, map each flag name to its value as a string, as the text page lists them',
    requirements: ['002-2.4-flagz-flags'],
    async run(ctx) {
      const flags = (await flagzObject(ctx))['flags'];
      if (flags === undefined) skip('Flagz has no flags (optional, §2.4): they cannot be checked');
      expectTrue(!!flags && typeof flags === 'object' && !Array.isArray(flags) && Object.values(flags).every((v) => typeof v === 'string'), 'flags of Flagz', 'a map of flag name to string value', show(flags));
      // The text page lists the same flags (values redacted alike).
      const lines = linesAfterWarning(await zpageText(ctx, '/flagz'), '/flagz');
      const text = Object.fromEntries(lines.filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expectEqual(flags, text, 'flags of Flagz (as the /flagz text lists them)');
    },
  }),
]);
