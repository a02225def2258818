// StorageClass rules (spec §2.2, upstream validation where the spec is silent).
import t from 'tap';
import { SC, call, sc, startTestServer } from './helpers.js';

t.test('defaults', async (t) => {
  const srv = await startTestServer(t);
  const r = await call(srv.url, 'POST', SC, sc('defaults'));
  t.equal(r.status, 201);
  t.equal(r.body.reclaimPolicy, 'Delete');
  t.equal(r.body.volumeBindingMode, 'Immediate');
  t.equal(r.body.allowVolumeExpansion, undefined);
  const nulls = await call(srv.url, 'POST', SC, sc('nulls', { reclaimPolicy: null, volumeBindingMode: null, parameters: null }));
  t.equal(nulls.body.reclaimPolicy, 'Delete', 'null is unset, so defaulted');
  t.equal(nulls.body.volumeBindingMode, 'Immediate');
  t.equal(nulls.body.parameters, undefined);
  const empty = await call(srv.url, 'POST', SC, sc('empty-policy', { reclaimPolicy: '' }));
  t.equal(empty.status, 201, 'an empty reclaimPolicy is not defaulted and not rejected (upstream)');
  t.equal(empty.body.reclaimPolicy, '');
});

t.test('accepted values', async (t) => {
  const srv = await startTestServer(t);
  for (const p of ['Delete', 'Recycle', 'Retain']) {
    const r = await call(srv.url, 'POST', SC, sc(`rp-${p.toLowerCase()}`, { reclaimPolicy: p }));
    t.equal(r.status, 201, `reclaimPolicy ${p}`);
    t.equal(r.body.reclaimPolicy, p);
  }
  for (const m of ['Immediate', 'WaitForFirstConsumer']) {
    t.equal((await call(srv.url, 'POST', SC, sc(`vb-${m.toLowerCase()}`, { volumeBindingMode: m }))).status, 201, `volumeBindingMode ${m}`);
  }
  const full = await call(srv.url, 'POST', SC, sc('full', {
    provisioner: 'Example.ORCH.io/Fast_Disk',
    parameters: { type: 'ssd', iops: '100' },
    allowVolumeExpansion: true,
    mountOptions: ['ro', 'not a real option, not validated'],
    allowedTopologies: [
      { matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['a', 'b'] }, { key: 'rack', values: ['1'] }] },
      { matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['c'] }] },
    ],
  }));
  t.equal(full.status, 201, 'provisioner checked case-insensitively; mountOptions not validated');
  t.same(full.body.mountOptions, ['ro', 'not a real option, not validated']);
  t.equal((await call(srv.url, 'POST', SC, sc('no-topo', { allowedTopologies: [] }))).status, 201, 'an empty allowedTopologies is fine');
  t.equal((await call(srv.url, 'POST', SC, sc('empty-term', { allowedTopologies: [{}] }))).status, 201, 'an empty term is accepted');
  t.equal((await call(srv.url, 'GET', `${SC}/full`)).body.parameters.type, 'ssd');
});

async function invalid(url: string, name: string, extra: Record<string, unknown>): Promise<any> {
  const r = await call(url, 'POST', SC, sc(name, extra));
  if (r.status !== 422) throw new Error(`expected 422 for ${JSON.stringify(extra)}, got ${r.status} ${r.text}`);
  return r.body;
}

t.test('field rules and their messages', async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;

  let b = await invalid(u, 'np', { provisioner: '' });
  t.equal(b.message, 'StorageClass.storage.orch.io "np" is invalid: provisioner: Required value');
  t.same(b.details, { name: 'np', group: 'storage.orch.io', kind: 'StorageClass', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' }] });

  b = await invalid(u, 'bp', { provisioner: 'bad provisioner!' });
  t.equal(b.details.causes[0].field, 'provisioner');
  t.equal(b.details.causes[0].reason, 'FieldValueInvalid');
  t.match(b.details.causes[0].message, /^Invalid value: "bad provisioner!": name part must consist of alphanumeric characters/);
  b = await invalid(u, 'bp2', { provisioner: 'a/b/c' });
  t.match(b.message, 'provisioner: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters');

  b = await invalid(u, 'rp', { reclaimPolicy: 'Keep' });
  t.equal(b.message, 'StorageClass.storage.orch.io "rp" is invalid: reclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"');
  t.equal(b.details.causes[0].reason, 'FieldValueNotSupported');

  b = await invalid(u, 'vb', { volumeBindingMode: 'Later' });
  t.equal(b.message, 'StorageClass.storage.orch.io "vb" is invalid: volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"');
  b = await invalid(u, 'vb2', { volumeBindingMode: '' });
  t.equal(b.details.causes[0].reason, 'FieldValueNotSupported');

  b = await invalid(u, 'ave', { allowVolumeExpansion: 'yes' });
  t.same(b.details.causes, [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": must be of type boolean', field: 'allowVolumeExpansion' }]);

  const many: Record<string, string> = {};
  for (let i = 0; i < 513; i++) many[`k${i}`] = 'v';
  b = await invalid(u, 'pm', { parameters: many });
  t.equal(b.message, 'StorageClass.storage.orch.io "pm" is invalid: parameters: Too long: may not be more than 512 bytes');
  b = await invalid(u, 'ps', { parameters: { a: 'x'.repeat(256 * 1024) } });
  t.equal(b.message, 'StorageClass.storage.orch.io "ps" is invalid: parameters: Too long: may not be more than 262144 bytes');
  b = await invalid(u, 'pe', { parameters: { '': 'v' } });
  t.equal(b.message, 'StorageClass.storage.orch.io "pe" is invalid: parameters: Invalid value: "": field can not be empty.');
  b = await invalid(u, 'pt', { parameters: { a: 1 } });
  t.same(b.details.causes[0], { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "number": must be of type string', field: 'parameters[a]' });
  const exactly512: Record<string, string> = {};
  for (let i = 0; i < 512; i++) exactly512[`k${i}`] = 'v';
  t.equal((await call(u, 'POST', SC, sc('p512', { parameters: exactly512 }))).status, 201, '512 parameters are fine');

  b = await invalid(u, 'topo', {
    allowedTopologies: [
      {
        matchLabelExpressions: [
          { key: 'zone', values: [] },
          { key: 'bad key', values: ['a', 'a'] },
          { key: 'zone', values: ['x'] },
        ],
      },
    ],
  });
  t.same(
    b.details.causes.map((c: any) => [c.field, c.reason, c.message]),
    [
      ['allowedTopologies[0].matchLabelExpressions[0].values', 'FieldValueRequired', 'Required value'],
      ['allowedTopologies[0].matchLabelExpressions[1].values[1]', 'FieldValueDuplicate', 'Duplicate value: "a"'],
      ['allowedTopologies[0].matchLabelExpressions[1].key', 'FieldValueInvalid', b.details.causes[2].message],
      ['allowedTopologies[0].matchLabelExpressions[2].key', 'FieldValueDuplicate', 'Duplicate value: "zone"'],
    ],
  );
  t.match(b.details.causes[2].message, /^Invalid value: "bad key": name part must consist of alphanumeric characters/);

  b = await invalid(u, 'nokey', { allowedTopologies: [{ matchLabelExpressions: [{ values: ['a'] }] }] });
  t.same(b.details.causes.map((c: any) => c.field), ['allowedTopologies[0].matchLabelExpressions[0].key', 'allowedTopologies[0].matchLabelExpressions[0].key'], 'a missing key fails as an empty qualified name (two messages upstream)');
  t.match(b.details.causes[0].message, 'Invalid value: "": name part must be non-empty');

  b = await invalid(u, 'dupterm', {
    allowedTopologies: [
      { matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] },
      { matchLabelExpressions: [{ key: 'zone', values: ['b', 'a'] }] },
    ],
  });
  t.same(b.details.causes, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: ""', field: 'allowedTopologies[1].matchLabelExpressions' }]);

  b = await invalid(u, 'many', { provisioner: '', reclaimPolicy: 'X' });
  t.equal(b.message, 'StorageClass.storage.orch.io "many" is invalid: [provisioner: Required value, reclaimPolicy: Unsupported value: "X": supported values: "Delete", "Recycle", "Retain"]', 'several errors are bracketed');
});

t.test('update rules', async (t) => {
  const srv = await startTestServer(t);
  const created = (await call(srv.url, 'POST', SC, sc('imm', { parameters: { a: 'b' }, reclaimPolicy: 'Retain' }))).body;
  const put = (changes: Record<string, unknown>): Promise<any> => call(srv.url, 'PUT', `${SC}/imm`, { ...created, ...changes });

  let r = await put({ parameters: { a: 'c' } });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'StorageClass.storage.orch.io "imm" is invalid: parameters: Forbidden: updates to parameters are forbidden.');
  r = await put({ provisioner: 'other.orch.io/p' });
  t.equal(r.body.message, 'StorageClass.storage.orch.io "imm" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.');
  r = await put({ reclaimPolicy: 'Delete' });
  t.equal(r.body.message, 'StorageClass.storage.orch.io "imm" is invalid: reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.');
  const { reclaimPolicy: _rp, ...withoutPolicy } = created;
  r = await call(srv.url, 'PUT', `${SC}/imm`, withoutPolicy);
  t.equal(r.status, 422, 'an omitted reclaimPolicy defaults to Delete, which is a change');
  r = await put({ volumeBindingMode: 'WaitForFirstConsumer' });
  t.equal(r.body.message, 'StorageClass.storage.orch.io "imm" is invalid: volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable');

  r = await put({ allowVolumeExpansion: true, mountOptions: ['ro'], allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }] });
  t.equal(r.status, 200, 'allowVolumeExpansion, mountOptions and allowedTopologies may change');
  t.equal(r.body.metadata.generation, 2);
  t.equal(r.body.allowVolumeExpansion, true);
});

t.test('list, get, delete', async (t) => {
  const srv = await startTestServer(t);
  for (const n of ['b', 'a', 'c']) await call(srv.url, 'POST', SC, sc(n));
  const list = await call(srv.url, 'GET', SC);
  t.equal(list.body.kind, 'StorageClassList');
  t.equal(list.body.apiVersion, 'storage.orch.io/v1');
  t.same(list.body.items.map((i: any) => i.metadata.name), ['a', 'b', 'c'], 'in name order');
  const del = await call(srv.url, 'DELETE', `${SC}/b`);
  t.equal(del.body.metadata.name, 'b');
  t.same((await call(srv.url, 'GET', SC)).body.items.map((i: any) => i.metadata.name), ['a', 'c']);
  const dc = await call(srv.url, 'DELETE', SC);
  t.same(dc.body.items.map((i: any) => i.metadata.name), ['a', 'c']);
  t.same((await call(srv.url, 'GET', SC)).body.items, []);
});
