// Spec 002 §7: JSON asked of /statusz or /flagz without all of g, v and as is 406 Not Acceptable.
import { defineCase, type Case } from '../case.js';
import { expectCode } from '../verify.js';
import { debugCase, everyComponent, getWithAccept } from './debug-common.js';

const common = { ...debugCase, spec: { doc: '002', section: '7' }, level: 'MUST' } as const;

/** Plain application/json, then the structured form with each of g, v and as left out. */
function incomplete(v: string, as: string): string[] {
  const params = { v: `v=${v}`, g: 'g=config.orch.io', as: `as=${as}` };
  const keys = Object.keys(params) as Array<keyof typeof params>;
  return ['application/json', ...keys.map((drop) => ['application/json', ...keys.filter((k) => k !== drop).map((k) => params[k])].join(';'))];
}

function notAcceptable(path: '/statusz' | '/flagz', v: string, as: string, requirement: string): Case {
  return defineCase({
    ...common,
    suite: path.slice(1),
    id: `debug.${path.slice(1)}.json-without-params`,
    gates: { [path === '/statusz' ? 'ComponentStatusz' : 'ComponentFlagz']: true },
    title: `Accept: application/json on ${path} without all of g, v and as is 406`,
    requirements: [requirement],
    async run(ctx) {
      for (const accept of incomplete(v, as)) expectCode(await getWithAccept(ctx, path, accept), 406, `GET ${path} with Accept: ${accept}`);
    },
  });
}

export const debugErrorCases: Case[] = everyComponent([
  notAcceptable('/statusz', 'v1beta1', 'Statusz', '002-7-statusz-json-without-params-406'),
  notAcceptable('/flagz', 'v1alpha1', 'Flagz', '002-7-flagz-json-without-params-406'),
]);
