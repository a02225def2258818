// The agent's stats and metrics endpoints (spec 002 §2.2, §4, §4.1, §4.2): /stats/summary,
// /metrics/cadvisor and /metrics/resource as routes of the agent's HTTPS port, and
// `agent_metrics_provider` on its /metrics.
//
// Which source serves pod and container metrics: with gate PodAndContainerStatsFromCRI on, the
// runtime's ListPodSandboxMetrics whenever it reports metrics (`cri`); when it does not (the RPC
// fails or is UNIMPLEMENTED, or it answers nothing while pods run), the agent's own collection over
// the stats RPCs (`cadvisor`), even with the gate on (§4.1 item 3); with the gate off, always the own
// collection. The provider is decided on every /metrics/cadvisor scrape; /metrics re-asks the runtime
// when the last decision is older than PROVIDER_MAX_AGE_MS. Both provider series are exposed, the one
// in use at 1 and the other at 0, so a flip shows as two changed values rather than a vanished series.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ComponentMetrics } from '../../observability/metrics.js';
import type { FeatureGates } from '../../features.js';
import { broken } from '../breaks.js';
import type { AgentRoute } from '../endpoints.js';
import type { Runtime } from '../runtime.js';
import { runtimeMessage } from '../runtime.js';
import { criSeries, nodeSeries, ownSeries } from './cadvisor.js';
import type { MetricDescriptorMsg, PodSandboxMetricsMsg } from './cri-types.js';
import { NodeCollector } from './node-collector.js';
import { resourceMetrics } from './resource.js';
import { SummaryProvider } from './summary.js';
import { summaryJson, type Summary } from './summary-types.js';
import { TEXT_CONTENT_TYPE, TextExposition } from './text-exposition.js';

export type MetricsProvider = 'cri' | 'cadvisor';

const PROVIDER_MAX_AGE_MS = 10_000;

export interface AgentStatsOptions {
  runtime: Runtime;
  nodeName: string;
  rootDir: string;
  featureGates: FeatureGates;
  /** The pods the agent manages (read lazily: the workers start after the endpoints). */
  pods(): any[];
  log(msg: string): void;
  /** Test seams: where /proc and the cgroup root are. */
  procDir?: string;
  cgroupDir?: string;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-cache, private' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Upstream's ?only_cpu_and_memory: exactly one value, exactly `true`. */
export function onlyCpuAndMemory(url: URL): boolean {
  const v = url.searchParams.getAll('only_cpu_and_memory');
  return v.length === 1 && v[0] === 'true';
}

export class AgentStats {
  readonly node: NodeCollector;
  readonly summary: SummaryProvider;
  readonly routes: readonly AgentRoute[];
  private descriptors = new Map<string, MetricDescriptorMsg>();
  private decided?: { provider: MetricsProvider; at: number };

  constructor(private readonly o: AgentStatsOptions) {
    this.node = new NodeCollector({ procDir: o.procDir, cgroupDir: o.cgroupDir });
    this.summary = new SummaryProvider({ runtime: o.runtime, nodeName: o.nodeName, rootDir: o.rootDir, node: this.node, pods: o.pods, psi: () => this.psiShown() });
    this.routes = [
      { path: '/stats/summary', methods: ['GET'], handle: (req, res, url) => this.serveSummary(req, res, url) },
      { path: '/metrics/cadvisor', methods: ['GET', 'HEAD'], handle: (req, res) => this.serveCadvisor(req, res) },
      { path: '/metrics/resource', methods: ['GET', 'HEAD'], handle: (req, res) => this.serveResource(req, res) },
    ];
  }

  /** The first CPU sample, so that the first answer has a usage rate. */
  start(): Promise<void> {
    return this.node.start();
  }

  /** §4.2: PSI is stable and its gate locked on, so it is always shown where the machine has it. */
  private psiShown(): boolean {
    // Test-only (breaks.ts): a KubeletPSI=false given at start is honoured (PSI hidden) instead of ignored.
    return !(broken('psi-gate-honoured') && process.argv.some((a) => /KubeletPSI=false/i.test(a)));
  }

  private criGate(): boolean {
    // Test-only (breaks.ts): CRI metrics used whatever the gate says.
    if (broken('cri-metrics-without-gate')) return true;
    // Test-only (breaks.ts): the gate ignored, the own collection always.
    return this.o.featureGates.enabled('PodAndContainerStatsFromCRI') && !broken('cri-metrics-ignored');
  }

  private decide(provider: MetricsProvider, why: string): void {
    if (this.decided && this.decided.provider !== provider) this.o.log(`pod and container metrics now from ${provider === 'cri' ? 'the runtime (ListPodSandboxMetrics)' : 'the agent\'s own collection'}: ${why}`);
    this.decided = { provider, at: Date.now() };
  }

  private async metricDescriptors(names: Iterable<string>): Promise<ReadonlyMap<string, MetricDescriptorMsg>> {
    const missing = [...names].some((n) => !this.descriptors.has(n));
    if (missing || this.descriptors.size === 0) {
      this.descriptors = new Map((await this.o.runtime.listMetricDescriptors()).map((d) => [d.name, d]));
    }
    return this.descriptors;
  }

  /**
   * The runtime's pod and container metrics when the gate is on and the runtime reports them;
   * undefined otherwise (the own collection serves them). Records the decision.
   */
  private async runtimeMetrics(): Promise<{ pods: PodSandboxMetricsMsg[]; descriptors: ReadonlyMap<string, MetricDescriptorMsg> } | undefined> {
    if (!this.criGate()) {
      this.decide('cadvisor', `gate PodAndContainerStatsFromCRI is off`);
      return undefined;
    }
    // Test-only (breaks.ts): no fallback, the runtime stays the source whatever it answers.
    const keep = broken('cri-metrics-no-fallback');
    try {
      const pods = await this.o.runtime.listPodSandboxMetrics();
      const names = new Set(pods.flatMap((p) => [...(p.metrics ?? []), ...(p.container_metrics ?? []).flatMap((c) => c.metrics ?? [])].map((m) => m.name)));
      if (names.size === 0 && (await this.o.runtime.listSandboxes()).some((s) => s.state === 'SANDBOX_READY')) {
        this.decide(keep ? 'cri' : 'cadvisor', 'the runtime reports no metrics for the pods it runs');
        return undefined;
      }
      const descriptors = await this.metricDescriptors(names);
      this.decide('cri', 'the runtime reports pod and container metrics');
      return { pods, descriptors };
    } catch (err) {
      this.decide(keep ? 'cri' : 'cadvisor', `the runtime does not report metrics: ${runtimeMessage(err)}`);
      return undefined;
    }
  }

  /** The source in use, re-asked of the runtime when the last decision is stale. */
  async provider(): Promise<MetricsProvider> {
    if (!this.criGate()) return 'cadvisor';
    if (!this.decided || Date.now() - this.decided.at > PROVIDER_MAX_AGE_MS) await this.runtimeMetrics();
    return this.decided!.provider;
  }

  /** Registers agent_metrics_provider (§2.2) on the agent's /metrics. */
  readonly onMetrics = (metrics: ComponentMetrics): void => {
    const provider = () => this.provider();
    metrics.gauge({
      name: 'agent_metrics_provider',
      help: '[ALPHA] The source of the pod and container statistics of this node: provider "cri" (the container runtime, ListPodSandboxMetrics) or "cadvisor" (the agent\'s embedded collection); 1 for the one in use.',
      labelNames: ['provider'],
      async collect() {
        const p = await provider();
        this.set({ provider: 'cri' }, p === 'cri' ? 1 : 0);
        this.set({ provider: 'cadvisor' }, p === 'cadvisor' ? 1 : 0);
      },
    });
  };

  private async serveSummary(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let s: Summary;
    try {
      s = await this.summary.summary(onlyCpuAndMemory(url));
    } catch (err) {
      return send(req, res, 500, 'text/plain; charset=utf-8', `Internal Error: ${(err as Error).message}\n`);
    }
    // Test-only (breaks.ts): with CRI stats on, the node's own figures are left out.
    if (this.criGate() && broken('cri-stats-drop-node')) s.node = { nodeName: s.node.nodeName, startTime: s.node.startTime };
    send(req, res, 200, 'application/json', summaryJson(s));
  }

  private async serveCadvisor(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const exp = new TextExposition();
    const [node, fromRuntime] = await Promise.all([this.node.sample(), this.runtimeMetrics()]);
    const psi = this.psiShown();
    // Test-only (breaks.ts): with the runtime as source, the node's and machine's series are left out.
    if (!(fromRuntime && broken('cri-metrics-drop-node'))) nodeSeries(exp, node, psi);
    if (fromRuntime) {
      criSeries(exp, fromRuntime.pods, fromRuntime.descriptors, node.timeMs);
    } else if (!(this.criGate() && broken('cri-metrics-no-fallback'))) {
      try {
        ownSeries(exp, await this.summary.criView(), this.summary, psi);
      } catch (err) {
        // The node's series are still worth serving; the pods' are missing this time.
        this.o.log(`/metrics/cadvisor: ${(err as Error).message}`);
      }
    }
    send(req, res, 200, TEXT_CONTENT_TYPE, exp.render());
  }

  private async serveResource(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let s: Summary;
    let failed = false;
    try {
      s = await this.summary.summary(true);
    } catch (err) {
      this.o.log(`/metrics/resource: ${(err as Error).message}`);
      failed = true;
      s = await this.summary.nodeOnly(true);
    }
    send(req, res, 200, TEXT_CONTENT_TYPE, resourceMetrics(s, failed));
  }
}
