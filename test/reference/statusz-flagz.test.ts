// /statusz, /flagz and /configz: Accept negotiation, the text layouts, the structured objects,
// redaction, the gates, and the flags `serve` passes.
import t from 'tap';
import { negotiateZPage, TEXT_NOT_ACCEPTABLE, JSON_NOT_ACCEPTABLE } from '../../reference/observability/zpages.js';
import { debugPaths, STATUSZ_FORM, statuszObject, statuszText, unixDate } from '../../reference/observability/statusz.js';
import { FLAGZ_FORM, flagzObject, flagzText, isConfidentialFlag, REDACTED } from '../../reference/observability/flagz.js';
import { startReference } from '../../reference/server.js';

const S = 'application/json;v=v1beta1;g=config.orch.io;as=Statusz';
const F = 'application/json;v=v1alpha1;g=config.orch.io;as=Flagz';
const WARNING = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';

t.test('negotiation: text by default and for text/plain, text/*, */*; the structured forms; 406 otherwise', async (t) => {
  for (const accept of [undefined, '', '*/*', 'text/plain', 'text/plain; charset=utf-8', 'text/*', 'text/html, */*;q=0.1', `${S};q=0.5, text/plain`]) {
    t.same(negotiateZPage(accept, STATUSZ_FORM), { type: 'text' }, `Accept ${JSON.stringify(accept)}: text`);
  }
  t.same(negotiateZPage(S, STATUSZ_FORM), { type: 'json' });
  t.same(negotiateZPage('application/json;as=Statusz;g=config.orch.io;v=v1beta1', STATUSZ_FORM), { type: 'json' }, 'parameters in any order');
  t.same(negotiateZPage(`text/plain;q=0.5, ${S}`, STATUSZ_FORM), { type: 'json' }, 'the preferred clause decides');
  t.same(negotiateZPage(F, FLAGZ_FORM), { type: 'json' });
  t.same(negotiateZPage('application/json;v=v1beta1;g=config.orch.io;as=Flagz', FLAGZ_FORM), { type: 'json' }, 'flagz also answers v1beta1');
  const refusedJson = { type: 'refused', message: JSON_NOT_ACCEPTABLE };
  for (const accept of [
    'application/json',
    'application/json;g=config.orch.io;as=Statusz',
    'application/json;v=v1beta1;as=Statusz',
    'application/json;v=v1beta1;g=config.orch.io',
    'application/json;v=v1alpha1;g=config.orch.io;as=Statusz',
    'application/json;v=v1beta1;g=config.k8s.io;as=Statusz',
    'application/json;v=v1beta1;g=config.orch.io;as=Flagz',
    'application/*',
  ]) {
    t.same(negotiateZPage(accept, STATUSZ_FORM), refusedJson, `Accept ${accept}: 406 not acceptable`);
  }
  for (const accept of ['application/xml', 'image/png', 'text/plain;q=0']) {
    t.same(negotiateZPage(accept, STATUSZ_FORM), { type: 'refused', message: TEXT_NOT_ACCEPTABLE }, `Accept ${accept}: 406, must be text/plain`);
  }
});

const info = {
  component: 'orch-apiserver',
  startTime: new Date('2026-03-05T07:08:09Z'),
  goVersion: 'node v20.0.0',
  binaryVersion: '0.1.0',
  emulationVersion: '1.37',
  minimumCompatibilityVersion: '1.36',
  paths: ['/healthz', '/healthz/ping', '/metrics/slis', '/api/v1', '/apis', '/statusz', '/version'],
};
const now = new Date('2026-03-05T09:10:11.900Z');

t.test('statusz text: upstream layout', async (t) => {
  t.equal(statuszText(info, now), [
    '',
    'orch-apiserver statusz',
    WARNING,
    '',
    'Started: Thu Mar  5 07:08:09 UTC 2026',
    'Up: 2 hr 02 min 02 sec',
    'Go version: node v20.0.0',
    'Binary version: 0.1.0',
    'Emulation version: 1.37',
    'Paths: /healthz /metrics /statusz /version',
    '',
  ].join('\n'));
  t.equal(unixDate(new Date('2026-11-22T03:04:05Z')), 'Sun Nov 22 03:04:05 UTC 2026');
  t.same(debugPaths(['/readyz/shutdown', '/openapi/v2', '/.well-known/x', '/configz', '/api']), ['/configz', '/readyz']);
});

t.test('statusz object: the fields of spec 002 §2.3', async (t) => {
  t.same(statuszObject(info, now), {
    kind: 'Statusz',
    apiVersion: 'config.orch.io/v1beta1',
    metadata: { name: 'orch-apiserver' },
    startTime: '2026-03-05T07:08:09Z',
    uptimeSeconds: 7322,
    goVersion: 'node v20.0.0',
    binaryVersion: '0.1.0',
    emulationVersion: '1.37',
    minimumCompatibilityVersion: '1.36',
    paths: ['/healthz', '/metrics', '/statusz', '/version'],
  });
  const bare = statuszObject({ ...info, emulationVersion: undefined, minimumCompatibilityVersion: undefined, paths: [] }, now);
  t.same(Object.keys(bare), ['kind', 'apiVersion', 'metadata', 'startTime', 'uptimeSeconds', 'goVersion', 'binaryVersion'], 'optional fields left out when unknown');
});

t.test('flagz: sorted name=value lines, the object, confidential values redacted', async (t) => {
  const flags = { storage: 'memory', 'api-port': '8080', 'auth-token': 's3cret', 'encryption-key': 'k', 'tls-private-key-file': '/etc/k.pem', password: '' };
  t.equal(flagzText('orch-apiserver', flags), [
    '',
    'orch-apiserver flags',
    WARNING,
    '',
    'api-port=8080',
    `auth-token=${REDACTED}`,
    `encryption-key=${REDACTED}`,
    'password=',
    'storage=memory',
    'tls-private-key-file=/etc/k.pem',
    '',
  ].join('\n'));
  t.same(flagzObject('orch-apiserver', { b: '2', a: '1', 'client-secret': 'x' }), {
    kind: 'Flagz', apiVersion: 'config.orch.io/v1beta1', metadata: { name: 'orch-apiserver' }, flags: { a: '1', b: '2', 'client-secret': REDACTED },
  });
  for (const n of ['token', 'bootstrap-token', 'oidc-client-secret', 'etcd-password', 'basic-credentials', 'encryption-key']) t.ok(isConfidentialFlag(n), `${n} is confidential`);
  for (const n of ['tls-private-key-file', 'service-account-key-file', 'host', 'keyring']) t.notOk(isConfidentialFlag(n), `${n} is not`);
});

t.test('the reference: pages served, flags from the command line, configz, 406s', async (t) => {
  const ref = await startReference({ flags: { host: '127.0.0.1', 'api-port': '0', storage: 'memory', 'feature-gates': '', 'admin-token': 'abc' } });
  t.teardown(() => ref.close());
  const get = async (p: string, accept?: string) => {
    const r = await fetch(`${ref.url}${p}`, { headers: accept === undefined ? {} : { accept } });
    return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
  };
  const st = await get('/statusz');
  t.equal(st.status, 200);
  t.equal(st.type, 'text/plain; charset=utf-8');
  t.match(st.body, /^\norch-apiserver statusz\nWarning: .*\n\nStarted: .*\nUp: \d+ hr \d\d min \d\d sec\nGo version: node v.*\nBinary version: \S+\nEmulation version: 1\.37\nPaths: \/configz \/flagz \/healthz \/livez \/metrics \/readyz \/statusz \/version\n$/);
  const sj = await get('/statusz', S);
  t.equal(sj.type, 'application/json');
  t.match(JSON.parse(sj.body), { kind: 'Statusz', apiVersion: 'config.orch.io/v1beta1', emulationVersion: '1.37', minimumCompatibilityVersion: '1.36' });
  t.same(await get('/statusz', 'application/json'), { status: 406, type: 'text/plain; charset=utf-8', body: `${JSON_NOT_ACCEPTABLE}\n` });
  t.same(await get('/flagz', 'application/xml'), { status: 406, type: 'text/plain; charset=utf-8', body: `${TEXT_NOT_ACCEPTABLE}\n` });
  t.equal((await get('/flagz')).body, `\norch-apiserver flags\n${WARNING}\n\nadmin-token=${REDACTED}\napi-port=0\nfeature-gates=\nhost=127.0.0.1\nstorage=memory\n`);
  t.same(JSON.parse((await get('/flagz', F)).body).flags, { 'admin-token': REDACTED, 'api-port': '0', 'feature-gates': '', host: '127.0.0.1', storage: 'memory' });
  const cz = await get('/configz');
  t.equal(cz.type, 'application/json');
  t.match(JSON.parse(cz.body), { componentconfig: { bindAddress: '127.0.0.1', storage: 'memory', featureGates: { ComponentStatusz: true } } });
  t.equal((await fetch(`${ref.url}/statusz`, { method: 'DELETE' })).status, 405);
});

t.test('the reference: without flags, /flagz shows the serve flags equivalent to its options', async (t) => {
  const ref = await startReference({ featureGates: { GenericWorkload: true } });
  t.teardown(() => ref.close());
  const flags = JSON.parse(await (await fetch(`${ref.url}/flagz`, { headers: { accept: F } })).text()).flags;
  t.same(flags, { 'api-port': '0', 'feature-gates': 'GenericWorkload=true', host: '127.0.0.1', storage: 'memory' });
});

t.test('the reference: ComponentStatusz and ComponentFlagz off take their pages away', async (t) => {
  const off = await startReference({ featureGates: { ComponentStatusz: false } });
  t.teardown(() => off.close());
  t.equal((await fetch(`${off.url}/statusz`)).status, 404);
  t.equal((await fetch(`${off.url}/flagz`)).status, 200);
  const noFlags = await startReference({ featureGates: { ComponentFlagz: false } });
  t.teardown(() => noFlags.close());
  t.equal((await fetch(`${noFlags.url}/flagz`)).status, 404);
  const paths = JSON.parse(await (await fetch(`${noFlags.url}/statusz`, { headers: { accept: S } })).text()).paths;
  t.notOk(paths.includes('/flagz'), '/statusz no longer lists /flagz');
  t.ok(paths.includes('/statusz'));
});
