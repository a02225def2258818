// Spec 002 §2.3: the fields of the structured Statusz object, one case per field rule (kind is
// checked with the negotiation, in 4-endpoints.ts). Optional fields may be absent; present, they
// must have the spec's type and format.
import { defineCase, type Case, type CaseContext } from '../case.js';
import { expectCode, expectEqual, expectTrue, show, skip } from '../verify.js';
import { debugCase, everyComponent, expectMetadataNamesComponent, getWithAccept, statuszObject } from './debug-common.js';

const common = { ...debugCase, suite: 'statusz', spec: { doc: '002', section: '2.3' }, level: 'MUST', gates: { ComponentStatusz: true } } as const;

const MAJOR_MINOR = /^\d+\.\d+$/;
/** RFC 3339, as metav1.Time writes it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Seconds since the epoch by the target's clock: its Date header (1s resolution), else ours. */
function targetNow(headers: Record<string, string>): number {
  const d = Date.parse(headers['date'] ?? '');
  return Number.isNaN(d) ? Date.now() / 1000 : d / 1000;
}

function optionalString(field: string, requirement: string, id: string, title: string, format?: { re: RegExp; text: string }): Case {
  return defineCase({
    ...common,
    id,
    title,
    requirements: [requirement],
    async run(ctx: CaseContext) {
      const { obj } = await statuszObject(ctx);
      const v = obj[field];
      if (v === undefined) skip(`Statusz has no ${field} (optional, §2.3): its form cannot be checked`);
      expectTrue(typeof v === 'string' && v !== '' && (!format || format.re.test(v)), `${field} of Statusz`, format ? `absent, or a string ${format.text}` : 'absent, or a non-empty string', show(v));
    },
  });
}

export const statuszFieldCases: Case[] = everyComponent([
  defineCase({
    ...common,
    id: 'debug.statusz.api-version',
    title: 'The Statusz object asked for as v1beta1 has apiVersion config.orch.io/v1beta1',
    requirements: ['002-2.3-statusz-api-version'],
    async run(ctx) {
      expectEqual((await statuszObject(ctx)).obj['apiVersion'], 'config.orch.io/v1beta1', 'apiVersion of Statusz');
    },
  }),
  defineCase({
    ...common,
    id: 'debug.statusz.metadata-name',
    title: 'Statusz metadata, when present, is named after the component, as the text page names it',
    requirements: ['002-2.3-statusz-metadata'],
    async run(ctx) {
      await expectMetadataNamesComponent(ctx, (await statuszObject(ctx)).obj, '/statusz');
    },
  }),
  defineCase({
    ...common,
    id: 'debug.statusz.start-time',
    title: 'Statusz startTime is an RFC 3339 time in the past',
    requirements: ['002-2.3-statusz-start-time'],
    async run(ctx) {
      const { res, obj } = await statuszObject(ctx);
      const v = obj['startTime'];
      expectTrue(typeof v === 'string' && RFC3339.test(v), 'startTime of Statusz', 'an RFC 3339 time', show(v));
      const start = Date.parse(v) / 1000;
      const now = targetNow(res.headers);
      expectTrue(start <= now + 2, 'startTime of Statusz', `not after the response's Date (${res.headers['date'] ?? 'now'})`, v);
    },
  }),
  defineCase({
    ...common,
    id: 'debug.statusz.uptime-seconds',
    title: 'Statusz uptimeSeconds is a whole number of seconds, the time since startTime',
    requirements: ['002-2.3-statusz-uptime-seconds'],
    async run(ctx) {
      const { res, obj } = await statuszObject(ctx);
      const up = obj['uptimeSeconds'];
      expectTrue(Number.isSafeInteger(up) && up >= 0, 'uptimeSeconds of Statusz', 'a non-negative integer', show(up));
      const since = targetNow(res.headers) - Date.parse(obj['startTime']) / 1000;
      expectTrue(Math.abs(since - up) <= 3, 'uptimeSeconds of Statusz', `the seconds from startTime (${show(obj['startTime'])}) to the response's Date, about ${Math.round(since)}`, show(up));
    },
  }),
  optionalString('goVersion', '002-2.3-statusz-go-version', 'debug.statusz.go-version', 'Statusz goVersion, when present, is a non-empty string'),
  defineCase({
    ...common,
    id: 'debug.statusz.binary-version',
    title: 'Statusz has a binaryVersion string',
    requirements: ['002-2.3-statusz-binary-version-required'],
    async run(ctx) {
      const v = (await statuszObject(ctx)).obj['binaryVersion'];
      expectTrue(typeof v === 'string' && v !== '', 'binaryVersion of Statusz', 'a non-empty string (required)', show(v));
    },
  }),
  optionalString('emulationVersion', '002-2.3-statusz-emulation-version', 'debug.statusz.emulation-version', 'Statusz emulationVersion, when present, is <major>.<minor>', { re: MAJOR_MINOR, text: '<major>.<minor>' }),
  optionalString('minimumCompatibilityVersion', '002-2.3-statusz-minimum-compatibility-version', 'debug.statusz.minimum-compatibility-version', 'Statusz minimumCompatibilityVersion, when present, is <major>.<minor>', { re: MAJOR_MINOR, text: '<major>.<minor>' }),
  defineCase({
    ...common,
    id: 'debug.statusz.paths',
    title: 'Statusz paths, when present, are relative URLs of read-only endpoints that answer GET',
    requirements: ['002-2.3-statusz-paths'],
    async run(ctx) {
      const paths = (await statuszObject(ctx)).obj['paths'];
      if (paths === undefined) skip('Statusz has no paths (optional, §2.3): they cannot be checked');
      expectTrue(Array.isArray(paths) && paths.every((p) => typeof p === 'string' && p.startsWith('/') && !p.startsWith('//')), 'paths of Statusz', 'an array of relative URLs ("/...")', show(paths));
      for (const p of paths as string[]) expectCode(await getWithAccept(ctx, p, p === '/metrics' ? 'text/plain' : undefined), 200, `GET ${p} (listed in Statusz paths)`);
    },
  }),
]);
