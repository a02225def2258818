// Spec 000 §4.3 (the write set: dryRun and fieldValidation) and the matching rows of §7: a dry run
// persists nothing, invalid values are refused, unknown and duplicate fields are ignored, warned
// about or refused. The core rules are generated for every kind of the KINDS table; the exact
// messages (ground truth) are checked once, on StorageClass.
import { stringify as yamlStringify } from 'yaml';
import { defineCase, type Case, type CaseContext } from '../case.js';
import { upstream } from '../findings.js';
import type { ApiResponse } from '../../runner/client.js';
import { expectCode, expectEqual, expectObject, expectStatus, expectTrue, fail, show, SUCCESS, expectRefused, errorText } from '../verify.js';
import { collectionPath, createObject, itemPath, kindCommon, newObject, type ResourceKind, withChange } from './kinds.js';
import { RESOURCE_QUOTA } from './kinds-quota-events.js';
import { createStorageClass, postStorageClass, scItem, SC_PATH, storageClass } from './fixtures.js';
import { expectCollectionDeleted } from './spec-freedoms.js';

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const DRY_RUN = { dryRun: 'All' };

/** A label key the cases send twice (first "first", then "last"). */
const DUP_LABEL = 'conformance.orch.io/dup';
const DUP_PATH = `metadata.labels.${DUP_LABEL}`;
/** A field no kind has. */
const UNKNOWN = 'conformanceUnknownField';

/** The texts of the Warning headers of a response (`299 - "text"`, several joined with commas). */
export function warningTexts(res: ApiResponse): string[] {
  const raw = res.headers['warning'] ?? '';
  return [...raw.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
}

/** Go's %q for the simple paths these cases use. */
const q = (s: string): string => JSON.stringify(s);

/**
 * The JSON text of `obj` with the label DUP_LABEL sent twice (first "first", last "last"): a
 * duplicate that only the raw body shows.
 */
function withDuplicateLabel(obj: any): string {
  const o = { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [DUP_LABEL]: 'last' } } };
  const text = JSON.stringify(o);
  const at = text.indexOf('"labels":{');
  if (at < 0) throw new Error('no labels in the body');
  const cut = at + '"labels":{'.length;
  return `${text.slice(0, cut)}${JSON.stringify(DUP_LABEL)}:"first",${text.slice(cut)}`;
}

/** Where kind `k` gets its unknown field: inside spec when it has one, else at the top. */
function unknownPath(obj: any): string {
  return obj.spec && typeof obj.spec === 'object' && !Array.isArray(obj.spec) ? `spec.${UNKNOWN}` : UNKNOWN;
}

function addUnknown(obj: any, path: string): any {
  if (path.startsWith('spec.')) return { ...obj, spec: { ...obj.spec, [UNKNOWN]: 'dropped' } };
  return { ...obj, [UNKNOWN]: 'dropped' };
}

/** A valid new object of `k` with an unknown field and a duplicate label, as raw JSON text. */
function problemBody(ctx: CaseContext, k: ResourceKind, hint: string) {
  const base = newObject(ctx, k, {}, hint);
  const unknown = unknownPath(base);
  const text = withDuplicateLabel(addUnknown(base, unknown));
  ctx.track(itemPath(k, ctx.namespace, base.metadata.name));
  return { name: base.metadata.name as string, text, unknown, problems: [`duplicate field ${q(DUP_PATH)}`, `unknown field ${q(unknown)}`] };
}

const JSON_BODY = { 'content-type': 'application/json' };

/** The Status message names every field in `paths`. */
function expectNamesAll(message: unknown, paths: readonly string[], what: string): void {
  const missing = paths.filter((p) => typeof message !== 'string' || !message.includes(p));
  if (missing.length) fail(what, `a message naming ${paths.map(q).join(' and ')}`, show(message));
}

/**
 * Each problem is warned about (§4.3 Warn: "a warning ... for each dropped unknown field and each
 * duplicate"): some Warning names its field as the problem quotes it (`unknown field "spec.x"` must
 * name "spec.x"), in any order and wording. Other warnings are the server's own business (upstream
 * too warns about alpha and deprecated APIs) and are not looked at; one warning per problem, no field
 * warned twice, is upstream's shape (a SHOULD finding). Upstream's exact texts are checked by
 * api.write-params.field-validation.warning-header (SHOULD).
 */
export function expectWarnings(res: ApiResponse, problems: readonly string[], what: string): void {
  const texts = warningTexts(res);
  const fields = problems.map((p) => /"(?:[^"\\]|\\.)*"/.exec(p)?.[0] ?? p);
  const unnamed = fields.filter((f) => !texts.some((t) => t.includes(f)));
  if (unnamed.length) fail(what, `a warning naming each of ${fields.join(', ')} (e.g. ${show([...problems].sort())})`, show(texts));
  upstream(() => {
    const twice = fields.filter((f) => texts.filter((t) => t.includes(f)).length > 1);
    if (twice.length) fail(`${what}: one warning per problem (upstream's)`, `one warning naming each of ${fields.join(', ')}`, show(texts));
  });
}

/**
 * Nothing is warned about the fields that were dropped or kept silently (§4.3 Ignore: "silently
 * drop ... keep only the last duplicate"): no Warning names them. Warnings about anything else (an
 * alpha or deprecated API) are the server's own.
 */
export function expectNoFieldWarnings(res: ApiResponse, fields: readonly string[], what: string): void {
  const texts = warningTexts(res);
  const about = texts.filter((t) => fields.some((f) => t.includes(f)));
  if (about.length) fail(what, `no warning naming ${fields.map((f) => show(f)).join(' or ')}`, show(about));
}

function kindCase(k: ResourceKind, id: string, requirements: string[], level: 'MUST' | 'SHOULD', title: string) {
  return { ...kindCommon(k, 'write-params'), spec: { doc: '000' as const, section: '4.3' }, id: `api.${k.kind.toLowerCase()}.${id}`, title: `${k.kind}: ${title}`, requirements, level };
}


/** The write-parameter cases of one kind: dry runs of every write, and Strict and Warn on create. */
export function writeParamCasesFor(k: ResourceKind): Case[] {
  return [
    defineCase({
      ...kindCase(k, 'dry-run.create', ['000-4.3-dry-run-not-persisted', '000-4.3-dry-run-all'], 'MUST', 'create with dryRun=All returns the object and persists nothing'),
      upstreamShape: true,
      async run(ctx) {
        const body = newObject(ctx, k, {}, 'dry');
        const path = itemPath(k, ctx.namespace, body.metadata.name);
        ctx.track(path);
        const o = expectObject(await ctx.api.post(collectionPath(k, ctx.namespace), body, { query: DRY_RUN }), SUCCESS.create, k.kind, 'POST with dryRun=All');
        expectEqual(o.metadata?.name, body.metadata.name, 'name of the object the dry run returns');
        expectStatus(await ctx.api.get(path), { code: 404, reason: 'NotFound' }, 'read after the dry-run create');
      },
    }),
    defineCase({
      ...kindCase(k, 'dry-run.replace', ['000-4.3-dry-run-not-persisted', '000-4.3-dry-run-all'], 'MUST', 'replace (PUT) with dryRun=All returns the change and persists nothing'),
      async run(ctx) {
        const o = await createObject(ctx, k, {}, 'dry');
        const path = itemPath(k, ctx.namespace, o.metadata.name);
        // A controller of the target may write the object meanwhile (a quota's status): when the
        // resourceVersion moved without the change, the check is made again.
        for (let attempt = 1; ; attempt++) {
          const before = expectObject(await ctx.api.get(path), [200], k.kind, 'read before the dry run');
          const res = await ctx.api.put(path, withChange(k, before), { query: DRY_RUN });
          if (res.status === 409 && attempt < 3) continue;
          const put = expectObject(res, SUCCESS.replace, k.kind, 'PUT with a change and dryRun=All');
          expectTrue(k.change.changed(put), 'the dry-run PUT response shows the change', JSON.stringify(k.change.patch), put);
          const got = expectObject(await ctx.api.get(path), [200], k.kind, 'read back');
          expectTrue(!k.change.changed(got), 'the stored object does not show the change', 'the object as created', got);
          if (got.metadata?.resourceVersion !== before.metadata?.resourceVersion && attempt < 3) continue;
          expectEqual(got.metadata?.resourceVersion, before.metadata?.resourceVersion, 'resourceVersion of the stored object after the dry run');
          break;
        }
      },
    }),
    defineCase({
      ...kindCase(k, 'dry-run.patch', ['000-4.3-dry-run-not-persisted', '000-4.3-dry-run-all'], 'MUST', 'a merge patch with dryRun=All returns the change and persists nothing'),
      async run(ctx) {
        const o = await createObject(ctx, k, {}, 'dry');
        const path = itemPath(k, ctx.namespace, o.metadata.name);
        // A controller of the target may write the object meanwhile (a quota's status): when the
        // resourceVersion moved without the change, the check is made again.
        for (let attempt = 1; ; attempt++) {
          const before = expectObject(await ctx.api.get(path), [200], k.kind, 'read before the dry run');
          const res = await ctx.api.request('PATCH', path, { body: k.change.patch, headers: MERGE_PATCH, query: DRY_RUN });
          const patched = expectObject(res, SUCCESS.patch, k.kind, 'PATCH (merge) with dryRun=All');
          expectTrue(k.change.changed(patched), 'the dry-run PATCH response shows the change', JSON.stringify(k.change.patch), patched);
          const got = expectObject(await ctx.api.get(path), [200], k.kind, 'read back');
          expectTrue(!k.change.changed(got), 'the stored object does not show the change', 'the object as created', got);
          if (got.metadata?.resourceVersion !== before.metadata?.resourceVersion && attempt < 3) continue;
          expectEqual(got.metadata?.resourceVersion, before.metadata?.resourceVersion, 'resourceVersion of the stored object after the dry run');
          break;
        }
      },
    }),
    defineCase({
      ...kindCase(k, 'dry-run.delete', ['000-4.3-dry-run-not-persisted', '000-4.3-dry-run-all'], 'MUST', 'delete with dryRun=All succeeds and the object stays'),
      async run(ctx) {
        const o = await createObject(ctx, k, {}, 'dry');
        const path = itemPath(k, ctx.namespace, o.metadata.name);
        expectCode(await ctx.api.delete(path, { query: DRY_RUN }), [200, 202], 'DELETE with dryRun=All');
        const got = expectObject(await ctx.api.get(path), [200], k.kind, 'read after the dry-run delete');
        expectEqual(got.metadata?.uid, o.metadata.uid, 'uid of the object still there');
        expectEqual(got.metadata?.deletionTimestamp, undefined, 'metadata.deletionTimestamp after the dry-run delete');
      },
    }),
    defineCase({
      ...kindCase(k, 'field-validation.strict', ['000-4.3-field-validation-strict', '000-7-field-validation-strict'], 'MUST', 'create with fieldValidation=Strict and an unknown and a duplicate field is BadRequest naming both'),
      upstreamShape: true,
      async run(ctx) {
        const b = problemBody(ctx, k, 'strict');
        const res = await ctx.api.post(collectionPath(k, ctx.namespace), b.text, { headers: JSON_BODY, query: { fieldValidation: 'Strict' } });
        // §4.3 and §7: BadRequest (400) naming every such field; nothing is created (read back).
        await expectRefused(ctx.api, res, { code: 400, reason: 'BadRequest', spec: { code: 400, names: [b.unknown, DUP_PATH] } }, 'POST with fieldValidation=Strict, an unknown field and a duplicate label');
        expectCode(await ctx.api.get(itemPath(k, ctx.namespace, b.name)), 404, 'read after the refused create');
      },
    }),
    defineCase({
      ...kindCase(k, 'field-validation.warn', ['000-4.3-field-validation-warn', '000-7-field-validation-warn'], 'MUST', 'create with fieldValidation=Warn succeeds with a warning per unknown and duplicate field, the last duplicate kept'),
      async run(ctx) {
        const b = problemBody(ctx, k, 'warn');
        const res = await ctx.api.post(collectionPath(k, ctx.namespace), b.text, { headers: JSON_BODY, query: { fieldValidation: 'Warn' } });
        const o = expectObject(res, SUCCESS.create, k.kind, 'POST with fieldValidation=Warn, an unknown field and a duplicate label');
        expectWarnings(res, b.problems, 'Warning headers of the response');
        expectEqual(o.metadata?.labels?.[DUP_LABEL], 'last', `metadata.labels[${DUP_LABEL}] (sent "first", then "last")`);
      },
    }),
  ];
}

const scCommon = { suite: 'write-params', spec: { doc: '000', section: '4.3' }, impact: 'cluster-scoped', needs: ['api'] } as const;

/** A StorageClass body (raw JSON) with `unknownFirst` before metadata and a duplicate label in it. */
function scProblemText(ctx: CaseContext, hint: string) {
  const body = storageClass(ctx, {}, hint);
  ctx.track(scItem(body.metadata.name));
  const text = withDuplicateLabel({ [UNKNOWN]: 'dropped', ...body });
  return { name: body.metadata.name as string, text };
}

/** Every write-set parameter at once on create, replace and patch. */
const WRITE_SET = { pretty: 'true', dryRun: 'All', fieldManager: 'conformance-suite', fieldValidation: 'Strict' };

export const writeParamCases: Case[] = [
  defineCase({
    ...scCommon,
    id: 'api.write-params.write-set',
    title: 'create, replace and patch accept every write-set parameter (pretty, dryRun, fieldManager, fieldValidation)',
    requirements: ['000-4.3-write-set'],
    level: 'MUST',
    async run(ctx) {
      const body = storageClass(ctx, {}, 'ws');
      ctx.track(scItem(body.metadata.name));
      expectObject(await ctx.api.post(SC_PATH, body, { query: WRITE_SET }), SUCCESS.create, 'StorageClass', `POST with ${new URLSearchParams(WRITE_SET)}`);
      const o = await createStorageClass(ctx, {}, 'ws');
      expectObject(await ctx.api.put(scItem(o.metadata.name), o, { query: WRITE_SET }), SUCCESS.replace, 'StorageClass', `PUT with ${new URLSearchParams(WRITE_SET)}`);
      expectObject(
        await ctx.api.request('PATCH', scItem(o.metadata.name), { body: { allowVolumeExpansion: true }, headers: MERGE_PATCH, query: WRITE_SET }),
        SUCCESS.patch, 'StorageClass', `PATCH with ${new URLSearchParams(WRITE_SET)}`,
      );
    },
  }),

  // ---- dryRun
  defineCase({
    ...scCommon,
    id: 'api.write-params.dry-run.invalid',
    upstreamShape: true,
    title: 'an unrecognized dryRun value is an error and nothing is processed (create, delete)',
    requirements: ['000-4.3-dry-run-invalid', '000-7-dry-run-invalid'],
    level: 'MUST',
    async run(ctx) {
      const created = await createStorageClass(ctx, {}, 'dri');
      const fresh = storageClass(ctx, {}, 'dri');
      ctx.track(scItem(fresh.metadata.name));
      const post = await ctx.api.post(SC_PATH, fresh, { query: { dryRun: 'Everything' } });
      expectStatus(post, { code: 422, reason: 'Invalid' }, 'POST with dryRun=Everything is an error');
      expectStatus(await ctx.api.get(scItem(fresh.metadata.name)), { code: 404, reason: 'NotFound' }, 'read after the refused create');
      const del = await ctx.api.delete(scItem(created.metadata.name), { query: { dryRun: 'None' } });
      expectStatus(del, { code: 422, reason: 'Invalid' }, 'DELETE with dryRun=None is an error');
      expectObject(await ctx.api.get(scItem(created.metadata.name)), [200], 'StorageClass', 'read after the refused delete');
    },
  }),
  defineCase({
    ...scCommon,
    spec: { doc: '000', section: '7' },
    id: 'api.write-params.dry-run.invalid-status',
    title: 'a dryRun value other than All is 422 Invalid: `dryRun: Unsupported value: ...: supported values: "All"`',
    requirements: ['000-7-dry-run-unsupported-value'],
    level: 'SHOULD',
    async run(ctx) {
      const body = storageClass(ctx, {}, 'drs');
      ctx.track(scItem(body.metadata.name));
      const s = await expectRefused(ctx.api, await ctx.api.post(SC_PATH, body, { query: { dryRun: 'Bogus' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'dryRun', reason: 'FieldValueNotSupported' }] }, 'POST with dryRun=Bogus');
      const m = typeof s.message === 'string' ? s.message : '';
      expectTrue(
        m.startsWith('CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: ') && m.includes('Bogus') && m.endsWith(': supported values: "All"'),
        'message of the Status', 'CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: <the value>: supported values: "All"', m,
      );
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.dry-run.full-validation',
    title: 'a dry-run create is validated and defaulted like a real one',
    requirements: ['000-4.3-dry-run-full-validation'],
    level: 'SHOULD',
    async run(ctx) {
      const bad = storageClass(ctx, { reclaimPolicy: 'Shred' }, 'drv');
      ctx.track(scItem(bad.metadata.name));
      await expectRefused(ctx.api, await ctx.api.post(SC_PATH, bad, { query: DRY_RUN }), { code: 422, reason: 'Invalid', causes: [{ field: 'reclaimPolicy', reason: 'FieldValueNotSupported' }] }, 'dry-run POST with reclaimPolicy "Shred"');
      const good = storageClass(ctx, {}, 'drv');
      ctx.track(scItem(good.metadata.name));
      const o = expectObject(await ctx.api.post(SC_PATH, good, { query: DRY_RUN }), SUCCESS.create, 'StorageClass', 'dry-run POST of a valid StorageClass');
      expectEqual({ reclaimPolicy: o.reclaimPolicy, volumeBindingMode: o.volumeBindingMode }, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }, 'defaults in the dry-run result');
      expectTrue(typeof o.metadata?.uid === 'string' && o.metadata.uid !== '' && typeof o.metadata?.creationTimestamp === 'string', 'server-set metadata in the dry-run result', 'uid and creationTimestamp set', o.metadata);
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.dry-run.no-watch-event',
    title: 'dry-run create, patch and delete emit no watch event',
    requirements: ['000-4.3-dry-run-no-watch-event'],
    level: 'SHOULD',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'drw');
      const w = await ctx.api.watch(SC_PATH, { resourceVersion: o.metadata.resourceVersion });
      expectEqual(w.status, 200, 'HTTP status of the watch');
      const ghost = storageClass(ctx, {}, 'drw');
      ctx.track(scItem(ghost.metadata.name));
      expectObject(await ctx.api.post(SC_PATH, ghost, { query: DRY_RUN }), SUCCESS.create, 'StorageClass', 'dry-run create');
      expectObject(await ctx.api.request('PATCH', scItem(o.metadata.name), { body: { allowVolumeExpansion: true }, headers: MERGE_PATCH, query: DRY_RUN }), SUCCESS.patch, 'StorageClass', 'dry-run patch');
      expectCode(await ctx.api.delete(scItem(o.metadata.name), { query: DRY_RUN }), [200, 202], 'dry-run delete');
      // A real write after the dry runs: the first event about any of these names must be it.
      const marker = await createStorageClass(ctx, {}, 'drw');
      const names = new Set([o.metadata.name, ghost.metadata.name, marker.metadata.name]);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const ev = await w.next(Math.max(1, deadline - Date.now()));
        if (!ev) {
          w.close();
          fail('the real create after the dry runs arrives on the watch', `ADDED ${marker.metadata.name}`, 'no event within 10s');
        }
        if (!names.has(ev.object?.metadata?.name)) continue;
        w.close();
        expectEqual({ type: ev.type, name: ev.object?.metadata?.name }, { type: 'ADDED', name: marker.metadata.name }, 'the first watch event about the objects after the dry runs');
        return;
      }
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.dry-run.delete-collection',
    upstreamShape: true,
    title: 'delete collection with dryRun=All (in a namespace of the case\'s own) leaves every object',
    requirements: ['000-4.3-dry-run-not-persisted', '000-4.3-dry-run-all'],
    level: 'MUST',
    async run(ctx) {
      const ns = ctx.uniqueName('drc');
      ctx.track(`/api/v1/namespaces/${ns}`);
      expectObject(await ctx.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...ctx.labels } } }), SUCCESS.create, 'Namespace', 'creating a namespace of the case\'s own');
      const own = { ...ctx, namespace: ns };
      const a = await createObject(own, RESOURCE_QUOTA, {}, 'a');
      const b = await createObject(own, RESOURCE_QUOTA, {}, 'b');
      expectCollectionDeleted(await ctx.api.delete(collectionPath(RESOURCE_QUOTA, ns), { query: DRY_RUN }), `DELETE ${collectionPath(RESOURCE_QUOTA, ns)}?dryRun=All`);
      for (const o of [a, b]) expectObject(await ctx.api.get(itemPath(RESOURCE_QUOTA, ns, o.metadata.name)), [200], 'ResourceQuota', `read ${o.metadata.name} after the dry-run delete collection`);
    },
  }),
  defineCase({
    ...scCommon,
    spec: { doc: '000', section: '4.2' },
    id: 'api.write-params.dry-run.delete-options-body',
    title: 'a delete whose DeleteOptions body says dryRun: ["All"] (as kubectl --dry-run=server sends it) leaves the object',
    // DeleteOptions in the body is upstream's (spec §4.2: "DeleteOptions fields: not shown"); dryRun as
    // a query parameter is the spec's, checked by the MUST dry-run.delete cases.
    requirements: ['000-4.2-delete-options'],
    level: 'SHOULD',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'drb');
      const res = await ctx.api.request('DELETE', scItem(o.metadata.name), { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
      expectCode(res, [200, 202], 'DELETE with a DeleteOptions body {dryRun: ["All"]}');
      expectObject(await ctx.api.get(scItem(o.metadata.name)), [200], 'StorageClass', 'read after the dry-run delete');
    },
  }),

  // ---- fieldValidation
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.default-warn',
    title: 'without fieldValidation, unknown fields are dropped with a warning (Warn is the default)',
    requirements: ['000-4.3-field-validation-default-warn', '000-9-field-validation-default-change'],
    level: 'MUST',
    async run(ctx) {
      const body = storageClass(ctx, { [UNKNOWN]: 'dropped' }, 'fvd');
      const res = await postStorageClass(ctx, body);
      const o = expectObject(res, SUCCESS.create, 'StorageClass', `POST with the unknown field ${UNKNOWN} and no fieldValidation`);
      expectWarnings(res, [`unknown field ${q(UNKNOWN)}`], 'Warning headers of the response');
      expectEqual(o[UNKNOWN], undefined, 'the unknown field in the created object');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.ignore',
    title: 'fieldValidation=Ignore drops unknown fields and keeps the last duplicate, silently',
    requirements: ['000-4.3-field-validation-ignore'],
    level: 'MUST',
    async run(ctx) {
      const b = scProblemText(ctx, 'fvi');
      const res = await ctx.api.post(SC_PATH, b.text, { headers: JSON_BODY, query: { fieldValidation: 'Ignore' } });
      const o = expectObject(res, SUCCESS.create, 'StorageClass', 'POST with fieldValidation=Ignore, an unknown field and a duplicate label');
      expectNoFieldWarnings(res, [UNKNOWN, DUP_LABEL], 'Warning headers of the response');
      expectEqual(o[UNKNOWN], undefined, 'the unknown field in the created object');
      expectEqual(o.metadata?.labels?.[DUP_LABEL], 'last', `metadata.labels[${DUP_LABEL}] (sent "first", then "last")`);
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.strict.replace',
    upstreamShape: true,
    title: 'replace (PUT) with fieldValidation=Strict and unknown or duplicate fields is BadRequest naming them; nothing changes',
    requirements: ['000-4.3-field-validation-strict', '000-7-field-validation-strict'],
    level: 'MUST',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'fsr');
      const text = withDuplicateLabel({ ...o, allowVolumeExpansion: true, [UNKNOWN]: 'dropped' });
      expectStatus(await ctx.api.put(scItem(o.metadata.name), text, { headers: JSON_BODY, query: { fieldValidation: 'Strict' } }), { code: 400, reason: 'BadRequest', spec: { code: 400, names: [UNKNOWN, DUP_PATH] } }, 'PUT with fieldValidation=Strict, an unknown field and a duplicate label');
      const got = expectObject(await ctx.api.get(scItem(o.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.metadata?.resourceVersion, o.metadata.resourceVersion, 'resourceVersion after the refused PUT');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.strict.patch',
    upstreamShape: true,
    title: 'a patch with fieldValidation=Strict and unknown or duplicate fields is refused naming them; nothing changes',
    requirements: ['000-4.3-field-validation-strict', '000-7-field-validation-strict'],
    level: 'MUST',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'fsp');
      const patch = `{"allowVolumeExpansion":true,"allowVolumeExpansion":false,${q(UNKNOWN)}:"dropped"}`;
      const res = await ctx.api.request('PATCH', scItem(o.metadata.name), { body: patch, headers: MERGE_PATCH, query: { fieldValidation: 'Strict' } });
      // The spec says BadRequest; upstream answers a patch with 422 Invalid (ground truth): either is a refusal.
      if (res.status !== 400) await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid' }, 'PATCH with fieldValidation=Strict, an unknown field and a duplicate field');
      else expectStatus(res, { code: 400, reason: 'BadRequest' }, 'PATCH with fieldValidation=Strict, an unknown field and a duplicate field');
      expectNamesAll(errorText(res), [UNKNOWN, 'allowVolumeExpansion'], 'the error names every unknown and duplicate field');
      const got = expectObject(await ctx.api.get(scItem(o.metadata.name)), [200], 'StorageClass', 'read back');
      expectEqual(got.metadata?.resourceVersion, o.metadata.resourceVersion, 'resourceVersion after the refused PATCH');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.warn.replace',
    title: 'replace (PUT) with fieldValidation=Warn succeeds with a warning per unknown and duplicate field',
    requirements: ['000-4.3-field-validation-warn', '000-7-field-validation-warn'],
    level: 'MUST',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'fwr');
      const text = withDuplicateLabel({ ...o, [UNKNOWN]: 'dropped' });
      const res = await ctx.api.put(scItem(o.metadata.name), text, { headers: JSON_BODY, query: { fieldValidation: 'Warn' } });
      const put = expectObject(res, SUCCESS.replace, 'StorageClass', 'PUT with fieldValidation=Warn, an unknown field and a duplicate label');
      expectWarnings(res, [`unknown field ${q(UNKNOWN)}`, `duplicate field ${q(DUP_PATH)}`], 'Warning headers of the response');
      expectEqual(put.metadata?.labels?.[DUP_LABEL], 'last', `metadata.labels[${DUP_LABEL}] (sent "first", then "last")`);
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.warn.patch',
    title: 'a merge patch with fieldValidation=Warn succeeds with a warning per unknown and duplicate field, the last duplicate kept',
    requirements: ['000-4.3-field-validation-warn', '000-7-field-validation-warn'],
    level: 'MUST',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'fwp');
      const patch = `{"allowVolumeExpansion":false,"allowVolumeExpansion":true,${q(UNKNOWN)}:"dropped"}`;
      const res = await ctx.api.request('PATCH', scItem(o.metadata.name), { body: patch, headers: MERGE_PATCH, query: { fieldValidation: 'Warn' } });
      const patched = expectObject(res, SUCCESS.patch, 'StorageClass', 'PATCH with fieldValidation=Warn, an unknown field and a duplicate field');
      expectWarnings(res, [`duplicate field ${q('allowVolumeExpansion')}`, `unknown field ${q(UNKNOWN)}`], 'Warning headers of the response');
      expectEqual(patched.allowVolumeExpansion, true, 'allowVolumeExpansion (sent false, then true)');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.values',
    title: 'a fieldValidation value other than Ignore, Warn or Strict is 422 Unsupported value',
    requirements: ['000-4.3-field-validation-values'],
    level: 'SHOULD',
    async run(ctx) {
      const body = storageClass(ctx, {}, 'fvv');
      ctx.track(scItem(body.metadata.name));
      const s = await expectRefused(ctx.api, await ctx.api.post(SC_PATH, body, { query: { fieldValidation: 'Loose' } }), { code: 422, reason: 'Invalid', causes: [{ field: 'fieldValidation', reason: 'FieldValueNotSupported' }] }, 'POST with fieldValidation=Loose');
      expectTrue(typeof s.message === 'string' && s.message.startsWith('CreateOptions.meta.orch.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: '), 'message of the Status', 'CreateOptions.meta.orch.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: ...', s.message);
      expectStatus(await ctx.api.get(scItem(body.metadata.name)), { code: 404, reason: 'NotFound' }, 'read after the refused create');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.warning-header',
    title: 'Warn sends one `299 - "..."` Warning header per problem, with upstream paths (list items as [i])',
    requirements: ['000-4.3-field-validation-warning-header'],
    level: 'SHOULD',
    async run(ctx) {
      const body = storageClass(ctx, { allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['a'], [UNKNOWN]: 1 }] }] }, 'fwh');
      ctx.track(scItem(body.metadata.name));
      const text = withDuplicateLabel(body);
      const res = await ctx.api.post(SC_PATH, text, { headers: JSON_BODY });
      expectObject(res, SUCCESS.create, 'StorageClass', 'POST with a duplicate label and an unknown field in a list item');
      const nested = `allowedTopologies[0].matchLabelExpressions[0].${UNKNOWN}`;
      const want = [`299 - "duplicate field \\"${DUP_PATH}\\""`, `299 - "unknown field \\"${nested}\\""`];
      const got = (res.headers['warning'] ?? '').split(/, (?=\d{3} )/).filter((x) => x);
      expectEqual(got, want, 'Warning header values, in document order');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.raw-duplicates',
    title: 'duplicate keys are found in the raw JSON body at any depth (Strict names them)',
    requirements: ['000-4.3-field-validation-raw-duplicates'],
    level: 'SHOULD',
    async run(ctx) {
      const body = storageClass(ctx, { allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.orch.io/zone', values: ['a'] }] }] }, 'fwd');
      ctx.track(scItem(body.metadata.name));
      const text = JSON.stringify(body)
        .replace('"provisioner":', '"provisioner":"first.orch.io/x","provisioner":')
        .replace('{"key":', '{"key":"first.orch.io/zone","key":');
      const s = expectStatus(await ctx.api.post(SC_PATH, text, { headers: JSON_BODY, query: { fieldValidation: 'Strict' } }), { code: 400, reason: 'BadRequest' }, 'POST with fieldValidation=Strict and duplicate keys (and nothing else wrong)');
      expectNamesAll(s.message, ['duplicate field "provisioner"', 'duplicate field "allowedTopologies[0].matchLabelExpressions[0].key"'], 'the error names both duplicates with their paths');
    },
  }),
  defineCase({
    ...scCommon,
    id: 'api.write-params.field-validation.yaml-duplicates',
    title: 'duplicate keys in a YAML body are found too: Warn keeps the last and warns',
    // YAML bodies are upstream's (the spec names no media types); Warn itself is checked on JSON by MUST cases.
    requirements: ['000-4.3-field-validation-raw-duplicates'],
    level: 'SHOULD',
    async run(ctx) {
      const body = storageClass(ctx, {}, 'fwy');
      ctx.track(scItem(body.metadata.name));
      const yaml = yamlStringify(body).replace(/^provisioner: .*$/m, 'provisioner: first.orch.io/x\nprovisioner: last.orch.io/x');
      const res = await ctx.api.post(SC_PATH, yaml, { headers: { 'content-type': 'application/yaml' }, query: { fieldValidation: 'Warn' } });
      const o = expectObject(res, SUCCESS.create, 'StorageClass', 'POST of YAML with provisioner twice');
      expectEqual(o.provisioner, 'last.orch.io/x', 'provisioner (sent first.orch.io/x, then last.orch.io/x)');
      expectWarnings(res, ['duplicate field "provisioner"'], 'Warning headers of the response');
    },
  }),
  defineCase({
    ...scCommon,
    spec: { doc: '000', section: '7' },
    id: 'api.write-params.field-validation.strict-status.create',
    title: 'Strict on create is 400 `<Kind> in version "v1" cannot be handled as a <Kind>: strict decoding error: ...` listing every problem in order',
    requirements: ['000-7-field-validation-strict-status'],
    level: 'SHOULD',
    async run(ctx) {
      const b = scProblemText(ctx, 'fss');
      const s = expectStatus(await ctx.api.post(SC_PATH, b.text, { headers: JSON_BODY, query: { fieldValidation: 'Strict' } }), { code: 400, reason: 'BadRequest' }, 'POST with fieldValidation=Strict');
      expectEqual(s.message, `StorageClass in version "v1" cannot be handled as a StorageClass: strict decoding error: unknown field ${q(UNKNOWN)}, duplicate field ${q(DUP_PATH)}`, 'message of the Status');
    },
  }),
  defineCase({
    ...scCommon,
    spec: { doc: '000', section: '7' },
    id: 'api.write-params.field-validation.strict-status.patch',
    title: 'Strict on a patch is 422 Invalid on field `patch`: `... strict decoding error: ...` listing every problem',
    requirements: ['000-7-field-validation-strict-status'],
    level: 'SHOULD',
    async run(ctx) {
      const o = await createStorageClass(ctx, {}, 'fsq');
      const patch = `{"allowVolumeExpansion":true,"allowVolumeExpansion":false,${q(UNKNOWN)}:"dropped"}`;
      const res = await ctx.api.request('PATCH', scItem(o.metadata.name), { body: patch, headers: MERGE_PATCH, query: { fieldValidation: 'Strict' } });
      const s = await expectRefused(ctx.api, res, { code: 422, reason: 'Invalid', causes: [{ field: 'patch', reason: 'FieldValueInvalid' }] }, 'PATCH with fieldValidation=Strict');
      const tail = `strict decoding error: duplicate field "allowVolumeExpansion", unknown field ${q(UNKNOWN)}`;
      expectTrue(typeof s.message === 'string' && s.message.endsWith(tail), 'message of the Status', `... ${tail}`, s.message);
    },
  }),
];
