// Spec 000 §4.3 (ignoreStoreReadErrorWithClusterBreakingPotential) and §7: objects whose stored
// data the server cannot decode (a failed decryption, bytes of an unknown format). A case cannot
// corrupt storage through the API, so the operator names such objects (target fact `corruptObject`:
// `run --corrupt-object <path>`, one per case) and each case removes the one it was given with the
// unsafe delete: that is what the option is for, and nothing else on the target is touched.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { fact } from '../../runner/facts.js';
import { upstream } from '../findings.js';
import { expectCode, expectStatus, expectTrue, show } from '../verify.js';
import { DELETED } from './spec-freedoms.js';

const UNSAFE = 'ignoreStoreReadErrorWithClusterBreakingPotential';
const common = { impact: 'cluster-scoped', needs: ['api'], facts: ['corruptObject'] } as const;

const corruptPath = (ctx: CaseContext): string => fact(ctx.facts, 'corruptObject');

/** An unsafe delete, whose outcome only matters to the case that checks it. */
async function removeCorrupt(ctx: CaseContext, path: string): Promise<void> {
  await ctx.api.delete(path, { query: { [UNSAFE]: 'true' } }).catch(() => undefined);
}

export const corruptObjectCases: Case[] = [
  defineCase({
    ...common,
    suite: 'errors',
    spec: { doc: '000', section: '7' },
    level: 'SHOULD',
    id: 'api.errors.internal',
    title: 'Reading an object the server cannot decode is a server failure: 500 InternalError',
    requirements: ['000-7-status-internal'],
    async run(ctx) {
      const path = corruptPath(ctx);
      try {
        expectStatus(await ctx.api.get(path), { code: 500, reason: 'InternalError' }, `GET of the corrupt object ${path}`);
      } finally {
        await removeCorrupt(ctx, path);
      }
    },
  }),
  defineCase({
    ...common,
    suite: 'delete',
    spec: { doc: '000', section: '4.3' },
    level: 'MUST',
    id: 'api.delete.ignore-store-read-error.unsafe-delete',
    upstreamShape: true,
    title: 'A corrupt object that a normal delete cannot remove is removed by DELETE with ignoreStoreReadErrorWithClusterBreakingPotential=true',
    requirements: ['000-4.3-ignore-store-read-error-unsafe-delete'],
    async run(ctx) {
      const path = corruptPath(ctx);
      try {
        // The spec's condition is "when normal deletion fails": the normal delete must be an error
        // and leave the object; that it is a server fault (5xx Status, the object cannot be read) is
        // upstream's answer.
        const normal = await ctx.api.delete(path);
        expectTrue(normal.status >= 400, `a normal DELETE of the corrupt object ${path}`, 'to fail (an error response: the object cannot be read)', `HTTP ${normal.status} ${show(normal.json ?? normal.text)}`);
        upstream(() => expectTrue(normal.status >= 500 && normal.json?.kind === 'Status', `a normal DELETE of the corrupt object ${path}: a server fault (upstream's)`, 'a 5xx Status (InternalError)', `HTTP ${normal.status} ${show(normal.json ?? normal.text)}`));
        expectTrue((await ctx.api.get(path)).status !== 404, `the corrupt object after the failed normal delete`, 'still stored', 'HTTP 404: a normal delete removed it');
        const unsafe = await ctx.api.delete(path, { query: { [UNSAFE]: 'true' } });
        expectCode(unsafe, DELETED, `DELETE ?${UNSAFE}=true of the corrupt object`);
        expectStatus(await ctx.api.get(path), { code: 404, reason: 'NotFound', spec: { code: 404 } }, 'GET of the object after the unsafe delete');
      } finally {
        await removeCorrupt(ctx, path);
      }
    },
  }),
];
