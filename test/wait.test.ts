// suites/wait.ts against a scripted API: holdsFor rides over an expired resourceVersion (a server
// may compact history at any time) by reading the object again, and still fails when it changed.
import t from 'tap';
import { holdsFor } from '../suites/wait.js';
import type { CaseContext } from '../suites/case.js';

type Ev = { type: string; object: any };

/** An API whose GETs answer `reads` in turn and whose watches play `watches` in turn (then stay quiet). */
function scripted(reads: any[], watches: Ev[][]): { ctx: CaseContext; gets: () => number } {
  let g = 0;
  let w = 0;
  const api = {
    async get() { const o = reads[Math.min(g++, reads.length - 1)]; return o === 404 ? { status: 404, json: {} } : { status: 200, json: o }; },
    async watch() {
      const events = [...(watches[w++] ?? [])];
      return { status: 200, async next(ms: number) { if (events.length) return events.shift(); await new Promise((r) => setTimeout(r, Math.min(ms, 50))); return undefined; }, close() {} };
    },
  };
  return { ctx: { api } as unknown as CaseContext, gets: () => g };
}

const pod = (rv: string, extra: object = {}) => ({ metadata: { name: 'p', resourceVersion: rv, ...extra } });
const expired: Ev = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } };
const stays = (o: any) => !o?.deleted && !o?.metadata?.deletionTimestamp;
/** What holdsFor failed with (a CaseFailure: message, expected, actual), or undefined if it passed. */
const failure = (p: Promise<unknown>): Promise<any> => p.then(() => undefined, (e) => e);

t.test('an expired watch is read again, and the object that stayed passes', async (t) => {
  const { ctx, gets } = scripted([pod('1'), pod('5')], [[expired], []]);
  const last = await holdsFor(ctx, '/api/v1/namespaces/n/pods/p', stays, 300, 'p stays', 'not deleted');
  t.equal(last.metadata.resourceVersion, '5', 'the state read after the expiry is the last seen');
  t.equal(gets(), 2, 'one read at the start, one after the 410');
});

t.test('an object deleted while the watch had expired fails', async (t) => {
  const { ctx } = scripted([pod('1'), pod('5', { deletionTimestamp: '2026-01-01T00:00:00Z' })], [[expired]]);
  t.match(await failure(holdsFor(ctx, '/api/v1/namespaces/n/pods/p', stays, 300, 'p stays', 'not deleted')), { message: /p stays/, actual: /deletionTimestamp/ }, 'fails, showing the deletion');
});

t.test('an object gone (404) after the expiry fails', async (t) => {
  const { ctx } = scripted([pod('1'), 404], [[expired]]);
  t.match(await failure(holdsFor(ctx, '/api/v1/namespaces/n/pods/p', stays, 300, 'p stays', 'not deleted')), { actual: /HTTP 404/ }, 'fails, showing the 404');
});

t.test('another watch error still fails', async (t) => {
  const { ctx } = scripted([pod('1')], [[{ type: 'ERROR', object: { kind: 'Status', code: 500 } }]]);
  t.match(await failure(holdsFor(ctx, '/api/v1/namespaces/n/pods/p', stays, 300, 'p stays', 'not deleted')), { actual: /watch error/ }, 'fails, showing the error');
});
