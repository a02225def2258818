// Spec 002 §1 and §4: every component serves its metrics and debug endpoints on its own HTTPS
// port, with GET. The component's URL (`run --metrics name=url`, the API URL for the apiserver)
// must be https, and the endpoints must answer over it with the certificate the run trusts
// (`--ca`); a TLS failure is a connection problem the run reports as an error, not a verdict.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectTrue } from '../verify.js';
import { debugCase, everyComponent, getWithAccept } from './debug-common.js';

const common = { ...debugCase, suite: 'https' } as const;

/**
 * Checked after the first GET, so that a failure carries the exchange that shows where the
 * endpoints were reached.
 */
function expectHttpsUrl(ctx: CaseContext): void {
  const url = ctx.component().conn.baseUrl;
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    scheme = '(not a URL)';
  }
  expectTrue(scheme === 'https:', 'scheme of the component\'s metrics and debug URL', 'https: the endpoints on the component\'s own HTTPS port', url);
}

/**
 * The read-only paths GET must reach over HTTPS: §4's essential ones, the SLI endpoint and /flagz.
 * Accept as a scraper or a person would send it.
 */
const READ_ONLY_PATHS: ReadonlyArray<[path: string, accept: string | undefined]> = [
  ['/healthz', undefined], ['/livez', undefined], ['/readyz', undefined], ['/metrics', 'text/plain'],
  ['/metrics/slis', 'text/plain'], ['/statusz', undefined], ['/version', 'application/json'], ['/flagz', undefined],
];

export const httpsCases: Case[] = everyComponent([
  defineCase({
    ...common,
    id: 'debug.https.port',
    title: 'The component\'s metrics and debug URL is https, and GET /healthz succeeds over TLS',
    requirements: ['002-1-https-port'],
    spec: { doc: '002', section: '1' },
    level: 'MUST',
    async run(ctx) {
      const res = await getWithAccept(ctx, '/healthz', undefined);
      expectHttpsUrl(ctx);
      expectCode(res, 200, 'GET /healthz over HTTPS');
    },
  }),
  defineCase({
    ...common,
    id: 'debug.https.get',
    gates: { ComponentStatusz: true },
    title: 'GET over the component\'s HTTPS URL answers /healthz, /livez, /readyz, /metrics, /metrics/slis, /statusz, /version and /flagz',
    requirements: ['002-4-get-https'],
    spec: { doc: '002', section: '4' },
    level: 'MUST',
    async run(ctx) {
      const answers = [];
      for (const [path, accept] of READ_ONLY_PATHS) answers.push([path, await getWithAccept(ctx, path, accept)] as const);
      expectHttpsUrl(ctx);
      for (const [path, res] of answers) {
        // /flagz exists only while ComponentFlagz is on; whether it must be is 002-4-flagz-gate's rule.
        expectCode(res, path === '/flagz' ? [200, 404] : 200, `GET ${path} over HTTPS`);
      }
    },
  }),
]);
