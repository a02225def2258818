// The legal-variant runs put every variant of a run in ONE proxy (test/helpers/variant-target.ts):
// the hooks must apply as a chain of proxies, one per variant, would apply them, or a combined run
// tests another target than the one test/variants/index.ts reasons about. Two synthetic variants
// before a small upstream show the order of every kind of hook.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { answer, type ProxiedRequest } from '../helpers/broken-target.js';
import { params, startVariantTarget, type LegalVariant } from '../helpers/variant-target.js';

/** Answers with what it was sent; a watch gets two lines, then ends. */
function startUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    if (/[?&]watch=true/.test(req.url ?? '')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"line":1}\n{"line":2}\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-order': 'U' });
    res.end(JSON.stringify({ path: req.url }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const mark = (req: ProxiedRequest, who: string) => {
  const q = params(req);
  q.set('trail', (q.get('trail') ?? '') + who);
  req.path = `${req.path.split('?')[0]}?${q}`;
};

/** Stage 0, nearest the upstream. */
const inner: LegalVariant = {
  name: 'inner',
  freedom: 'a synthetic variant nearest the upstream',
  hooks: () => ({
    request(req) {
      if (req.path.startsWith('/early-inner')) return answer(200, { by: 'inner' });
      mark(req, 'i');
    },
    response(_req, res) {
      res.headers['x-order'] = `${res.headers['x-order'] ?? ''}I`;
    },
    watchLine: (_req, line) => `${line}\n{"added":"inner"}`,
    watchOpen(_req, push) {
      push('{"pushed":"inner"}');
    },
  }),
};

/** Stage 1, the one the client talks to. */
const outer: LegalVariant = {
  name: 'outer',
  freedom: 'a synthetic variant in front of the other',
  hooks: (ctx) => ({
    async request(req) {
      if (req.path.startsWith('/early-outer')) return answer(200, { by: 'outer' });
      // Tried first through what stands behind: the inner stage's hooks, then the upstream.
      if (req.path.startsWith('/probe')) return ctx.forward(req);
      mark(req, 'o');
    },
    response(req, res) {
      // The request as it left this stage, not as the inner stage changed it.
      res.headers['x-outer-saw'] = params(req).get('trail') ?? '';
      res.headers['x-order'] = `${res.headers['x-order'] ?? ''}O`;
    },
    watchLine: (_req, line) => line.toUpperCase(),
  }),
};

t.test('variants in one proxy apply their hooks as a chain of proxies would', async (t) => {
  const upstream = await startUpstream();
  const target = await startVariantTarget(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, [inner, outer], { serveTls: false });
  t.teardown(async () => {
    await target.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const res = await fetch(`${target.url}/echo`);
  t.same(await res.json(), { path: '/echo?trail=oi' }, 'requests pass the outer stage, then the inner one');
  t.equal(res.headers.get('x-order'), 'UIO', 'responses pass the inner stage, then the outer one');
  t.equal(res.headers.get('x-outer-saw'), 'o', 'each stage sees the request as it left that stage');

  const early = await fetch(`${target.url}/early-inner`);
  t.same(await early.json(), { by: 'inner' }, 'a stage may answer by itself');
  t.equal(early.headers.get('x-order'), 'O', 'its answer passes only the stages after it');
  const outerEarly = await fetch(`${target.url}/early-outer`);
  t.same(await outerEarly.json(), { by: 'outer' }, 'the outer stage answers by itself');
  t.equal(outerEarly.headers.get('x-order'), null, 'no stage\'s response hook sees the answer of the last one');

  const probe = await fetch(`${target.url}/probe`);
  t.same(await probe.json(), { path: '/probe?trail=i' }, 'a stage\'s forward passes the stages before it');
  t.equal(probe.headers.get('x-order'), 'UI', 'and their response hooks, not its own');

  const watch = await (await fetch(`${target.url}/w?watch=true`)).text();
  const lines = watch.split('\n').filter((l) => l);
  t.same(lines.filter((l) => !l.includes('PUSHED')), ['{"LINE":1}', '{"ADDED":"INNER"}', '{"LINE":2}', '{"ADDED":"INNER"}'], 'watch lines pass the inner stage, then the outer one, line by line');
  t.ok(lines.includes('{"PUSHED":"INNER"}'), 'a line a stage pushes passes the stages after it');

  const edits = target.edits();
  t.ok(edits['inner']! > 0 && edits['outer']! > 0, `each variant's edits are counted apart (${JSON.stringify(edits)})`);
});
