// /statusz (spec 002 §2.3, §4): the component's status as plain text for people, or as the
// structured Statusz object for `Accept: application/json;v=v1beta1;g=config.orch.io;as=Statusz`.
import { textHeader, ZPAGES_GROUP, type StructuredForm } from './zpages.js';

export const STATUSZ_FORM: StructuredForm = { kind: 'Statusz', versions: ['v1beta1'] };
export const STATUSZ_API_VERSION = `${ZPAGES_GROUP}/v1beta1`;

/** Upstream lists top-level folders of the served paths, leaving out API and discovery trees. */
const NOT_DEBUGGING = new Set(['/api', '/apis', '/openid', '/openapi', '/.well-known']);

export interface StatuszInfo {
  readonly component: string;
  /** When the process was initiated. */
  readonly startTime: Date;
  /** The toolchain: for the reference, the Node.js version. */
  readonly goVersion: string;
  readonly binaryVersion: string;
  /** `<major>.<minor>`. */
  readonly emulationVersion?: string;
  readonly minimumCompatibilityVersion?: string;
  /** Every path the component serves; /statusz lists their top-level folders. */
  readonly paths: readonly string[];
}

/** `/healthz/ping`, `/metrics/slis` -> `/healthz`, `/metrics`, sorted, API trees left out. */
export function debugPaths(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const p of paths) {
    const first = p.split('/')[1];
    if (first && !NOT_DEBUGGING.has(`/${first}`)) folders.add(`/${first}`);
  }
  return [...folders].sort();
}

function uptimeSeconds(start: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - start.getTime()) / 1000));
}

/** Go's time.UnixDate in UTC: `Mon Jan _2 15:04:05 UTC 2006`. */
export function unixDate(d: Date): string {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
}

/** Upstream's `%d hr %02d min %02d sec`. */
function uptimeText(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)} hr ${two(Math.floor(seconds / 60) % 60)} min ${two(seconds % 60)} sec`;
}

/**
 * The text form (upstream layout). Upstream picks the delimiter after each label at random among
 * ":", ": ", "=" and " " to discourage parsing; the reference always uses ": ".
 */
export function statuszText(info: StatuszInfo, now = new Date()): string {
  const lines = [
    `Started: ${unixDate(info.startTime)}`,
    `Up: ${uptimeText(uptimeSeconds(info.startTime, now))}`,
    `Go version: ${info.goVersion}`,
    `Binary version: ${info.binaryVersion}`,
  ];
  if (info.emulationVersion) lines.push(`Emulation version: ${info.emulationVersion}`);
  const paths = debugPaths(info.paths);
  if (paths.length) lines.push(`Paths: ${paths.join(' ')}`);
  return `${textHeader(info.component, 'statusz')}\n${lines.join('\n')}\n`;
}

/** The structured Statusz object of §2.3. */
export function statuszObject(info: StatuszInfo, now = new Date()): Record<string, unknown> {
  const o: Record<string, unknown> = {
    kind: STATUSZ_FORM.kind,
    apiVersion: STATUSZ_API_VERSION,
    metadata: { name: info.component },
    // metav1.Time: RFC 3339 with whole seconds.
    startTime: info.startTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    uptimeSeconds: uptimeSeconds(info.startTime, now),
    goVersion: info.goVersion,
    binaryVersion: info.binaryVersion,
  };
  if (info.emulationVersion) o['emulationVersion'] = info.emulationVersion;
  if (info.minimumCompatibilityVersion) o['minimumCompatibilityVersion'] = info.minimumCompatibilityVersion;
  const paths = debugPaths(info.paths);
  if (paths.length) o['paths'] = paths;
  return o;
}
