// PodLogOptions from a query, as upstream's parameter codec decodes them (booleans: anything but "0"
// or "false" is true; integers strictly; sinceTime RFC 3339), and upstream's ValidatePodLogOptions.
// Both the agent (/containerLogs) and the API server (pods/log) read the same options, so they share
// this module.
import { fieldErrors, type FieldError } from '../../apiserver/field-errors.js';

export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** Seconds since the epoch (the API's sinceTime has whole seconds). */
  sinceTime?: number;
  /** As sent, for forwarding. */
  sinceTimeText?: string;
  insecureSkipTLSVerifyBackend: boolean;
}

/** The query cannot be decoded (a mistyped integer or time). */
export class PodLogQueryError extends Error {}

function bool(q: URLSearchParams, k: string): boolean {
  const v = q.get(k);
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

function int(q: URLSearchParams, k: string): number | undefined {
  const v = q.get(k);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new PodLogQueryError(`${k}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

export function parsePodLogQuery(q: URLSearchParams): PodLogOptions {
  const since = q.get('sinceTime');
  let sinceTime: number | undefined;
  if (since !== null && since !== '') {
    const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(since) ? Date.parse(since) : NaN;
    if (Number.isNaN(ms)) throw new PodLogQueryError(`sinceTime: parsing time ${JSON.stringify(since)} as RFC 3339 failed`);
    sinceTime = Math.floor(ms / 1000);
  }
  return {
    ...(q.get('container') ? { container: q.get('container')! } : {}),
    follow: bool(q, 'follow'),
    previous: bool(q, 'previous'),
    timestamps: bool(q, 'timestamps'),
    tailLines: int(q, 'tailLines'),
    limitBytes: int(q, 'limitBytes'),
    sinceSeconds: int(q, 'sinceSeconds'),
    ...(sinceTime !== undefined ? { sinceTime, sinceTimeText: new Date(sinceTime * 1000).toISOString().replace(/\.\d+Z$/, 'Z') } : {}),
    insecureSkipTLSVerifyBackend: bool(q, 'insecureSkipTLSVerifyBackend'),
  };
}

/** Upstream ValidatePodLogOptions. */
export function podLogOptionErrors(o: PodLogOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) errs.push(fieldErrors.invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1) errs.push(fieldErrors.invalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errs.push(fieldErrors.invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  }
  return errs;
}

/** The agent's query for these options (upstream LogLocation's params). */
export function agentLogQuery(o: PodLogOptions): string {
  const p = new URLSearchParams();
  if (o.follow) p.set('follow', 'true');
  if (o.previous) p.set('previous', 'true');
  if (o.timestamps) p.set('timestamps', 'true');
  if (o.sinceSeconds !== undefined) p.set('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTimeText !== undefined) p.set('sinceTime', o.sinceTimeText);
  if (o.tailLines !== undefined) p.set('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) p.set('limitBytes', String(o.limitBytes));
  const s = p.toString();
  return s ? `?${s}` : '';
}
