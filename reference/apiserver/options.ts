// Query parameters of list and watch (upstream metainternalversion.ListOptions and its validation).
// Selectors are parsed by selectors.ts, continue tokens by continue-token.ts.
import { badRequest, invalidOptions } from './errors.js';
import { fieldErrors, type FieldError } from './field-errors.js';

export interface ListQuery {
  readonly watch: boolean;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  readonly timeoutSeconds?: number;
  /** Page size of a list; absent or 0: everything. */
  readonly limit?: number;
  /** The continue token of a list. */
  readonly continue?: string;
  readonly allowWatchBookmarks?: boolean;
  /** As given: undefined leaves the default to the watch (spec §4.3). */
  readonly sendInitialEvents?: boolean;
}

/** Go's strconv.ParseBool. */
export function parseBool(v: string): boolean | undefined {
  switch (v) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const b = parseBool(v);
  if (b === undefined) throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
  return b;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return n;
}

/** `watchPath` is the `/watch/...` URL form, which implies watch=true. */
export function parseListQuery(q: URLSearchParams, watchPath: boolean): ListQuery {
  const watch = watchPath || (boolParam(q, 'watch') ?? false);
  const resourceVersion = q.get('resourceVersion') ?? undefined;
  const match = q.get('resourceVersionMatch') || undefined;
  const sendInitialEvents = boolParam(q, 'sendInitialEvents');
  const cont = q.get('continue') || undefined;
  const timeoutSeconds = intParam(q, 'timeoutSeconds');
  const limit = intParam(q, 'limit');
  const allowWatchBookmarks = boolParam(q, 'allowWatchBookmarks');

  const errs: FieldError[] = [];
  const at = 'resourceVersionMatch';
  if (watch) {
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(fieldErrors.forbidden(at, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (sendInitialEvents === undefined) {
        errs.push(fieldErrors.forbidden(at, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported(at, match, ['NotOlderThan']));
      if (cont) errs.push(fieldErrors.forbidden(at, 'resourceVersionMatch is forbidden when continue is provided'));
    }
    // Spec §4.3: continue and limit are not supported with watch=true; refused rather than ignored.
    if (cont) errs.push(fieldErrors.forbidden('continue', 'continue is not supported when watch is true'));
    if (limit !== undefined && limit > 0) errs.push(fieldErrors.forbidden('limit', 'limit is not supported when watch is true'));
  } else {
    if (match) {
      if (!resourceVersion) errs.push(fieldErrors.forbidden(at, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (cont) errs.push(fieldErrors.forbidden(at, 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErrors.notSupported(at, match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && resourceVersion === '0') {
        errs.push(fieldErrors.forbidden(at, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
      }
    }
    if (sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errs.length) throw invalidOptions('ListOptions', errs);
  return {
    watch,
    resourceVersion,
    resourceVersionMatch: match as ListQuery['resourceVersionMatch'],
    timeoutSeconds,
    limit,
    continue: cont,
    allowWatchBookmarks,
    sendInitialEvents,
  };
}
