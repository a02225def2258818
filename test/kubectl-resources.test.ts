// Every resource the reference serves through the real kubectl: `kubectl api-resources` lists it
// with its scope and verbs, and `kubectl get` works for it. kubectl must be on PATH (CI installs it).
import t from 'tap';
import { startReference } from '../reference/server.js';
import { REFERENCE_RESOURCES } from '../reference/resources/index.js';
import { kubectlAgainst } from './helpers/kubectl.js';

t.test('kubectl api-resources and get for every resource', async (t) => {
  // Gated APIs on, so that they are served too.
  const ref = await startReference({ featureGates: { GenericWorkload: true }, tls: 'self-signed' });
  // Every gated API is served with the gates above; a new gate needs adding here.
  t.teardown(() => ref.close());
  const { kubectl } = kubectlAgainst(t, ref.url, { caPem: ref.caPem });

  const res = await kubectl('api-resources', '-o', 'wide', '--no-headers');
  t.equal(res.exitCode, 0, res.stderr);
  const rows = res.stdout.split('\n').map((l) => l.trim().split(/\s+/));
  t.ok(REFERENCE_RESOURCES.length > 1);
  for (const s of REFERENCE_RESOURCES) {
    const k = { plural: s.resource, apiVersion: s.group ? `${s.group}/${s.version}` : s.version, namespaced: s.namespaced, kind: s.kind };
    // Columns: NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS [CATEGORIES]
    const row = rows.find((r) => r[0] === k.plural && r.includes(k.apiVersion));
    t.ok(row, `${k.plural} (${k.apiVersion}) is listed`);
    if (!row) continue;
    const at = row.indexOf(k.apiVersion);
    t.equal(row[at + 1], String(k.namespaced), `${k.plural}: NAMESPACED ${k.namespaced}`);
    t.equal(row[at + 2], k.kind, `${k.plural}: KIND`);
    const verbs = (row[at + 3] ?? '').replace(/^\[|\]$/g, '').split(',');
    // The review kinds are create only and never stored: nothing to get.
    if (s.notStored) {
      t.same(verbs, ['create'], `${k.plural}: create only (${row[at + 3]})`);
      continue;
    }
    for (const v of ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']) t.ok(verbs.includes(v), `${k.plural}: verb ${v} listed (${row[at + 3]})`);

    const group = k.apiVersion.includes('/') ? `.${k.apiVersion.split('/')[0]}` : '';
    const get = await kubectl('get', `${k.plural}${group}`, ...(k.namespaced ? ['--all-namespaces'] : []));
    t.equal(get.exitCode, 0, `kubectl get ${k.plural}${group}: ${get.stderr}`);
  }
});
