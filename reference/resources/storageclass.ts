// StorageClass, storage.orch.io/v1 (spec §2.2). Rules follow upstream pkg/apis/storage/validation,
// except that reclaimPolicy also allows Recycle, as the spec says.
import {
  FieldPath,
  deepEqual,
  fieldErrors,
  path,
  validateImmutable,
  validateLabelName,
  validateQualifiedName,
  type FieldError,
} from '../apiserver/field-errors.js';
import { t } from '../apiserver/schema.js';
import { defineStrategy, type ApiObject } from '../apiserver/strategy.js';

export const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'] as const;
export const VOLUME_BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'] as const;
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

interface TopologyRequirement {
  key?: string;
  values?: string[];
}

interface StorageClass extends ApiObject {
  provisioner?: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: string;
  mountOptions?: string[];
  allowVolumeExpansion?: boolean;
  volumeBindingMode?: string;
  allowedTopologies?: Array<{ matchLabelExpressions?: TopologyRequirement[] }>;
}

export const storageClassStrategy = defineStrategy({
  group: 'storage.orch.io',
  version: 'v1',
  kind: 'StorageClass',
  resource: 'storageclasses',
  singular: 'storageclass',
  shortNames: ['sc'],
  namespaced: false,
  hasStatus: false,
  deleteResponse: 'object',
  description: 'Parameters of a class of storage for which persistent volumes are dynamically provisioned. Cluster-scoped.',
  required: ['provisioner'],
  schema: {
    provisioner: t.string('Type of the provisioner.'),
    parameters: t.map(t.string(), 'Parameters passed to the provisioner.'),
    reclaimPolicy: t.string(
      'Reclaim policy of dynamically provisioned volumes. Default `Delete`. Allowed: `Delete` (volume deleted on release from its claim; plugin must support deletion), `Recycle` (volume recycled into the pool of unbound volumes; plugin must support recycling), `Retain` (volume left in phase Released for manual reclamation).',
    ),
    mountOptions: t.array(t.string(), 'Mount options of provisioned volumes. Not validated; mounting simply fails if an option is invalid.'),
    allowVolumeExpansion: t.boolean('Whether volumes of this class may be expanded.'),
    volumeBindingMode: t.string(
      'Default `Immediate`. Allowed: `Immediate` (claims provisioned and bound at once), `WaitForFirstConsumer` (provisioning and binding wait until the first pod referencing the claim is created; happens during pod scheduling). Honored only when the VolumeScheduling feature is enabled.',
    ),
    allowedTopologies: t.array(
      t.object(
        {
          matchLabelExpressions: t.array(
            t.object(
              {
                key: t.string('Label key.'),
                values: t.array(t.string(), 'One value must match the label; entries are ORed.'),
              },
              'TopologySelectorLabelRequirement: a label key and the values that match it.',
              ['key', 'values'],
            ),
            'Requirements of the term; they are ANDed.',
          ),
        },
        'TopologySelectorTerm: requirements within a term are ANDed. A null or empty term matches no objects. Alpha, may change.',
      ),
      'Restricts node topologies where volumes may be provisioned. An empty list means no restriction. Honored only when VolumeScheduling is enabled.',
    ),
  },

  defaults(o: ApiObject): void {
    const sc = o as StorageClass;
    // A pointer upstream: only absence (or null) is defaulted, an empty string stays.
    if (sc.reclaimPolicy === undefined) sc.reclaimPolicy = 'Delete';
    if (sc.volumeBindingMode === undefined) sc.volumeBindingMode = 'Immediate';
  },

  validate(o: ApiObject): FieldError[] {
    const sc = o as StorageClass;
    const errs: FieldError[] = [];
    const provisioner = sc.provisioner ?? '';
    if (!provisioner) errs.push(fieldErrors.required('provisioner'));
    else errs.push(...validateQualifiedName(provisioner.toLowerCase(), 'provisioner').map((e) => ({ ...e, badValue: provisioner })));
    errs.push(...validateParameters(sc.parameters));
    if (sc.reclaimPolicy && !(RECLAIM_POLICIES as readonly string[]).includes(sc.reclaimPolicy)) {
      errs.push(fieldErrors.notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
    }
    if (sc.volumeBindingMode === undefined) errs.push(fieldErrors.required('volumeBindingMode'));
    else if (!(VOLUME_BINDING_MODES as readonly string[]).includes(sc.volumeBindingMode)) {
      errs.push(fieldErrors.notSupported('volumeBindingMode', sc.volumeBindingMode, VOLUME_BINDING_MODES));
    }
    errs.push(...validateAllowedTopologies(sc.allowedTopologies));
    return errs;
  },

  validateUpdate(o: ApiObject, oldObj: ApiObject): FieldError[] {
    const sc = o as StorageClass;
    const old = oldObj as StorageClass;
    const errs: FieldError[] = [];
    // Upstream compares maps with reflect.DeepEqual, where nil and empty differ.
    if (!deepEqual(sc.parameters ?? null, old.parameters ?? null)) {
      errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
    }
    if ((sc.provisioner ?? '') !== (old.provisioner ?? '')) {
      errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
    }
    if (sc.reclaimPolicy !== old.reclaimPolicy) {
      errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    }
    errs.push(...validateImmutable(sc.volumeBindingMode ?? null, old.volumeBindingMode ?? null, 'volumeBindingMode'));
    return errs;
  },
});

function validateParameters(params: Record<string, string> | undefined): FieldError[] {
  if (!params) return [];
  const keys = Object.keys(params);
  // Upstream reports the entry count with TooLong (so "bytes"), kept for identical messages.
  if (keys.length > MAX_PARAMETERS) return [fieldErrors.tooLong('parameters', 'Provisioner Parameters exceeded max allowed', MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of keys) {
    if (k.length < 1) errs.push(fieldErrors.invalid('parameters', k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(params[k]!);
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(fieldErrors.tooLong('parameters', '', MAX_PARAMETERS_SIZE));
  return errs;
}

function validateAllowedTopologies(terms: StorageClass['allowedTopologies']): FieldError[] {
  if (!terms || terms.length === 0) return [];
  const errs: FieldError[] = [];
  const seen: Array<Map<string, Set<string>>> = [];
  const base = path('allowedTopologies');
  terms.forEach((term, i) => {
    const at = base.index(i);
    const exprs = validateTopologySelectorTerm(term.matchLabelExpressions ?? [], at.child('matchLabelExpressions'), errs);
    if (seen.some((s) => sameTerm(s, exprs))) errs.push(fieldErrors.duplicate(at.child('matchLabelExpressions'), ''));
    seen.push(exprs);
  });
  return errs;
}

function validateTopologySelectorTerm(reqs: TopologyRequirement[], at: FieldPath, errs: FieldError[]): Map<string, Set<string>> {
  const exprs = new Map<string, Set<string>>();
  reqs.forEach((req, i) => {
    const rAt = at.index(i);
    const valuesAt = rAt.child('values');
    const values = new Set<string>();
    if (!req.values || req.values.length === 0) errs.push(fieldErrors.required(valuesAt));
    (req.values ?? []).forEach((v, j) => {
      if (values.has(v)) errs.push(fieldErrors.duplicate(valuesAt.index(j), v));
      values.add(v);
    });
    const key = req.key ?? '';
    errs.push(...validateLabelName(key, rAt.child('key')));
    if (exprs.has(key)) errs.push(fieldErrors.duplicate(rAt.child('key'), key));
    exprs.set(key, values);
  });
  return exprs;
}

function sameTerm(a: Map<string, Set<string>>, b: Map<string, Set<string>>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, va] of a) {
    const vb = b.get(k);
    if (!vb || vb.size !== va.size) return false;
    for (const v of va) if (!vb.has(v)) return false;
  }
  return true;
}
