// The ClusterRole aggregation controller (upstream kube-controller-manager's
// `clusterrole-aggregation-controller`, spec 000 §2.8), a client of the API: a ClusterRole with an
// aggregationRule gets as rules the union of the rules of every other ClusterRole one of its
// selectors matches (in name order, without repeats); a direct change to its rules is overwritten.
// As upstream, any ClusterRole change queues every aggregated role; each is reconciled from the
// informer cache and written with an update carrying the resourceVersion read (a 409 retries on a
// fresh read).
import { isDeepStrictEqual } from 'node:util';
import { isConflict, isNotFound } from '../client/api-client.js';
import type { Informer, KubeObject } from '../client/informer.js';
import { WorkQueue } from '../client/workqueue.js';
import { selectorMatches, type LabelSelector, type PolicyRule } from '../resources/rbac.js';
import type { Controller, ControllerContext, ControllerDefinition } from './controller.js';

export const CLUSTERROLE_AGGREGATION_CONTROLLER = 'clusterrole-aggregation-controller';

const CLUSTERROLES = '/apis/rbac.authorization.orch.io/v1/clusterroles';
/** Upstream runs the aggregator with 5 workers. */
const WORKERS = 5;

interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

export const clusterRoleAggregationController: ControllerDefinition = {
  name: CLUSTERROLE_AGGREGATION_CONTROLLER,
  make: (ctx) => new ClusterRoleAggregation(ctx),
};

class ClusterRoleAggregation implements Controller {
  readonly name = CLUSTERROLE_AGGREGATION_CONTROLLER;
  private readonly queue: WorkQueue;
  private readonly roles: Informer<ClusterRole>;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.queue = new WorkQueue({ name: 'ClusterRoleAggregator', metrics: ctx.queueMetrics });
    this.roles = ctx.informers.for<ClusterRole>(CLUSTERROLES);
    const all = () => this.enqueueAggregated();
    this.roles.addEventHandler({ onAdd: all, onUpdate: all, onDelete: all });
  }

  run(): void {
    void this.queue.run(WORKERS, (name) => this.sync(name), (name, err) => {
      if (this.stopped || this.ctx.client.isClosed || isConflict(err)) return;
      this.ctx.log(`aggregating ClusterRole ${name} failed`, err);
    });
  }

  stop(): void {
    this.stopped = true;
    this.queue.shutDown();
  }

  private enqueueAggregated(): void {
    for (const r of this.roles.list()) if (r.aggregationRule) this.queue.add(r.metadata.name);
  }

  /** Spec 000 §2.8: a role is pulled in when any one of the selectors matches it. */
  private selected(selectors: readonly LabelSelector[], labels: Record<string, string> | undefined): boolean {
    const b = this.ctx.breaks;
    // Test-only (breaks): `clusterrole-aggregation.first-selector-only` reads only the first selector;
    // `clusterrole-aggregation.and-selectors` wants every selector to match.
    if (b.has('clusterrole-aggregation.first-selector-only')) return selectors.length > 0 && selectorMatches(selectors[0]!, labels);
    if (b.has('clusterrole-aggregation.and-selectors')) return selectors.every((sel) => selectorMatches(sel, labels));
    return selectors.some((sel) => selectorMatches(sel, labels));
  }

  private async sync(name: string): Promise<void> {
    const role = this.roles.get('', name);
    const selectors = role?.aggregationRule?.clusterRoleSelectors;
    if (!role || !selectors || role.metadata.deletionTimestamp) return;
    // Test-only (breaks): `clusterrole-aggregation.never-aggregate` leaves every role as it is.
    if (this.ctx.breaks.has('clusterrole-aggregation.never-aggregate')) return;
    const sources = this.roles.list()
      .filter((o) => o.metadata.name !== name && this.selected(selectors, o.metadata.labels))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    const rules: PolicyRule[] = [];
    // Test-only (breaks): `clusterrole-aggregation.keep-direct-rules` adds to the rules found instead
    // of replacing them, so a direct change survives.
    if (this.ctx.breaks.has('clusterrole-aggregation.keep-direct-rules')) rules.push(...(role.rules ?? []));
    for (const other of sources) {
      for (const rule of other.rules ?? []) if (!rules.some((r) => isDeepStrictEqual(r, rule))) rules.push(rule);
    }
    if (isDeepStrictEqual(role.rules ?? [], rules)) return;
    try {
      await this.ctx.client.update(`${CLUSTERROLES}/${encodeURIComponent(name)}`, { ...role, rules: rules.length ? rules : undefined });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
