// Spec 002 §4: /flagz reports command-line flags (and their defaults) only, not the merged
// configuration, which is /configz's. What tells a flag from a configuration field without knowing
// the component: flag names are lowercase words joined by "-" (component-base normalises "_" to
// "-"), while configuration fields are camelCase keys (`bindAddress`, `apiVersion`) or nested
// paths. So every /flagz name must be flag-shaped, and none may be a field of /configz that is not.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectTrue, fail } from '../verify.js';
import { debugCase, everyComponent, flagzObject, getWithAccept, linesAfterWarning, zpageText } from './debug-common.js';

const FLAG_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Every field name of a configuration object, bare and as a dotted path (`a`, `b`, `a.b`). */
function fieldNames(o: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return out;
  for (const [k, v] of Object.entries(o)) {
    out.add(k);
    out.add(`${prefix}${k}`);
    fieldNames(v, `${prefix}${k}.`, out);
  }
  return out;
}

/** /configz's field names, or none where the component has no /configz ("where available"). */
async function configFields(ctx: CaseContext): Promise<Set<string>> {
  const res = await getWithAccept(ctx, '/configz', 'application/json');
  return res.status === 200 ? fieldNames(res.json) : new Set();
}

function expectFlagNames(names: readonly string[], config: Set<string>, what: string): void {
  for (const n of names) {
    if (config.has(n) && !FLAG_NAME.test(n)) fail(`${what}: ${JSON.stringify(n)} is a flag`, 'flags only, not fields of the merged configuration', `${JSON.stringify(n)}, a field of /configz`);
    expectTrue(FLAG_NAME.test(n), `${what}: ${JSON.stringify(n)} is named like a command-line flag`, 'lowercase words joined by "-" (e.g. feature-gates)', n);
  }
}

export const flagsOnlyCases: Case[] = everyComponent([
  defineCase({
    ...debugCase,
    suite: 'flagz',
    id: 'debug.flagz.flags-only',
    title: '/flagz lists command-line flags only (flag-shaped names in text and structured form), not the merged configuration of /configz',
    requirements: ['002-4-flagz-flags-only'],
    spec: { doc: '002', section: '4' },
    level: 'MUST',
    gates: { ComponentFlagz: true },
    async run(ctx) {
      const config = await configFields(ctx);
      const text = linesAfterWarning(await zpageText(ctx, '/flagz'), '/flagz').filter((l) => l.includes('='));
      expectFlagNames(text.map((l) => l.slice(0, l.indexOf('='))), config, '/flagz text');
      // `flags` is optional in the structured payload (§2.4): absent, it lists nothing to check.
      const flags = (await flagzObject(ctx))['flags'];
      expectFlagNames(Object.keys(flags && typeof flags === 'object' ? flags : {}), config, 'structured /flagz');
    },
  }),
]);
