// Target facts: what a run is told about its target that no API request can reveal or bring about.
// Some rules only show under conditions a case cannot create on an arbitrary server: a continue
// token that has outlived its validity, history compacted past a resourceVersion, an object whose
// stored bytes cannot be decoded, a failing health check, an authenticating server. A case that
// needs one declares it (`CaseMeta.facts`); the operator states it with a `run` flag, and a run
// without it skips the case saying which flag would let it run. The embedded run starts references
// configured so that every fact holds (runner/embedded.ts).
import { UsageError } from './errors.js';
import { parseControlPlaneParts, type ControlPlanePart } from './controllers.js';
import { parseDurationMs } from '../reference/duration.js';
import { HEALTH_ENDPOINTS, type HealthEndpoint } from '../reference/observability/health.js';

/** The facts a case may need, with the `run` flag that states each. */
export const FACTS = {
  continueTtl: {
    flag: '--continue-ttl',
    describe: 'how long the target keeps list continue tokens valid',
  },
  compaction: {
    flag: '--compaction-interval',
    describe: 'the interval at which the target compacts storage history (resourceVersions older than twice it are gone)',
  },
  corruptObject: {
    flag: '--corrupt-object',
    describe: 'the path of an object whose stored data the target cannot decode, one per case that needs one; such cases remove it (unsafe delete)',
  },
  failingHealthCheck: {
    flag: '--failing-health-check',
    describe: 'a health check that fails on the target, as endpoint/check (e.g. readyz/etcd)',
  },
  nodeMonitorGracePeriod: {
    flag: '--node-monitor-grace-period',
    describe: 'the controller manager\'s node-monitor-grace-period',
  },
  authentication: {
    flag: '--token',
    describe: 'a bearer token of a user allowed everything, impersonation included, on a target that authenticates requests',
  },
} as const;

export type FactName = keyof typeof FACTS;

/** A failing health check: the endpoint it is listed under and its name. */
export interface FailingCheck {
  readonly endpoint: HealthEndpoint;
  readonly check: string;
}

/** What the operator (or the embedded run) says about the target. */
export interface TargetFacts {
  readonly continueTtlSeconds?: number;
  readonly compactionIntervalSeconds?: number;
  /** Item paths of corrupt objects; each case that needs one is given its own. */
  readonly corruptObjects?: readonly string[];
  readonly failingHealthCheck?: FailingCheck;
  /** True when the run has a token (`--token`) for a user allowed everything. */
  readonly authentication?: boolean;
  /** The controller manager's node-monitor-grace-period (`--node-monitor-grace-period`), in seconds. */
  readonly nodeMonitorGracePeriodSeconds?: number;
  /** The controllers and scheduler the target runs (`--controllers`); undefined: all of them. */
  readonly controllers?: readonly ControlPlanePart[];
}

/** The facts one case sees: as TargetFacts, but with the one corrupt object assigned to it. */
export interface CaseFacts {
  readonly continueTtlSeconds?: number;
  readonly compactionIntervalSeconds?: number;
  readonly corruptObject?: string;
  readonly failingHealthCheck?: FailingCheck;
  readonly nodeMonitorGracePeriodSeconds?: number;
}

function has(facts: TargetFacts, name: FactName): boolean {
  switch (name) {
    case 'continueTtl': return facts.continueTtlSeconds !== undefined;
    case 'compaction': return facts.compactionIntervalSeconds !== undefined;
    case 'corruptObject': return (facts.corruptObjects?.length ?? 0) > 0;
    case 'failingHealthCheck': return facts.failingHealthCheck !== undefined;
    case 'authentication': return facts.authentication === true;
    case 'nodeMonitorGracePeriod': return facts.nodeMonitorGracePeriodSeconds !== undefined;
  }
}

/** Why a case cannot run for want of facts, or undefined when it can. */
export function factMismatch(needs: readonly FactName[] | undefined, facts: TargetFacts): string | undefined {
  const absent = (needs ?? []).filter((n) => !has(facts, n));
  if (absent.length === 0) return undefined;
  return `needs to know ${absent.map((n) => FACTS[n].describe).join('; and ')}: pass ${absent.map((n) => FACTS[n].flag).join(' and ')}`;
}

/**
 * Hands out the run's corrupt objects, one per case that needs one, in case order: a case removes
 * its object, so two cases can never share one.
 */
export class FactAllocator {
  private nextCorrupt = 0;
  constructor(private readonly facts: TargetFacts) {}

  /** The facts for a case, or a reason to skip it (more cases need a corrupt object than were given). */
  forCase(needs: readonly FactName[] | undefined): CaseFacts | string {
    const f = this.facts;
    let corruptObject: string | undefined;
    if (needs?.includes('corruptObject')) {
      corruptObject = f.corruptObjects?.[this.nextCorrupt++];
      if (corruptObject === undefined) {
        return `needs a corrupt object of its own; the ${f.corruptObjects?.length ?? 0} given (--corrupt-object) are taken by other cases`;
      }
    }
    return {
      continueTtlSeconds: f.continueTtlSeconds,
      compactionIntervalSeconds: f.compactionIntervalSeconds,
      corruptObject,
      failingHealthCheck: f.failingHealthCheck,
      nodeMonitorGracePeriodSeconds: f.nodeMonitorGracePeriodSeconds,
    };
  }
}

/** `run` flag values to facts; bad values are usage errors. */
export function parseFacts(argv: { continueTtl?: string; compactionInterval?: string; corruptObject?: string[]; failingHealthCheck?: string; token?: string; controllers?: string; nodeMonitorGracePeriod?: string }): TargetFacts {
  const seconds = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    const ms = parseDurationMs(v);
    if (ms === undefined || ms <= 0) throw new UsageError(`${flag} ${v}: want a positive duration such as 2s, 5m or 1h`);
    return ms / 1000;
  };
  for (const p of argv.corruptObject ?? []) {
    if (!/^\/apis?\/[^?#]+\/[^/?#]+\/[^/?#]+$/.test(p)) throw new UsageError(`--corrupt-object ${p}: want an object's path, e.g. /apis/storage.orch.io/v1/storageclasses/broken`);
  }
  if (new Set(argv.corruptObject ?? []).size !== (argv.corruptObject ?? []).length) throw new UsageError('--corrupt-object: the same object given twice');
  return {
    continueTtlSeconds: seconds(argv.continueTtl, '--continue-ttl'),
    compactionIntervalSeconds: seconds(argv.compactionInterval, '--compaction-interval'),
    corruptObjects: argv.corruptObject,
    failingHealthCheck: argv.failingHealthCheck === undefined ? undefined : parseFailingCheck(argv.failingHealthCheck),
    authentication: argv.token !== undefined,
    nodeMonitorGracePeriodSeconds: seconds(argv.nodeMonitorGracePeriod, '--node-monitor-grace-period'),
    controllers: parseControlPlaneParts(argv.controllers),
  };
}

function parseFailingCheck(v: string): FailingCheck {
  const m = /^([a-z]+)\/([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(v);
  if (!m || !(HEALTH_ENDPOINTS as readonly string[]).includes(m[1]!)) {
    throw new UsageError(`--failing-health-check ${v}: want endpoint/check with endpoint one of ${HEALTH_ENDPOINTS.join(', ')}, e.g. readyz/etcd`);
  }
  return { endpoint: m[1] as HealthEndpoint, check: m[2]! };
}

/** A fact a case declared: the runner only runs the case with it, so its absence is a bug in the case. */
export function fact<K extends keyof CaseFacts>(facts: CaseFacts, key: K): NonNullable<CaseFacts[K]> {
  const v = facts[key];
  if (v === undefined) throw new Error(`fact ${key} is missing: declare the fact it comes from in the case's facts`);
  return v as NonNullable<CaseFacts[K]>;
}
