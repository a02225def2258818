// The health SLI metrics of spec 002 §2.1, served at /metrics/slis in text exposition format:
// `orch_healthcheck{name,type}` (1 healthy, 0 failed) and
// `orch_healthchecks_total{name,type,status}`, recorded on every evaluation of /healthz and /readyz.
import { Counter, Gauge, Registry } from './prom.js';
import type { HealthEndpoint } from './health.js';

// Upstream's help texts say [BETA]; the spec says the two are alpha-labelled, and the spec wins.
export const HEALTHCHECK_HELP = '[ALPHA] This metric records the result of a single healthcheck.';
export const HEALTHCHECKS_TOTAL_HELP = '[ALPHA] This metric records the results of all healthcheck.';

/**
 * The `type` values the spec allows: `healthz` or `readyz`. Upstream also records /livez
 * evaluations (type `livez`); the spec's label has no such value, so they are not recorded.
 */
const SLI_TYPES: ReadonlySet<HealthEndpoint> = new Set<HealthEndpoint>(['healthz', 'readyz']);

export class HealthSlis {
  readonly registry = new Registry();
  private readonly gauge = new Gauge({ name: 'orch_healthcheck', help: HEALTHCHECK_HELP, labelNames: ['name', 'type'], registers: [this.registry] });
  private readonly total = new Counter({ name: 'orch_healthchecks_total', help: HEALTHCHECKS_TOTAL_HELP, labelNames: ['name', 'status', 'type'], registers: [this.registry] });

  /** Records one check result of one endpoint evaluation. */
  readonly observe = (check: string, endpoint: HealthEndpoint, ok: boolean): void => {
    if (!SLI_TYPES.has(endpoint)) return;
    // Labels in name order, as upstream's exposition sorts them.
    this.gauge.set({ name: check, type: endpoint }, ok ? 1 : 0);
    this.total.inc({ name: check, status: ok ? 'success' : 'error', type: endpoint });
  };

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition. */
  expose(): Promise<string> {
    return this.registry.metrics();
  }
}
