// The API server's metrics on the shared observability module: request counts and latency by
// verb, resource and code (upstream apiserver_request_total / apiserver_request_duration_seconds),
// recorded when each response finishes, on the component metrics that /metrics serves.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ComponentMetrics, type DualHistogram } from '../observability/metrics.js';
import type { FeatureGates } from '../features.js';
import type { CounterSeries, HistogramSeries, SeriesCounter } from '../observability/series.js';
import { versionInfo } from './discovery.js';
import type { Registry } from './registry.js';

/** Upstream's classic buckets of apiserver_request_duration_seconds. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

const LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const;
type Label = (typeof LABELS)[number];

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

/**
 * Upstream RequestInfo, reduced to metric labels. Resources the registry does not serve are
 * labelled as non-resource requests (no resource), so unknown paths cannot grow the series set.
 */
export function requestLabels(method: string, rawUrl: string, registry?: Registry): RequestLabels {
  const qi = rawUrl.indexOf('?');
  const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
  const none: RequestLabels = { verb: method, group: '', version: '', resource: '', subresource: '', scope: '' };
  let segs = path.split('/').filter(Boolean);
  let group: string;
  let version: string;
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1]!;
    segs = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    version = segs[2]!;
    segs = segs.slice(3);
  } else {
    return none;
  }
  let watch = false;
  if (segs[0] === 'watch') {
    watch = true;
    segs = segs.slice(1);
  }
  let namespace = '';
  if (segs[0] === 'namespaces' && segs.length >= 3 && segs[2] !== 'status' && segs[2] !== 'finalize') {
    namespace = segs[1]!;
    segs = segs.slice(2);
  }
  const [resource, name, subresource] = segs;
  if (!resource || segs.length > 3 || (registry && !registry.lookup(group, version, resource))) return none;
  let verb = method;
  if (method === 'GET' && name === undefined) verb = watch || (qi >= 0 && ['true', '1'].includes(new URLSearchParams(rawUrl.slice(qi + 1)).get('watch') ?? '')) ? 'WATCH' : 'LIST';
  else if (method === 'GET' && watch) verb = 'WATCH';
  const scope = name !== undefined ? 'resource' : namespace ? 'namespace' : 'cluster';
  return { verb, group, version, resource, subresource: subresource ?? '', scope };
}

export class ApiServerMetrics {
  readonly component: ComponentMetrics;
  private readonly requests: SeriesCounter<Label>;
  private readonly latency: DualHistogram<Label>;
  /**
   * Bound series by label values and code. Bounded: requestLabels maps what the registry does not
   * serve to the non-resource labels, and Node refuses methods it does not know.
   */
  private readonly bound = new Map<string, { count: CounterSeries; latency: HistogramSeries }>();
  private readonly terminatedWatchers: SeriesCounter<'group' | 'resource'>;

  constructor(featureGates: FeatureGates, private readonly registry?: Registry) {
    const v = versionInfo();
    this.component = new ComponentMetrics({
      featureGates,
      buildInfo: {
        major: v['major']!,
        minor: v['minor']!,
        git_version: v['gitVersion']!,
        git_commit: v['gitCommit']!,
        git_tree_state: v['gitTreeState']!,
        build_date: v['buildDate']!,
        go_version: v['goVersion']!,
        compiler: v['compiler']!,
        platform: v['platform']!,
      },
    });
    this.requests = this.component.seriesCounter({
      name: 'apiserver_request_total',
      help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: LABELS,
    });
    this.latency = this.component.histogram({
      name: 'apiserver_request_duration_seconds',
      help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: LABELS,
      buckets: REQUEST_DURATION_BUCKETS,
      native: { bucketFactor: 1.1, maxBuckets: 160 },
    });
    // Upstream's cacher metric (labels group and resource since 1.33); a series appears with the first close.
    this.terminatedWatchers = this.component.seriesCounter({
      name: 'apiserver_terminated_watchers_total',
      help: '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.',
      labelNames: ['group', 'resource'],
    });
  }

  /** Counts a watch closed because its client left too much unread. */
  watcherTerminated(group: string, resource: string): void {
    this.terminatedWatchers.inc({ group, resource });
  }

  /** Records one finished request. */
  record(labels: RequestLabels, code: number, seconds: number): void {
    const key = `${labels.verb} ${labels.group} ${labels.version} ${labels.resource} ${labels.subresource} ${labels.scope} ${code}`;
    let series = this.bound.get(key);
    if (!series) {
      const l = { ...labels, component: 'apiserver', code: String(code) };
      series = { count: this.requests.series(l), latency: this.latency.series(l) };
      this.bound.set(key, series);
    }
    series.count.inc();
    series.latency.observe(seconds);
  }

  /**
   * Wraps the server's listener: every request (/metrics too) is counted and timed when its
   * response finishes or its connection closes. `/metrics` itself is `component.serve`, mounted
   * with the other debug endpoints.
   */
  instrument(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      const started = performance.now();
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.record(requestLabels(req.method ?? 'GET', req.url ?? '/', this.registry), res.statusCode, (performance.now() - started) / 1000);
      };
      res.once('finish', finish);
      res.once('close', finish);
      return listener(req, res);
    };
  }
}
