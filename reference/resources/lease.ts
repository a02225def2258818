// Lease, coordination.orch.io/v1, namespaced: the light-weight node heartbeat (spec 001 §2.2: one
// Lease per node in the namespace `node-lease`). Rules follow upstream
// pkg/apis/coordination/validation ValidateLeaseSpec; times are MicroTime (microsecond precision).
import { fieldErrors, isQualifiedName, path, type FieldError } from '../apiserver/field-errors.js';
import { t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { normalizeMicroTime, validateTime } from './node.js';

/** The namespace holding one Lease per node (spec 001 §2.2). */
export const NODE_LEASE_NAMESPACE = 'node-lease';
export const LEASE_STRATEGIES = ['OldestEmulationVersion'] as const;

interface Lease extends ApiObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    strategy?: string;
    preferredHolder?: string;
  };
}

export const leaseStrategy = defineStrategy({
  group: 'coordination.orch.io',
  version: 'v1',
  kind: 'Lease',
  resource: 'leases',
  singular: 'lease',
  namespaced: true,
  hasStatus: false,
  // Upstream's lease registry does not return the deleted object.
  deleteResponse: 'status',
  description: 'A lock held for a limited time by one holder, renewed while the holder lives: node heartbeats (one per node in `node-lease`) and leader election.',
  schema: {
    spec: t.object(
      {
        holderIdentity: t.string('Identity of the current holder.'),
        leaseDurationSeconds: t.integer('Seconds after renewTime that other candidates wait before taking the lease over. Positive.'),
        acquireTime: t.string('When the current holder acquired the lease (MicroTime).'),
        renewTime: t.string('When the holder last renewed the lease (MicroTime).'),
        leaseTransitions: t.integer('How many times the lease has changed holder. Not negative.'),
        strategy: t.string('How a coordinated leader is chosen: OldestEmulationVersion, or a domain-prefixed name of an external strategy.'),
        preferredHolder: t.string('Holder the strategy would like to take over; may only be set with strategy.'),
      },
      'Holder and timing of the lease.',
    ),
  },

  defaults(o: ApiObject): void {
    const spec = (o as Lease).spec;
    if (!spec) return;
    if (spec.acquireTime !== undefined) spec.acquireTime = normalizeMicroTime(spec.acquireTime) as string;
    if (spec.renewTime !== undefined) spec.renewTime = normalizeMicroTime(spec.renewTime) as string;
  },

  validate(o: ApiObject): FieldError[] {
    const spec = (o as Lease).spec ?? {};
    const at = path('spec');
    const errs: FieldError[] = [];
    if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
      errs.push(fieldErrors.invalid(at.child('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
    }
    if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
      errs.push(fieldErrors.invalid(at.child('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
    }
    errs.push(...validateTime(spec.acquireTime, at.child('acquireTime')));
    errs.push(...validateTime(spec.renewTime, at.child('renewTime')));
    if (spec.strategy !== undefined) {
      // Upstream ValidateCoordinatedLeaseStrategy: a bare name is one of the built-in strategies,
      // a prefixed one (`example.com/mine`) any qualified name.
      if (!spec.strategy.includes('/')) {
        if (!(LEASE_STRATEGIES as readonly string[]).includes(spec.strategy)) {
          errs.push(fieldErrors.notSupported(at.child('strategy'), spec.strategy, LEASE_STRATEGIES));
        }
      } else {
        for (const m of isQualifiedName(spec.strategy)) errs.push(fieldErrors.invalid(at.child('strategy'), spec.strategy, m));
      }
    }
    if (spec.preferredHolder && !spec.strategy) {
      errs.push(fieldErrors.forbidden(at.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
    }
    return errs;
  },
});
