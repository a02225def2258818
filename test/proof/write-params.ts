// Breakages for the write-parameter cases (suites/000-control-plane/4.3-write-params.ts): targets
// that ignore dryRun, skip field validation, or word its answers differently from upstream.
import YAML from 'yaml';
import { KINDS } from '../../suites/000-control-plane/kinds.js';
import { answer, editJson, statusBody, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';

const params = (r: ProxiedRequest): URLSearchParams => new URL(r.path, 'http://target').searchParams;

/** Rewrites the query string of a request in place. */
function editQuery(r: ProxiedRequest, edit: (q: URLSearchParams) => void): void {
  const u = new URL(r.path, 'http://target');
  edit(u.searchParams);
  const qs = u.searchParams.toString();
  r.path = u.pathname + (qs ? `?${qs}` : '');
}

/** A target that does not know the parameter `name` on `method` requests: it ignores it. */
const ignoring = (method: string, name: string): Breakage => ({
  request: (r) => { if (r.method === method) editQuery(r, (q) => q.delete(name)); },
});

/** A target that sends no Warning headers on `method` responses. */
const silent = (method: string): Breakage => ({
  response: (r, res) => { if (r.method === method) delete res.headers['warning']; },
});

const isStrict = (r: ProxiedRequest) => params(r).get('fieldValidation') === 'Strict';

/** Turns an error response into another code and reason, as a server worded differently would. */
function recode(res: ProxiedResponse, code: number, reason: string): void {
  res.status = code;
  editJson(res, (o) => { o.code = code; o.reason = reason; });
}

function perKind(): Record<string, Breakage> {
  const out: Record<string, Breakage> = {};
  for (const k of KINDS) {
    const id = (s: string) => `api.${k.kind.toLowerCase()}.${s}`;
    // Persists dry runs: the parameter is dropped on its way in.
    out[id('dry-run.create')] = ignoring('POST', 'dryRun');
    out[id('dry-run.replace')] = ignoring('PUT', 'dryRun');
    out[id('dry-run.patch')] = ignoring('PATCH', 'dryRun');
    out[id('dry-run.delete')] = ignoring('DELETE', 'dryRun');
    // No strict decoding: Strict is treated as the default.
    out[id('field-validation.strict')] = ignoring('POST', 'fieldValidation');
    // Drops unknown fields without a word.
    out[id('field-validation.warn')] = silent('POST');
  }
  return out;
}

export const writeParamBreakages: Record<string, Breakage> = {
  ...perKind(),

  // Refuses fieldManager on replace.
  'api.write-params.write-set': {
    request: (r) => (r.method === 'PUT' && params(r).has('fieldManager') ? answer(400, statusBody(400, 'BadRequest', 'unknown query parameter "fieldManager"')) : undefined),
  },

  // dryRun
  // Ignores dryRun values it does not know, and goes ahead.
  'api.write-params.dry-run.invalid': {
    request: (r) => { const v = params(r).get('dryRun'); if (v !== null && v !== 'All') editQuery(r, (q) => q.delete('dryRun')); },
  },
  // Refuses a bad dryRun with 400 instead of 422 Invalid.
  'api.write-params.dry-run.invalid-status': {
    request: (r) => (params(r).get('dryRun') === 'Bogus' ? answer(400, statusBody(400, 'BadRequest', 'invalid dryRun')) : undefined),
  },
  // Answers a dry-run create by echoing the body: no validation, no defaults.
  'api.write-params.dry-run.full-validation': {
    request: (r) => (r.method === 'POST' && params(r).get('dryRun') === 'All' ? answer(201, r.body) : undefined),
  },
  // A dry-run create that is written after all, so watchers see it.
  'api.write-params.dry-run.no-watch-event': ignoring('POST', 'dryRun'),
  'api.write-params.dry-run.delete-collection': ignoring('DELETE', 'dryRun'),
  // Reads DeleteOptions from the query only: the body's dryRun is lost.
  'api.write-params.dry-run.delete-options-body': {
    request: (r) => { if (r.method === 'DELETE') r.body = ''; },
  },

  // fieldValidation
  // Ignore is the default (as before v1.23).
  'api.write-params.field-validation.default-warn': {
    request: (r) => { if (r.method === 'POST' && !params(r).has('fieldValidation')) editQuery(r, (q) => q.set('fieldValidation', 'Ignore')); },
  },
  // Warns even when asked to ignore.
  'api.write-params.field-validation.ignore': {
    request: (r) => { if (params(r).get('fieldValidation') === 'Ignore') editQuery(r, (q) => q.set('fieldValidation', 'Warn')); },
  },
  'api.write-params.field-validation.strict.replace': ignoring('PUT', 'fieldValidation'),
  'api.write-params.field-validation.strict.patch': ignoring('PATCH', 'fieldValidation'),
  'api.write-params.field-validation.warn.replace': silent('PUT'),
  'api.write-params.field-validation.warn.patch': silent('PATCH'),
  // Ignores fieldValidation values it does not know.
  'api.write-params.field-validation.values': {
    request: (r) => { const v = params(r).get('fieldValidation'); if (v && !['Ignore', 'Warn', 'Strict'].includes(v)) editQuery(r, (q) => q.delete('fieldValidation')); },
  },
  // One Warning for all problems, unquoted.
  'api.write-params.field-validation.warning-header': {
    response: (r, res) => {
      const w = res.headers['warning'];
      if (r.method !== 'POST' || !w) return;
      const texts = [...w.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));
      res.headers['warning'] = `299 - ${texts.join('; ')}`;
    },
  },
  // Decodes the body with a plain JSON parse: duplicates vanish before anyone looks.
  'api.write-params.field-validation.raw-duplicates': {
    request: (r) => { if (r.method === 'POST') editJson(r, (o) => o); },
  },
  // The same for YAML: the last key wins silently.
  'api.write-params.field-validation.yaml-duplicates': {
    request: (r) => { if (r.method === 'POST' && (r.headers['content-type'] ?? '').includes('yaml')) r.body = YAML.stringify(YAML.parse(r.body, { uniqueKeys: false })); },
  },
  // Strict failures as 422 on create, and as 400 on patch.
  'api.write-params.field-validation.strict-status.create': {
    response: (r, res) => { if (r.method === 'POST' && isStrict(r) && res.status === 400) recode(res, 422, 'Invalid'); },
  },
  'api.write-params.field-validation.strict-status.patch': {
    response: (r, res) => { if (r.method === 'PATCH' && isStrict(r) && res.status === 422) recode(res, 400, 'BadRequest'); },
  },
};
