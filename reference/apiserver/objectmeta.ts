// ObjectMeta rules shared by every resource (upstream apimachinery/pkg/api/validation/objectmeta.go).
import {
  FieldPath,
  fieldErrors,
  isDNS1123Label,
  isQualifiedName,
  validateAnnotations,
  validateImmutable,
  validateLabels,
  type FieldError,
  type NameValidator,
} from './field-errors.js';
import type { ObjectMeta } from './strategy.js';

const META = FieldPath.root('metadata');
const P = {
  name: META.child('name'),
  generateName: META.child('generateName'),
  namespace: META.child('namespace'),
  labels: META.child('labels'),
  annotations: META.child('annotations'),
  ownerReferences: META.child('ownerReferences'),
  finalizers: META.child('finalizers'),
  resourceVersion: META.child('resourceVersion'),
  generation: META.child('generation'),
  uid: META.child('uid'),
  creationTimestamp: META.child('creationTimestamp'),
  deletionTimestamp: META.child('deletionTimestamp'),
  deletionGracePeriodSeconds: META.child('deletionGracePeriodSeconds'),
};

const goStringSlice = (xs: readonly string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const m of nameFn(meta.generateName, true)) errs.push(fieldErrors.invalid(P.generateName, meta.generateName, m));
  }
  if (!meta.name) {
    errs.push(fieldErrors.required(P.name, 'name or generateName is required'));
  } else {
    for (const m of nameFn(meta.name, false)) errs.push(fieldErrors.invalid(P.name, meta.name, m));
  }
  if (namespaced) {
    if (!meta.namespace) errs.push(fieldErrors.required(P.namespace));
    else for (const m of isDNS1123Label(meta.namespace)) errs.push(fieldErrors.invalid(P.namespace, meta.namespace, m));
  } else if (meta.namespace) {
    errs.push(fieldErrors.forbidden(P.namespace, 'not allowed on this type'));
  }
  if (meta.generation !== undefined && meta.generation < 0) {
    errs.push(fieldErrors.invalid(P.generation, meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateLabels(meta.labels, P.labels));
  errs.push(...validateAnnotations(meta.annotations, P.annotations));
  errs.push(...validateOwnerReferences(meta.ownerReferences, P.ownerReferences));
  errs.push(...validateFinalizers(meta.finalizers, P.finalizers));
  return errs;
}

export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const before = new Set(old.finalizers ?? []);
    const extra = [...new Set((meta.finalizers ?? []).filter((f) => !before.has(f)))].sort();
    if (extra.length) {
      errs.push(
        fieldErrors.forbidden(
          P.finalizers,
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  if (!meta.resourceVersion) errs.push(fieldErrors.invalid(P.resourceVersion, meta.resourceVersion ?? '', 'must be specified for an update'));
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(fieldErrors.invalid(P.generation, meta.generation ?? 0, 'must not be decremented'));
  }
  errs.push(...validateImmutable(meta.name ?? '', old.name ?? '', P.name));
  errs.push(...validateImmutable(meta.namespace ?? '', old.namespace ?? '', P.namespace));
  errs.push(...validateImmutable(meta.uid ?? '', old.uid ?? '', P.uid));
  errs.push(...validateImmutable(meta.creationTimestamp ?? null, old.creationTimestamp ?? null, P.creationTimestamp));
  errs.push(...validateImmutable(meta.deletionTimestamp ?? null, old.deletionTimestamp ?? null, P.deletionTimestamp));
  errs.push(
    ...validateImmutable(meta.deletionGracePeriodSeconds ?? null, old.deletionGracePeriodSeconds ?? null, P.deletionGracePeriodSeconds),
  );
  return errs;
}

function validateOwnerReferences(refs: ObjectMeta['ownerReferences'], p: FieldPath): FieldError[] {
  if (!refs) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    const apiVersion = String(ref['apiVersion'] ?? '');
    const kind = String(ref['kind'] ?? '');
    const name = String(ref['name'] ?? '');
    const uid = String(ref['uid'] ?? '');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) errs.push(fieldErrors.invalid(p.child('apiVersion'), apiVersion, 'version must not be empty'));
    if (!kind) errs.push(fieldErrors.invalid(p.child('kind'), kind, 'must not be empty'));
    if (!name) errs.push(fieldErrors.invalid(p.child('name'), name, 'must not be empty'));
    if (!uid) errs.push(fieldErrors.invalid(p.child('uid'), uid, 'must not be empty'));
    if (ref['controller'] === true) {
      const current = `${kind}/${name}`;
      if (firstController) {
        errs.push(
          fieldErrors.invalid(
            p,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

function validateFinalizers(finalizers: readonly string[] | undefined, p: FieldPath): FieldError[] {
  if (!finalizers) return [];
  const errs: FieldError[] = [];
  for (const f of finalizers) {
    for (const m of isQualifiedName(f)) errs.push(fieldErrors.invalid(p, f, m));
  }
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(
      fieldErrors.invalid(p, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`),
    );
  }
  return errs;
}
