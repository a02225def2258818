// `serve --debug-plant-corrupt`: the test-only switch that plants an undecodable entry at start.
import t from 'tap';
import { execaNode } from 'execa';
import { BIN, startServe } from './helpers/serve.js';

const SC = '/apis/storage.orch.io/v1/storageclasses';

t.test('serve --debug-plant-corrupt plants a corrupt object that only the unsafe delete removes', async (t) => {
  const { proc: serve, url } = await startServe(t, ['--plain-http', '--debug-plant-corrupt', `${SC}/broken`, '--debug-plant-corrupt', '/api/v1/namespaces/default/resourcequotas/q']);
  const get = await fetch(`${url}${SC}/broken`);
  t.equal(get.status, 500);
  t.match(((await get.json()) as any).message, /corrupt object/);
  t.equal((await fetch(`${url}/api/v1/namespaces/default/resourcequotas/q`)).status, 500, 'namespaced paths too');
  t.equal((await fetch(`${url}${SC}/broken`, { method: 'DELETE' })).status, 500);
  const unsafe = await fetch(`${url}${SC}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true`, { method: 'DELETE' });
  t.equal(unsafe.status, 200);
  t.equal((await fetch(`${url}${SC}/broken`)).status, 404);
  serve.kill('SIGTERM');
  t.equal((await serve).exitCode, 0);
});

t.test('serve refuses a --debug-plant-corrupt path that names no served object', async (t) => {
  const bad = await execaNode(BIN, ['serve', '--api-port', '0', '--debug-plant-corrupt', '/apis/storage.orch.io/v1/storageclasses'], { reject: false, timeout: 20_000 });
  t.equal(bad.exitCode, 2);
  t.match(bad.stderr, /not the path of one object/);
  const unknown = await execaNode(BIN, ['serve', '--api-port', '0', '--debug-plant-corrupt', '/apis/nothing.orch.io/v1/things/x'], { reject: false, timeout: 20_000 });
  t.equal(unknown.exitCode, 2);
  t.match(unknown.stderr, /does not serve things/);
});
