// The metrics and debug endpoints every component serves (spec 002 §4), as one object a
// component's HTTP handler mounts: /healthz, /livez, /readyz (and /<endpoint>/<check>),
// /metrics/slis, /statusz, /flagz, /configz, and /metrics through the `metrics` slot. The API
// server mounts it now; the node agent will mount it too.
import { methodNotAllowed } from '../apiserver/errors.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FeatureGates } from '../features.js';
import { evaluateOne, evaluateRoot, HEALTH_ENDPOINTS, withFaults, type HealthAnswer, type HealthChecks, type HealthEndpoint, type HealthFaults } from './health.js';
import { HealthSlis } from './slis.js';
import { STATUSZ_FORM, statuszObject, statuszText } from './statusz.js';
import { FLAGZ_FORM, flagzObject, flagzText } from './flagz.js';
import { negotiateZPage, type StructuredForm } from './zpages.js';

/**
 * The `/metrics` endpoint (component metrics, Accept negotiation between text and protobuf with
 * native histograms). Provided by the metrics module; without one, /metrics is not served here.
 */
export interface MetricsEndpoint {
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

export interface ComponentEndpointsOptions {
  /** The component's name, as /statusz and /flagz show it (e.g. `orch-apiserver`). */
  readonly name: string;
  readonly checks: HealthChecks;
  /** The command-line flags the component was started with, defaults included. */
  readonly flags: Readonly<Record<string, string>>;
  /** The merged configuration /configz serves: section name to value. */
  readonly config: Readonly<Record<string, unknown>>;
  /** ComponentStatusz and ComponentFlagz decide whether /statusz and /flagz are served. */
  readonly featureGates: FeatureGates;
  readonly binaryVersion: string;
  /** `<major>.<minor>`. */
  readonly emulationVersion?: string;
  readonly minimumCompatibilityVersion?: string;
  /** Other read-only paths the component serves (e.g. `/version`), for /statusz `paths`. */
  readonly otherPaths?: readonly string[];
  readonly metrics?: MetricsEndpoint;
  /** Test-only: checks forced to fail (see HealthFaults). */
  readonly healthFaults?: HealthFaults;
  /** Default: when this process started. */
  readonly startTime?: Date;
}

/** When the process was initiated (what /statusz reports as startTime). */
export const PROCESS_START = new Date(Math.floor(performance.timeOrigin / 1000) * 1000);

export class ComponentEndpoints {
  readonly name: string;
  readonly slis = new HealthSlis();
  /** The /metrics slot; the metrics module may fill it after construction too. */
  metrics: MetricsEndpoint | undefined;
  private readonly checks: HealthChecks;

  constructor(private readonly opts: ComponentEndpointsOptions) {
    this.name = opts.name;
    this.metrics = opts.metrics;
    this.checks = withFaults(opts.checks, opts.healthFaults);
  }

  /** Every path served here (for the root path listing and /statusz). */
  listedPaths(): string[] {
    const paths = ['/configz', '/metrics/slis'];
    if (this.metrics) paths.push('/metrics');
    if (this.opts.featureGates.enabled('ComponentStatusz')) paths.push('/statusz');
    if (this.opts.featureGates.enabled('ComponentFlagz')) paths.push('/flagz');
    for (const e of HEALTH_ENDPOINTS) paths.push(`/${e}`, ...this.checks[e].map((c) => `/${e}/${c.name}`));
    return paths.sort();
  }

  /**
   * Answers `path` (no query string) if it is one of these endpoints and returns true; returns
   * false, having written nothing, for any other path (a gated-off page included).
   */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    const segs = path.split('/').filter(Boolean);
    const [first, ...rest] = segs;
    let serve: (() => Promise<void> | void) | undefined;
    if (first === 'healthz' || first === 'livez' || first === 'readyz') {
      const endpoint: HealthEndpoint = first;
      if (rest.length === 0) {
        serve = async () => health(res, await evaluateRoot(endpoint, this.checks[endpoint], query, this.slis.observe));
      } else {
        const check = this.checks[endpoint].find((c) => c.name === rest.join('/'));
        if (check) serve = async () => health(res, await evaluateOne(check));
      }
    } else if (first === 'metrics' && rest.length === 1 && rest[0] === 'slis') {
      serve = async () => send(res, 200, this.slis.contentType, await this.slis.expose());
    } else if (first === 'metrics' && rest.length === 0 && this.metrics) {
      const metrics = this.metrics;
      serve = () => metrics.handle(req, res);
    } else if (first === 'statusz' && rest.length === 0 && this.opts.featureGates.enabled('ComponentStatusz')) {
      serve = () => zpage(req, res, STATUSZ_FORM, () => statuszText(this.statuszInfo()), () => statuszObject(this.statuszInfo()));
    } else if (first === 'flagz' && rest.length === 0 && this.opts.featureGates.enabled('ComponentFlagz')) {
      serve = () => zpage(req, res, FLAGZ_FORM, () => flagzText(this.name, this.opts.flags), () => flagzObject(this.name, this.opts.flags));
    } else if (first === 'configz' && rest.length === 0) {
      // Upstream configz: the registered configurations as one JSON object, whatever Accept says.
      serve = () => send(res, 200, 'application/json', `${JSON.stringify(this.opts.config)}\n`);
    }
    if (!serve) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      // A Status, as every error the API answers (the agent and the components share this code).
      send(res, 405, 'application/json', `${JSON.stringify(methodNotAllowed().status)}\n`, { Allow: 'GET, HEAD' });
      return true;
    }
    await serve();
    return true;
  }

  private statuszInfo() {
    return {
      component: this.name,
      startTime: this.opts.startTime ?? PROCESS_START,
      goVersion: `node ${process.version}`,
      binaryVersion: this.opts.binaryVersion,
      emulationVersion: this.opts.emulationVersion,
      minimumCompatibilityVersion: this.opts.minimumCompatibilityVersion,
      paths: [...this.listedPaths(), ...(this.opts.otherPaths ?? [])],
    };
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

function health(res: ServerResponse, a: HealthAnswer): void {
  send(res, a.status, 'text/plain; charset=utf-8', a.body);
}

function zpage(req: IncomingMessage, res: ServerResponse, form: StructuredForm, text: () => string, object: () => unknown): void {
  const f = negotiateZPage(req.headers.accept, form);
  if (f.type === 'refused') return send(res, 406, 'text/plain; charset=utf-8', `${f.message}\n`);
  if (f.type === 'text') return send(res, 200, 'text/plain; charset=utf-8', text());
  send(res, 200, 'application/json', `${JSON.stringify(object())}\n`);
}
