// Per-kind Table columns, keyed by API group and kind, with upstream's column names, types, order
// and priorities (pkg/printers/internalversion/printers.go) and cells computed the way upstream's
// printers compute them. Kinds upstream has no printer for (Role, ClusterRole, PodGroup, Eviction,
// EvictionRequest...) get upstream's default: Name and Created At.
//
// Label and annotation names upstream spells with `kubernetes.io` are spelled with `orch.io` here,
// as the spec does for every such prefix (`orch.io/metadata.name`, `orch.io/initial-events-end`).
import type { ApiObject } from '../strategy.js';
import { RBAC_GROUP } from '../../resources/rbac.js';
import { coreEventCodec } from '../../resources/core-event.js';
import { age, timestampMs } from './age.js';
import { podPrinter } from './pod-printer.js';
import {
  AGE_COLUMN,
  NAME_COLUMN,
  ageOf,
  at,
  column,
  firstNonEmpty,
  isSet,
  list,
  nameOf,
  num,
  orNone,
  rec,
  str,
  type Cell,
  type Json,
  type Printer,
} from './columns.js';

export type { Printer } from './columns.js';

/** Node roles: `node-role.orch.io/<role>` labels (any value), and the older `orch.io/role=<role>`. */
const NODE_ROLE_PREFIX = 'node-role.orch.io/';
const NODE_ROLE_LABEL = 'orch.io/role';
/** The annotations marking the cluster's default StorageClass (`true`), current and beta. */
const DEFAULT_CLASS_ANNOTATIONS = ['storageclass.orch.io/is-default-class', 'storageclass.beta.orch.io/is-default-class'];

const nodePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', "The node's Ready condition (Ready, NotReady, or Unknown when not reported), and SchedulingDisabled when cordoned."),
    column('Roles', 'string', "The roles named by the node's node-role labels."),
    AGE_COLUMN,
    column('Version', 'string', 'The version of the node agent (status.nodeInfo.agentVersion).'),
    column('Internal-IP', 'string', "The node's first InternalIP address.", { priority: 1 }),
    column('External-IP', 'string', "The node's first ExternalIP address.", { priority: 1 }),
    column('OS-Image', 'string', 'The operating system image the node reports.', { priority: 1 }),
    column('Kernel-Version', 'string', 'The kernel version the node reports.', { priority: 1 }),
    column('Container-Runtime', 'string', 'The container runtime and its version, as the node reports them.', { priority: 1 }),
  ],
  cells(node: ApiObject, now: number): Cell[] {
    const ready = list(at(node, 'status', 'conditions')).find((c) => c['type'] === 'Ready');
    const status = [ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady'];
    if (at(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
    const info = rec(at(node, 'status', 'nodeInfo'));
    const address = (type: string): string => orNone(str(list(at(node, 'status', 'addresses')).find((a) => a['type'] === type)?.['address']));
    const orUnknown = (s: string): string => s || '<unknown>';
    return [
      nameOf(node),
      status.join(','),
      orNone(nodeRoles(node.metadata?.labels ?? {}).join(',')),
      ageOf(node, now),
      str(info['agentVersion']),
      address('InternalIP'),
      address('ExternalIP'),
      orUnknown(str(info['osImage'])),
      orUnknown(str(info['kernelVersion'])),
      orUnknown(str(info['containerRuntimeVersion'])),
    ];
  },
};

/** The sorted, distinct roles the labels give a node. */
function nodeRoles(labels: Record<string, string>): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith(NODE_ROLE_PREFIX) && k.length > NODE_ROLE_PREFIX.length) roles.add(k.slice(NODE_ROLE_PREFIX.length));
    else if (k === NODE_ROLE_LABEL && v !== '') roles.add(v);
  }
  return [...roles].sort();
}

const namespacePrinter: Printer = {
  columns: [NAME_COLUMN, column('Status', 'string', "The namespace's phase: Active, or Terminating while it is being deleted."), AGE_COLUMN],
  cells: (ns, now) => [nameOf(ns), str(at(ns, 'status', 'phase')), ageOf(ns, now)],
};

const resourceQuotaPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Request', 'string', 'Used and hard amounts of every limited resource but the limits.* ones, as used/hard.'),
    column('Limit', 'string', 'Used and hard amounts of the limits.* resources, as used/hard.'),
    AGE_COLUMN,
  ],
  cells(quota: ApiObject, now: number): Cell[] {
    const hard = rec(at(quota, 'status', 'hard'));
    const used = rec(at(quota, 'status', 'used'));
    const requests: string[] = [];
    const limits: string[] = [];
    // Sorted by name (byte order, as upstream sorts them).
    for (const name of Object.keys(hard).sort(byteOrder)) {
      const entry = `${name}: ${str(used[name]) || '0'}/${str(hard[name])}`;
      (name.startsWith('limits.') ? limits : requests).push(entry);
    }
    return [nameOf(quota), requests.join(', '), limits.join(', '), ageOf(quota, now)];
  },
};

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const storageClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', 'The volume plugin that provisions volumes of this class.'),
    column('ReclaimPolicy', 'string', 'What happens to volumes of this class once released: Delete (the default) or Retain.'),
    column('VolumeBindingMode', 'string', 'When claims are provisioned and bound: Immediate (the default) or WaitForFirstConsumer.'),
    column('AllowVolumeExpansion', 'string', 'Whether volumes of this class may be expanded.'),
    AGE_COLUMN,
  ],
  cells(sc: ApiObject, now: number): Cell[] {
    const annotations = sc.metadata?.annotations ?? {};
    const isDefault = DEFAULT_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
    return [
      isDefault ? `${nameOf(sc)} (default)` : nameOf(sc),
      str(sc['provisioner']),
      str(sc['reclaimPolicy']) || 'Delete',
      str(sc['volumeBindingMode']) || 'Immediate',
      sc['allowVolumeExpansion'] === true,
      ageOf(sc, now),
    ];
  },
};

const leasePrinter: Printer = {
  columns: [NAME_COLUMN, column('Holder', 'string', 'Who holds the lease now (spec.holderIdentity).'), AGE_COLUMN],
  cells: (lease, now) => [nameOf(lease), str(at(lease, 'spec', 'holderIdentity')), ageOf(lease, now)],
};

/** RoleBindings and ClusterRoleBindings: the role, and with `-o wide` who is bound to it. */
function bindingPrinter(kindWord: string): Printer {
  return {
    columns: [
      NAME_COLUMN,
      column('Role', 'string', 'The role granted, as Kind/name.'),
      AGE_COLUMN,
      column('Users', 'string', `Users bound by the ${kindWord}.`, { priority: 1 }),
      column('Groups', 'string', `Groups bound by the ${kindWord}.`, { priority: 1 }),
      column('ServiceAccounts', 'string', `Service accounts bound by the ${kindWord}, as namespace/name.`, { priority: 1 }),
    ],
    cells(binding: ApiObject, now: number): Cell[] {
      const ref = rec(binding['roleRef']);
      const subjects = list(binding['subjects']);
      const names = (kind: string, name: (s: Json) => string): string => subjects.filter((s) => s['kind'] === kind).map(name).join(', ');
      return [
        nameOf(binding),
        `${str(ref['kind'])}/${str(ref['name'])}`,
        ageOf(binding, now),
        names('User', (s) => str(s['name'])),
        names('Group', (s) => str(s['name'])),
        names('ServiceAccount', (s) => `${str(s['namespace'])}/${str(s['name'])}`),
      ];
    },
  };
}

/**
 * events.orch.io Events, shown as upstream shows Events (it serves both of its Event APIs from one
 * store): the deprecated* fields are the old API's, series replaces count and last seen.
 */
const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', 'How long ago the event was last seen.'),
    column('Type', 'string', 'Normal or Warning.'),
    column('Reason', 'string', 'Why the action was taken, in one word.'),
    column('Object', 'string', 'The object the event is about, as kind/name.'),
    column('Subobject', 'string', 'The part of the object the event is about (regarding.fieldPath).', { priority: 1 }),
    column('Source', 'string', 'The component (and instance) that reported the event.', { priority: 1 }),
    column('Message', 'string', 'What happened, for people to read.'),
    column('First Seen', 'string', 'How long ago the event was first seen.', { priority: 1 }),
    column('Count', 'string', 'How many times the event was seen.', { priority: 1 }),
    column('Name', 'string', "The Event object's name.", { format: 'name', priority: 1 }),
  ],
  cells(ev: ApiObject, now: number): Cell[] {
    // First seen: the old API's timestamp, else the new API's eventTime; last seen: the series' last
    // observation, else the old API's timestamp, else first seen.
    const firstSeen = age(timestampMs(ev['deprecatedFirstTimestamp']) !== undefined ? ev['deprecatedFirstTimestamp'] : ev['eventTime'], now);
    let lastSeen = timestampMs(ev['deprecatedLastTimestamp']) !== undefined ? age(ev['deprecatedLastTimestamp'], now) : firstSeen;
    let count = num(ev['deprecatedCount']);
    const series = ev['series'];
    if (isSet(series)) {
      lastSeen = age(at(series, 'lastObservedTime'), now);
      count = num(at(series, 'count'));
    } else if (count === 0) {
      count = 1; // events of the new API are singletons unless they have a series
    }
    const regarding = rec(ev['regarding']);
    const kind = str(regarding['kind']).toLowerCase();
    const target = str(regarding['name']) ? `${kind}/${str(regarding['name'])}` : kind;
    const source = rec(ev['deprecatedSource']);
    const component = firstNonEmpty(str(source['component']), str(ev['reportingController']));
    const instance = firstNonEmpty(str(source['host']), str(ev['reportingInstance']));
    return [
      lastSeen,
      str(ev['type']),
      str(ev['reason']),
      target,
      str(regarding['fieldPath']),
      instance ? `${component}, ${instance}` : component,
      str(ev['note']).trim(),
      firstSeen,
      count,
      nameOf(ev),
    ];
  },
};

/** Core v1 Events (`kubectl get events`): the same columns, read through upstream's field mapping. */
const coreEventPrinter: Printer = {
  columns: eventPrinter.columns,
  cells: (ev: ApiObject, now: number) => eventPrinter.cells(coreEventCodec.toStored(ev) as ApiObject, now),
};

const storageVersionMigrationPrinter: Printer = {
  // Upstream's Name column here carries no `name` format.
  columns: [column('Name', 'string', NAME_COLUMN.description), column('Resource', 'string', 'The resource whose stored objects are migrated, as resource.group.')],
  cells(svm: ApiObject): Cell[] {
    const r = rec(at(svm, 'spec', 'resource'));
    const group = str(r['group']);
    return [nameOf(svm), group ? `${str(r['resource'])}.${group}` : str(r['resource'])];
  },
};

/** Upstream's default table convertor: the name and the creation time as an RFC 3339 date. */
export const defaultPrinter: Printer = {
  columns: [NAME_COLUMN, column('Created At', 'date', 'When the object was created (metadata.creationTimestamp).')],
  cells(obj: ApiObject): Cell[] {
    const ms = timestampMs(obj.metadata?.creationTimestamp);
    // Go prints its zero time for an unset one.
    return [nameOf(obj), ms === undefined ? '0001-01-01T00:00:00Z' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')];
  },
};

const PRINTERS = new Map<string, Printer>([
  ['/Pod', podPrinter],
  ['/Node', nodePrinter],
  ['/Namespace', namespacePrinter],
  ['/ResourceQuota', resourceQuotaPrinter],
  ['/Event', coreEventPrinter],
  ['storage.orch.io/StorageClass', storageClassPrinter],
  ['coordination.orch.io/Lease', leasePrinter],
  ['events.orch.io/Event', eventPrinter],
  [`${RBAC_GROUP}/RoleBinding`, bindingPrinter('role binding')],
  [`${RBAC_GROUP}/ClusterRoleBinding`, bindingPrinter('cluster role binding')],
  ['storagemigration.orch.io/StorageVersionMigration', storageVersionMigrationPrinter],
]);

/** The printer of a kind (`group` '' for the core group), or the default one. */
export function printerFor(group: string, kind: string): Printer {
  return PRINTERS.get(`${group}/${kind}`) ?? defaultPrinter;
}
