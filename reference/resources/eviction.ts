// Eviction, lifecycle.orch.io/v1alpha1: the object the eviction-request controller makes for one
// target out of every EvictionRequest naming it (spec 000 §1, §3.1, §6; its fields are "not shown" in
// the spec, so they follow upstream KEP-4563 and pkg/apis/lifecycle, see controllers.md §1).
// Responders watch Evictions and report progress in their status. Served with EvictionRequest (same
// group, no gate in this reference either).
import {
  FieldPath,
  deepEqual,
  fieldErrors,
  isDNS1123Subdomain,
  isUUID,
  path,
  validateConditions,
  type Condition,
  type FieldError,
} from '../apiserver/field-errors.js';
import { conditionSchema, t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';
import { EVICTION_REQUEST_INTENTS, EVICTION_TARGET_SCHEMA } from './evictionrequest.js';

export const MAX_EVICTION_CONDITIONS = 100;
/** status.requesters keeps at most this many entries (upstream: the controller stops adding). */
export const MAX_EVICTION_REQUESTERS = 100;
export const RESPONDER_STATES = ['Inactive', 'Active', 'Completed', 'Interrupted', 'Canceled'] as const;
/** Conditions that are final once True (upstream validation: they cannot be reverted). */
export const FINAL_EVICTION_CONDITIONS = ['TargetEvicted', 'Failed'] as const;

export interface Eviction extends ApiObject {
  spec?: { target?: { pod?: { name?: string; uid?: string } } };
  status?: {
    observedGeneration?: number;
    requesters?: Array<{ name?: string; intent?: string }>;
    targetResponders?: Array<{ name?: string; priority?: number; state?: string }>;
    responders?: Array<{ name?: string; startTime?: string; heartbeatTime?: string; completionTime?: string; message?: string }>;
    conditions?: Condition[];
  };
}

const SPEC = path('spec');
const STATUS = path('status');
const immutable = (p: FieldPath): FieldError => fieldErrors.forbidden(p, 'field is immutable');

export const evictionStrategy = defineStrategy({
  group: 'lifecycle.orch.io',
  version: 'v1alpha1',
  kind: 'Eviction',
  resource: 'evictions',
  singular: 'eviction',
  namespaced: true,
  hasStatus: true,
  deleteResponse: 'status',
  allowUnconditionalUpdate: false,
  specFields: ['spec'],
  patchStrategies: {
    'status.conditions': { strategy: 'merge', mergeKey: 'type' },
    'status.requesters': { strategy: 'merge', mergeKey: 'name' },
    'status.targetResponders': { strategy: 'merge', mergeKey: 'name' },
    'status.responders': { strategy: 'merge', mergeKey: 'name' },
  },
  description:
    'The eviction of one target, made by the eviction-request controller from every EvictionRequest naming it; responders watch it and report their progress in its status.',
  required: ['spec'],
  schema: {
    spec: t.object(
      { target: t.describe(EVICTION_TARGET_SCHEMA, 'The object being evicted, as the EvictionRequests name it. Immutable.') },
      'What is evicted.',
      ['target'],
    ),
    status: t.object(
      {
        observedGeneration: t.integer('The metadata.generation the controller last acted on. At least 1 and never decremented.'),
        requesters: t.array(
          t.object(
            {
              name: t.string('The requester, as in its EvictionRequest spec.requester.'),
              intent: t.string('Its current intent: Eviction or Withdrawn (also Withdrawn once its request is deleted).'),
            },
            'One requester of the eviction.',
            ['name', 'intent'],
          ),
          'Every requester that asked for this eviction; entries stay once added (at most 100). Merged on name.',
        ),
        targetResponders: t.array(
          t.object(
            {
              name: t.string('Name of the responder.'),
              priority: t.integer('Order of the responder: the highest priority becomes Active first.'),
              state: t.string('Inactive, Active, Completed, Interrupted or Canceled.'),
            },
            'One responder the target declares, with its progress.',
            ['name', 'state'],
          ),
          'The responders that act on the target, one Active at a time by priority. Merged on name.',
        ),
        responders: t.array(
          t.object(
            {
              name: t.string('Name of the responder.'),
              startTime: t.string('When the responder became Active.'),
              heartbeatTime: t.string('When the responder last reported it is still working.'),
              completionTime: t.string('When the responder finished.'),
              message: t.string('Human-readable progress report of the responder.'),
            },
            "One responder's report.",
            ['name'],
          ),
          'Reports of the responders that have become Active. Merged on name.',
        ),
        conditions: t.array(conditionSchema, 'TargetEvicted and Failed, managed by the controller; final once True. At most 100. Merged on type.'),
      },
      'Progress of the eviction, written by the controller and the responders.',
    ),
  },

  validate(o: ApiObject): FieldError[] {
    const ev = o as Eviction;
    const errs: FieldError[] = [];
    if (ev.spec === undefined) errs.push(fieldErrors.required(SPEC));
    else errs.push(...validateTarget(ev.spec.target));
    errs.push(...validateStatus(ev.status));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const ev = o as Eviction;
    const old = oldObj as Eviction;
    const errs: FieldError[] = [];
    if (!deepEqual(ev.spec?.target ?? {}, old.spec?.target ?? {})) errs.push(immutable(SPEC.child('target')));
    const gen = ev.status?.observedGeneration;
    const oldGen = old.status?.observedGeneration;
    if (oldGen !== undefined && (gen ?? 0) < oldGen) {
      errs.push(fieldErrors.invalid(STATUS.child('observedGeneration'), gen ?? null, `cannot decrement, must be greater than or equal to ${oldGen}`));
    }
    // TargetEvicted and Failed are final once True.
    const now = new Map((ev.status?.conditions ?? []).map((c) => [c.type, c.status]));
    for (const c of old.status?.conditions ?? []) {
      if ((FINAL_EVICTION_CONDITIONS as readonly string[]).includes(c.type ?? '') && c.status === 'True' && now.get(c.type) !== 'True') {
        errs.push(fieldErrors.forbidden(STATUS.child('conditions'), `${c.type} condition status cannot be reverted`));
      }
    }
    return errs;
  },
});

function validateTarget(target: NonNullable<Eviction['spec']>['target']): FieldError[] {
  const at = SPEC.child('target');
  if (target === undefined) return [fieldErrors.required(at)];
  if (target.pod === undefined) return [fieldErrors.invalid(at, '', 'must specify one of: `pod`')];
  const errs: FieldError[] = [];
  const podAt = at.child('pod');
  const name = target.pod.name ?? '';
  if (!name) errs.push(fieldErrors.required(podAt.child('name')));
  else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(podAt.child('name'), name, m));
  const uid = target.pod.uid ?? '';
  if (!uid) errs.push(fieldErrors.required(podAt.child('uid')));
  else if (!isUUID(uid)) errs.push(fieldErrors.invalid(podAt.child('uid'), uid, 'must be a lowercase UUID in 8-4-4-4-12 format'));
  return errs;
}

function validateStatus(status: Eviction['status']): FieldError[] {
  if (!status) return [];
  const errs: FieldError[] = [];
  const gen = status.observedGeneration;
  if (gen !== undefined && gen < 1) errs.push(fieldErrors.invalid(STATUS.child('observedGeneration'), gen, 'must be greater than or equal to 1'));

  const reqAt = STATUS.child('requesters');
  const requesters = status.requesters ?? [];
  if (requesters.length > MAX_EVICTION_REQUESTERS) errs.push(fieldErrors.tooMany(reqAt, requesters.length, MAX_EVICTION_REQUESTERS));
  errs.push(...uniqueNames(requesters, reqAt));
  requesters.forEach((r, i) => {
    if (!r.intent) errs.push(fieldErrors.required(reqAt.index(i).child('intent')));
    else if (!(EVICTION_REQUEST_INTENTS as readonly string[]).includes(r.intent)) errs.push(fieldErrors.notSupported(reqAt.index(i).child('intent'), r.intent, EVICTION_REQUEST_INTENTS));
  });

  const trAt = STATUS.child('targetResponders');
  const targetResponders = status.targetResponders ?? [];
  errs.push(...uniqueNames(targetResponders, trAt));
  targetResponders.forEach((r, i) => {
    if (!r.state) errs.push(fieldErrors.required(trAt.index(i).child('state')));
    else if (!(RESPONDER_STATES as readonly string[]).includes(r.state)) errs.push(fieldErrors.notSupported(trAt.index(i).child('state'), r.state, RESPONDER_STATES));
  });

  errs.push(...uniqueNames(status.responders ?? [], STATUS.child('responders')));

  const conditionsAt = STATUS.child('conditions');
  const conditions = status.conditions ?? [];
  if (conditions.length > MAX_EVICTION_CONDITIONS) errs.push(fieldErrors.tooMany(conditionsAt, conditions.length, MAX_EVICTION_CONDITIONS));
  else errs.push(...validateConditions(conditions, conditionsAt));
  return errs;
}

/** Entries of a list keyed by `name`: the name is required and unique. */
function uniqueNames(items: ReadonlyArray<{ name?: string }>, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  items.forEach((it, i) => {
    const name = it.name ?? '';
    if (!name) errs.push(fieldErrors.required(at.index(i).child('name')));
    else if (seen.has(name)) errs.push(fieldErrors.duplicate(at.index(i).child('name'), name));
    seen.add(name);
  });
  return errs;
}
