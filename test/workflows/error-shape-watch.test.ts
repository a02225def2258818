// The error-shape legal variants (test/variants/error-shapes.ts) take their freedom on every error
// answer of the API, a refused watch included: a watch the server refuses before its stream begins
// (sendInitialEvents without resourceVersionMatch=NotOlderThan) passes the proxy as a head and a body
// line, not as a response, and went through unchanged, so the MUST cases about such refusals were
// never run against a server answering them in another shape. A small upstream refusing every
// request with upstream's 422 Invalid shows the watch reshaped as the plain request is.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startVariantTarget } from '../helpers/variant-target.js';
import { errorShapeVariants } from '../variants/error-shapes.js';

const INVALID = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 422, reason: 'Invalid',
  message: 'ListOptions.meta.orch.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
  details: { kind: 'ListOptions', group: 'meta.orch.io', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: ...', field: 'resourceVersionMatch' }] },
};

/** Refuses every request with upstream's 422 Invalid (no final newline, as the reference sends it). */
function startUpstream(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(422, { 'content-type': 'application/json' });
    res.end(JSON.stringify(INVALID));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const PATH = '/apis/rbac.authorization.orch.io/v1/namespaces/n/roles';
const variant = (name: string) => errorShapeVariants.find((v) => v.name === name)!;

t.test('error-shape variants reshape a refused watch as they reshape any other error answer', async (t) => {
  const upstream = await startUpstream();
  t.teardown(() => new Promise((resolve) => upstream.close(resolve)));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const cases: Array<[string, (status: number, body: any) => void]> = [
    ['invalid-as-plain-400', (status, body) => {
      t.equal(status, 400, 'invalid-as-plain-400: HTTP 400');
      t.match(body, { kind: 'Status', code: 400, reason: 'BadRequest', message: INVALID.message }, 'invalid-as-plain-400: a BadRequest Status, the message kept');
      t.equal(body.details?.causes, undefined, 'invalid-as-plain-400: no causes');
    }],
    ['invalid-without-causes', (status, body) => {
      t.equal(status, 422, 'invalid-without-causes: HTTP 422 kept');
      t.match(body, { kind: 'Status', reason: 'Invalid' }, 'invalid-without-causes: the Status kept');
      t.equal(body.details?.causes, undefined, 'invalid-without-causes: no causes');
    }],
    ['errors-small-json', (status, body) => {
      t.equal(status, 422, 'errors-small-json: HTTP 422 kept');
      t.same(body, { code: 422, error: INVALID.message }, 'errors-small-json: the small JSON object instead of a Status');
    }],
  ];
  for (const [name, check] of cases) {
    const target = await startVariantTarget(base, [variant(name)], { serveTls: false });
    try {
      const plain = await fetch(`${target.url}${PATH}?resourceVersionMatch=Exact`);
      const watch = await fetch(`${target.url}${PATH}?watch=true&sendInitialEvents=true`);
      const plainBody = await plain.json();
      const watchBody = JSON.parse(await watch.text());
      check(watch.status, watchBody);
      t.same([watch.status, watchBody], [plain.status, plainBody], `${name}: the refused watch is answered as the refused list`);
      t.ok(target.edits()[name]! >= 2, `${name}: counted as changed`);
    } finally {
      await target.close();
    }
  }
});
