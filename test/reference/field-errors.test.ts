import t from 'tap';
import { invalid } from '../../reference/apiserver/errors.js';
import {
  aggregate,
  errorBody,
  fieldErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isUUID,
  isValidLabelValue,
  nameIsDNSSubdomain,
  path,
  validateAnnotations,
} from '../../reference/apiserver/field-errors.js';
import { normalizeObject, t as types } from '../../reference/apiserver/schema.js';

t.test('paths', async (t) => {
  const p = path('allowedTopologies').index(0).child('matchLabelExpressions').index(1).child('values');
  t.equal(p.toString(), 'allowedTopologies[0].matchLabelExpressions[1].values');
  t.equal(path('metadata').child('labels').key('app').toString(), 'metadata.labels[app]');
});

t.test('error bodies, as upstream prints them', async (t) => {
  const bodies = [
    [fieldErrors.required('f'), 'Required value'],
    [fieldErrors.required('f', 'why'), 'Required value: why'],
    [fieldErrors.invalid('f', 's', 'd'), 'Invalid value: "s": d'],
    [fieldErrors.invalid('f', 3, 'd'), 'Invalid value: 3: d'],
    [fieldErrors.invalid('f', true, 'd'), 'Invalid value: true: d'],
    [fieldErrors.invalid('f', null, 'd'), 'Invalid value: null: d'],
    [fieldErrors.invalid('f', 'quote"d', 'd'), 'Invalid value: "quote\\"d": d'],
    [fieldErrors.notSupported('f', 'x', ['a', 'b']), 'Unsupported value: "x": supported values: "a", "b"'],
    [fieldErrors.forbidden('f', 'not allowed on this type'), 'Forbidden: not allowed on this type'],
    [fieldErrors.tooLong('f', 'x', 10), 'Too long: may not be more than 10 bytes'],
    [fieldErrors.tooLong('f', 'x', 1), 'Too long: may not be more than 1 byte'],
    [fieldErrors.tooMany('f', 7, 5), 'Too many: 7: must have at most 5 items'],
    [fieldErrors.tooMany('f', -1, 5), 'Too many: must have at most 5 items'],
    [fieldErrors.duplicate('f', 'v'), 'Duplicate value: "v"'],
    [fieldErrors.immutable('f', 'v'), 'Invalid value: "v": field is immutable'],
    [fieldErrors.typeInvalid('f', 'string', 'must be of type boolean'), 'Invalid value: "string": must be of type boolean'],
  ] as const;
  for (const [e, body] of bodies) t.equal(errorBody(e), body);
  t.equal(aggregate([fieldErrors.required('a')]), 'a: Required value');
  t.equal(aggregate([fieldErrors.required('a'), fieldErrors.required('b'), fieldErrors.required('a')]), '[a: Required value, b: Required value]', 'duplicates dropped');
  const st = invalid({ group: 'storage.orch.io', kind: 'StorageClass' }, 'x', [fieldErrors.required('provisioner')]).status;
  t.same(st, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'StorageClass.storage.orch.io "x" is invalid: provisioner: Required value',
    reason: 'Invalid',
    details: { name: 'x', group: 'storage.orch.io', kind: 'StorageClass', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'provisioner' }] },
    code: 422,
  });
  t.equal(invalid({ group: '', kind: 'Namespace' }, 'n', [fieldErrors.required('a')]).status.message, 'Namespace "n" is invalid: a: Required value');
});

t.test('name validators', async (t) => {
  t.same(isDNS1123Subdomain('a.b-c'), []);
  t.same(isDNS1123Subdomain('x'.repeat(253)), []);
  t.same(isDNS1123Subdomain('x'.repeat(254)), ['must be no more than 253 characters']);
  t.same(isDNS1123Subdomain('A'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  t.same(isDNS1123Label('a.b'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  t.same(isQualifiedName('example.com/My_Name.1'), []);
  t.same(isQualifiedName('/x'), ['prefix part must be non-empty']);
  t.same(isQualifiedName('x/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  t.match(isQualifiedName('a/b/c')[0], /^a qualified name must consist of/);
  t.same(isQualifiedName('x'.repeat(64)), ['name part must be no more than 63 characters']);
  t.same(isQualifiedName('UPPER.case'), []);
  t.same(isValidLabelValue(''), []);
  t.equal(isValidLabelValue('-x').length, 1);
  t.same(nameIsDNSSubdomain('gen-', true), [], 'a generateName may end with a dash');
  t.equal(nameIsDNSSubdomain('gen-', false).length, 1);
  t.ok(isUUID('0f8fad5b-d9cb-469f-a165-70867728950e'));
  t.notOk(isUUID('0F8FAD5B-D9CB-469F-A165-70867728950E'));
  t.same(validateAnnotations({ 'Example.com/Key': 'v' }, 'metadata.annotations'), [], 'annotation keys are case-insensitive');
});

t.test('schema walk: drops unknown and null fields, reports wrong types at their paths', async (t) => {
  const r = normalizeObject(
    { a: 'x', b: null, extra: 1, nested: { n: '1', m: [1, null, 'z'], deep: { k: [] } } },
    {
      a: types.string(),
      b: types.string(),
      nested: types.object({ n: types.integer(), m: types.array(types.string()), deep: types.map(types.string()) }),
    },
  );
  t.same(r.value, { a: 'x', nested: { m: [undefined, '', 'z'], deep: { k: undefined } } });
  t.same(r.unknown, ['extra']);
  t.same(
    r.errors.map((e) => `${e.field} ${errorBody(e)}`),
    [
      'nested.n Invalid value: "string": must be of type integer',
      'nested.m[0] Invalid value: "number": must be of type string',
      'nested.deep[k] Invalid value: "array": must be of type string',
    ],
  );
});
