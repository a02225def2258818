// For the cases of spec 002 §9 defaults (NativeHistograms, z-pages), /flagz being flags only, and
// scraping (/metrics/slis at high frequency, old scrapers on /metrics): a target broken in exactly
// the case's rule.
import { editJson, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';
import { histograms, protobuf, stripNative, text } from './metrics.js';

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;
const contentType = (res: ProxiedResponse) => Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
const TEXT_TYPES = /^(text\/plain|application\/openmetrics-text)/;
const PROTOBUF_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited';

/** Both rewrites, each acting on the answers it recognises. */
function both(a: Breakage, b: Breakage): Breakage {
  return { response: (r, res) => { a.response?.(r, res); b.response?.(r, res); } };
}

/** Rewrites the orch_feature_enabled line of one gate in the text formats of /metrics. */
function featureLine(gate: string, edit: (line: string) => string): Breakage {
  return text(TEXT_TYPES, (body) => body.split('\n').map((l) => (l.startsWith('orch_feature_enabled{') && l.includes(`name="${gate}"`) ? edit(l) : l)).join('\n'));
}

/** A limiter in front of /metrics/slis: more than `max` scrapes within `windowMs` get 429. */
function throttled(max: number, windowMs: number): Breakage {
  const seen: number[] = [];
  return {
    request: (r) => {
      if (pathOnly(r) !== '/metrics/slis') return undefined;
      const now = Date.now();
      while (seen.length > 0 && seen[0]! <= now - windowMs) seen.shift();
      if (seen.length >= max) return { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' }, body: 'Too many requests, please try again later.\n' };
      seen.push(now);
      return undefined;
    },
  };
}

/** Every `n`th answer of /metrics/slis shows the counters reset to 0, as if freshly started. */
function countersResetEvery(n: number): Breakage {
  let scrapes = 0;
  return {
    response: (r, res) => {
      if (pathOnly(r) !== '/metrics/slis' || ++scrapes % n !== 0) return;
      res.body = res.body.replace(/^(orch_healthchecks_total\{.*\}) \S+$/gm, '$1 0');
    },
  };
}

/** /flagz mixed with the merged configuration: /configz's camelCase fields listed as flags. */
const MERGED_CONFIG = { bindAddress: '127.0.0.1', 'componentconfig.storage': 'memory' };

export const metricsVersioningBreakages: Record<string, Breakage> = {
  // A 1.36-like component: NativeHistograms off unless enabled by hand.
  'metrics.native.on-by-default': both(
    featureLine('NativeHistograms', (l) => l.replace(/ \S+$/, ' 0')),
    protobuf((fams) => histograms(fams).forEach(stripNative)),
  ),
  // ComponentFlagz reported as graduated (GA is the empty stage).
  'metrics.feature-enabled.stage': featureLine('ComponentFlagz', (l) => l.replace('stage="BETA"', 'stage=""')),
  // /flagz off by default, as while the z-pages were alpha.
  'debug.z-pages.beta-default': {
    request: (r) => (pathOnly(r) === '/flagz' ? { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' } : undefined),
  },
  // The structured /statusz at a GA version.
  'debug.z-pages.structured-beta': {
    response: (r, res) => {
      if (pathOnly(r) === '/statusz' && contentType(res).startsWith('application/json')) editJson(res, (o) => { o.apiVersion = 'config.orch.io/v1'; });
    },
  },
  'debug.flagz.flags-only': {
    response: (r, res) => {
      if (pathOnly(r) !== '/flagz') return;
      if (contentType(res).startsWith('application/json')) editJson(res, (o) => { o.flags = { ...o.flags, ...MERGED_CONFIG }; });
      else if (contentType(res).startsWith('text/plain')) res.body += Object.entries(MERGED_CONFIG).map(([k, v]) => `${k}=${v}\n`).join('');
    },
  },
  // At most 10 scrapes per 10 seconds.
  'debug.slis.back-to-back': throttled(10, 10_000),
  'debug.slis.consistent-scrapes': countersResetEvery(4),
  // Protobuf for whoever allows any type (or says nothing), whatever it prefers.
  'metrics.negotiation.old-scraper': {
    request: (r) => {
      if (pathOnly(r) === '/metrics' && (!r.headers['accept'] || r.headers['accept'].includes('*/*'))) r.headers['accept'] = PROTOBUF_ACCEPT;
    },
  },
};
