// Every namespace carries orch.io/metadata.name=<its name> (upstream kubernetes.io/metadata.name),
// whatever the client sent: on create (generated names too), on update, and the initial namespaces.
import t from 'tap';
import { call, NS, startTestServer } from './helpers.js';

const LABEL = 'orch.io/metadata.name';

t.test('namespaces are labelled with their own name', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const named = await call(u, 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { [LABEL]: 'forged', team: 'a' } } });
  t.equal(named.status, 201);
  t.same(named.body.metadata.labels, { [LABEL]: 'team-a', team: 'a' }, 'set to the name, over what the client sent');
  const generated = await call(u, 'POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'gen-' } });
  t.equal(generated.status, 201);
  t.equal(generated.body.metadata.labels[LABEL], generated.body.metadata.name, 'a generated name too');
  const removed = await call(u, 'PATCH', `${NS}/team-a`, { metadata: { labels: { [LABEL]: null, team: null } } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(removed.status, 200);
  t.same(removed.body.metadata.labels, { [LABEL]: 'team-a' }, 'an update cannot remove it');
  const initial = await call(u, 'GET', `${NS}/default`);
  t.equal(initial.body.metadata.labels?.[LABEL], 'default', 'the initial namespaces have it');
  const selected = await call(u, 'GET', `${NS}?labelSelector=${encodeURIComponent(`${LABEL}=team-a`)}`);
  t.same(selected.body.items.map((n: any) => n.metadata.name), ['team-a'], 'selectable by name through the label');
});
