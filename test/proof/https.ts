// The HTTPS rules of spec 002 (§1, §4): the broken target is the proof proxy itself, which serves
// the component's endpoints unchanged but over plain HTTP. No rewrite is needed.
import type { Breakage } from '../helpers/broken-target.js';

/** Every answer passes through untouched; only the scheme of the URL is wrong. */
const plainHttp: Breakage = {};

export const httpsBreakages: Record<string, Breakage> = {
  'debug.https.port': plainHttp,
  'debug.https.get': plainHttp,
};
