// For every health, SLI and z-page case of spec 002: a component broken in exactly the case's
// rule (the proxy stands for the component's URL, API and metrics alike).
import { answer, editJson, type Breakage, type ProxiedRequest, type ProxiedResponse } from '../helpers/broken-target.js';

const pathOnly = (r: ProxiedRequest) => r.path.split('?')[0]!;
const isPath = (r: ProxiedRequest, p: string) => pathOnly(r) === p;
const isText = (res: ProxiedResponse) => (res.headers['content-type'] ?? '').startsWith('text/plain');
const isJson = (res: ProxiedResponse) => (res.headers['content-type'] ?? '').startsWith('application/json');

/** Rewrites the body of answers to `path` that are plain text. */
function text(path: string, edit: (body: string) => string): Breakage {
  return { response: (r, res) => { if (isPath(r, path) && isText(res)) res.body = edit(res.body); } };
}

/** Rewrites the JSON object of answers to `path`. */
function json(path: string, edit: (o: any) => void): Breakage {
  return { response: (r, res) => { if (isPath(r, path) && isJson(res)) editJson(res, edit); } };
}

/** Answers `path` by itself. */
function answering(path: string, res: ProxiedResponse): Breakage {
  return { request: (r) => (isPath(r, path) ? res : undefined) };
}

const plain = (status: number, body: string): ProxiedResponse => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });

/** Lines of a z-page text after its warning line, edited. */
function afterWarning(body: string, edit: (lines: string[]) => string[]): string {
  const lines = body.split('\n');
  const w = lines.findIndex((l) => l.startsWith('Warning: '));
  return [...lines.slice(0, w + 1), ...edit(lines.slice(w + 1))].join('\n');
}

/** Any JSON Accept on `path` becomes the complete structured form: a server that never refuses. */
function neverNotAcceptable(path: string, full: string): Breakage {
  return { request: (r) => { if (isPath(r, path) && (r.headers['accept'] ?? '').startsWith('application/json')) r.headers['accept'] = full; } };
}

export const debugEndpointBreakages: Record<string, Breakage> = {
  // §2.1 SLIs
  'debug.slis.healthcheck-gauge': text('/metrics/slis', (b) => b.replace(/^(orch_healthcheck\{.*\}) 1$/gm, '$1 0')),
  'debug.slis.healthchecks-total-counter': text('/metrics/slis', (b) => b.replace(/^(orch_healthchecks_total\{.*\}) \d+$/gm, '$1 1')),
  'debug.slis.alpha-help': text('/metrics/slis', (b) => b.replaceAll('[ALPHA]', '[BETA]')),
  'debug.slis.help-text': text('/metrics/slis', (b) => b.replace('results of all healthcheck.', 'results of all healthchecks.')),
  'debug.slis.dependency-checks': text('/metrics/slis', (b) => b.replace(/^orch_healthcheck\{name="storage".*\n/gm, '')),

  // §2.3 Statusz fields
  'debug.statusz.api-version': json('/statusz', (o) => { o.apiVersion = 'config.orch.io/v1alpha1'; }),
  'debug.statusz.metadata-name': json('/statusz', (o) => { o.metadata = { name: 'someone-else' }; }),
  'debug.statusz.start-time': json('/statusz', (o) => { o.startTime = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z'); }),
  'debug.statusz.uptime-seconds': json('/statusz', (o) => { o.uptimeSeconds += 3600; }),
  'debug.statusz.go-version': json('/statusz', (o) => { o.goVersion = 20; }),
  'debug.statusz.binary-version': json('/statusz', (o) => { delete o.binaryVersion; }),
  'debug.statusz.emulation-version': json('/statusz', (o) => { o.emulationVersion = '1.37.0'; }),
  'debug.statusz.minimum-compatibility-version': json('/statusz', (o) => { o.minimumCompatibilityVersion = 'v1.36'; }),
  'debug.statusz.paths': json('/statusz', (o) => { o.paths = [...(o.paths ?? []), '/no-such-debug-endpoint']; }),

  // §2.4 Flagz fields
  'debug.flagz.metadata-name': json('/flagz', (o) => { o.metadata = { name: 'someone-else' }; }),
  'debug.flagz.flags': json('/flagz', (o) => { const k = Object.keys(o.flags ?? {})[0]; if (k) o.flags[k] = 8080; }),

  // §4 endpoints
  'debug.slis.served': answering('/metrics/slis', plain(404, '404 page not found\n')),
  'debug.statusz.text': text('/statusz', (b) => b.split('\n').filter((l) => !l.startsWith('Warning: ')).join('\n')),
  'debug.statusz.text-format': text('/statusz', (b) => b.replace(/^\n(\S+) statusz\n/, '\nstatusz of $1\n')),
  'debug.statusz.json': { request: (r) => { if (isPath(r, '/statusz')) delete r.headers['accept']; } },
  'debug.statusz.gate-off': answering('/statusz', plain(200, '\norch-apiserver statusz\n')),
  'debug.flagz.text': text('/flagz', (b) => afterWarning(b, (ls) => ls.map((l) => l.replace('=', ': ')))),
  'debug.flagz.text-format': text('/flagz', (b) => afterWarning(b, (ls) => [ls[0]!, ...ls.slice(1).filter(Boolean).reverse(), ''])),
  // Answers in the version asked for (v1alpha1) instead of v1beta1.
  'debug.flagz.json': json('/flagz', (o) => { o.apiVersion = 'config.orch.io/v1alpha1'; }),
  'debug.flagz.gate-off': answering('/flagz', plain(200, '\norch-apiserver flags\n')),
  'debug.configz': answering('/configz', plain(200, 'componentconfig:\n  port: 0\n')),
  'debug.paths.essential': answering('/livez', plain(404, '404 page not found\n')),
  'debug.z-pages.text-not-acceptable': { request: (r) => { if (r.headers['accept'] === 'application/xml') r.headers['accept'] = 'text/plain'; } },

  // §4 health endpoints
  'debug.health.ok': { response: (r, res) => { if (['/healthz', '/livez', '/readyz'].includes(r.path)) res.body = 'healthy'; } },
  'debug.health.verbose': { response: (r, res) => { if (/[?&]verbose/.test(r.path)) res.body = res.body.replace(/^\w+ check passed\n/m, ''); } },
  'debug.health.exclude': { request: (r) => { r.path = r.path.replace(/&exclude=[^&]*/g, ''); } },
  'debug.health.individual': { request: (r) => (/^\/readyz\/./.test(pathOnly(r)) ? answer(404, { kind: 'Status', code: 404 }) : undefined) },

  // §7 errors
  'debug.statusz.json-without-params': neverNotAcceptable('/statusz', 'application/json;v=v1beta1;g=config.orch.io;as=Statusz'),
  'debug.flagz.json-without-params': neverNotAcceptable('/flagz', 'application/json;v=v1alpha1;g=config.orch.io;as=Flagz'),
};
