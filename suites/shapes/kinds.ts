// The field types of each kind of spec 000 §2, as the cases check them: the reference's declaration of
// the kind (its strategy's `schema` and `required`, written from the spec's tables), plus where the
// spec stops showing types, read row by row from §2 (see json-schema.ts for what each part checks).
import { t } from '../../reference/apiserver/schema.js';
import type { ResourceStrategy } from '../../reference/apiserver/strategy.js';
import { storageClassStrategy } from '../../reference/resources/storageclass.js';
import { storageVersionMigrationStrategy } from '../../reference/resources/storageversionmigration.js';
import { resourceQuotaStrategy } from '../../reference/resources/resourcequota.js';
import { evictionRequestStrategy } from '../../reference/resources/evictionrequest.js';
import { podGroupStrategy } from '../../reference/resources/podgroup.js';
import { eventStrategy } from '../../reference/resources/event.js';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategy } from '../../reference/resources/rbac.js';
import type { ValidateFunction } from 'ajv';
import { listNotShown, listSchema, objectNotShown, objectSchema, toJsonSchema, type KindTypes, type NotShown, type NotShownPaths, type Part } from './json-schema.js';
import { validatorFor } from './validate.js';

export interface KindShape {
  readonly kind: string;
  readonly types: KindTypes;
  /** The kind's own places whose types the spec does not show (ObjectMeta is common to all). */
  readonly notShown: NotShownPaths;
  /**
   * §2 shows none of the kind's own fields (ClusterRoleBinding, Role, RoleBinding: "not shown"): only
   * §2.1's common fields are the spec's; all the rest is upstream's.
   */
  readonly fieldsNotShown: boolean;
}

/** A named struct type whose fields the spec does not show (Condition, ObjectReference, ...). */
const STRUCT: NotShown = { spec: 'object' };
/** MicroTime and Time: the spec names the type, not its JSON form (upstream: an RFC 3339 string). */
const TIME: NotShown = { spec: 'any' };
/** A quantity: the spec says "quantity"; upstream accepts a string or a number and writes a string. */
const QUANTITY: NotShown = { spec: 'any', served: t.string() };

const typesOf = (s: ResourceStrategy): KindTypes => ({ properties: s.schema, ...(s.required ? { required: s.required } : {}) });

function shape(s: ResourceStrategy, notShown: NotShownPaths): KindShape {
  return { kind: s.kind, types: typesOf(s), notShown, fieldsNotShown: false };
}

/** Every own field of the kind is upstream's: the spec part checks none of them. */
function unshown(s: ResourceStrategy): KindShape {
  const notShown = Object.fromEntries(Object.keys(s.schema).map((k) => [k, { spec: 'any', upstreamRequired: true } as NotShown]));
  return { kind: s.kind, types: typesOf(s), notShown, fieldsNotShown: true };
}

export const KIND_SHAPES: readonly KindShape[] = [
  // §2.2: parameters is "object (map)", its values' type not given (upstream: strings).
  shape(storageClassStrategy, { 'parameters{}': { spec: 'any' } }),
  // §2.3: spec.resource is a GroupResource, status.conditions an array of Condition.
  shape(storageVersionMigrationStrategy, { 'spec.resource': STRUCT, 'status.conditions[]': STRUCT }),
  // §2.4: hard is a map of resource name to quantity; status.hard and status.used are objects.
  shape(resourceQuotaStrategy, { 'spec.hard{}': QUANTITY, 'status.hard{}': QUANTITY, 'status.used{}': QUANTITY }),
  // §2.5: status.conditions is an array of Condition.
  shape(evictionRequestStrategy, { 'status.conditions[]': STRUCT }),
  // §2.6: conditions; "Fields of PodGroupResourceClaimStatus: not shown".
  shape(podGroupStrategy, { 'status.conditions[]': STRUCT, 'status.resourceClaimStatuses[]': STRUCT }),
  // §2.7: MicroTime and Time values, ObjectReference and EventSource.
  shape(eventStrategy, {
    eventTime: TIME,
    'series.lastObservedTime': TIME,
    deprecatedFirstTimestamp: TIME,
    deprecatedLastTimestamp: TIME,
    regarding: STRUCT,
    related: STRUCT,
    deprecatedSource: STRUCT,
  }),
  // §2.8: rules is an array of PolicyRule, clusterRoleSelectors of LabelSelector ("not shown").
  shape(clusterRoleStrategy, { 'rules[]': STRUCT, 'aggregationRule.clusterRoleSelectors[]': STRUCT }),
  unshown(clusterRoleBindingStrategy),
  unshown(roleStrategy),
  unshown(roleBindingStrategy),
];

export function kindShape(kind: string): KindShape {
  const s = KIND_SHAPES.find((k) => k.kind === kind);
  if (!s) throw new Error(`no field types for kind ${kind}`);
  return s;
}

/** The compiled validators of one part of a kind's types: for its objects and for its lists. */
export function validatorsOf(k: KindShape, part: Part): { object: ValidateFunction; list: ValidateFunction } {
  return {
    object: validatorFor(`${k.kind} object ${part}`, () => toJsonSchema(objectSchema(k.types), objectNotShown(k.notShown), part)),
    list: validatorFor(`${k.kind} list ${part}`, () => toJsonSchema(listSchema(k.types), listNotShown(k.notShown), part)),
  };
}
