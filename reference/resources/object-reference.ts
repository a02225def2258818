// core/v1 ObjectReference: how an Event names the objects it is about and a Binding its node.
import { t, type Schema } from '../apiserver/schema.js';

/** Field order as upstream's (objects are rebuilt in declaration order). Describe it where used (t.describe). */
export const objectReferenceSchema: Schema = t.object({
  kind: t.string('Kind of the referent.'),
  namespace: t.string('Namespace of the referent; empty for cluster-scoped objects.'),
  name: t.string('Name of the referent.'),
  uid: t.string('UID of the referent.'),
  apiVersion: t.string('API version of the referent.'),
  resourceVersion: t.string('Resource version of the referent the reference was made at, if it matters.'),
  fieldPath: t.string('Part of the referent meant, when not the whole object (such as spec.containers{name} for one container of a pod).'),
});
