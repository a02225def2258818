// Requirements of spec document 000: the control-plane resource API
// (storage, quota, eviction, pod groups, events, roles, and the shared conventions).
// One entry per checkable rule, in spec order. Ground-truth entries fill the spec's "not shown" gaps.
import type { Requirement } from './types.js';

export const CONTROL_PLANE: readonly Requirement[] = [
  // ---------------------------------------------------------------- 1. What the service does
  {
    id: '000-1-addressing',
    doc: '000', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'The service is a REST API server that stores and serves typed, versioned resource objects addressed by group, version, optional namespace and name.',
  },
  {
    id: '000-1-operations-every-resource',
    doc: '000', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'Every resource supports create, patch, replace, delete, delete-collection, and list/watch.',
  },
  {
    id: '000-1-status-subresource-operations',
    doc: '000', section: '1', sectionTitle: 'What the service does', level: 'MUST', source: 'spec',
    text: 'Resources with a status subresource also support read, patch and replace of status.',
  },

  // ---------------------------------------------------------------- 2.1 Common shape
  {
    id: '000-2.1-api-version-conversion',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: '`apiVersion` (string) is the versioned schema of the representation; the server converts recognized schemas to the latest internal value.',
  },
  {
    id: '000-2.1-api-version-unrecognized',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: 'The server may reject unrecognized `apiVersion` values (a freedom: a write refused is not stored; one taken is stored as a valid object of the endpoint).',
  },
  {
    id: '000-2.1-kind-camel-case',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: '`kind` (string) is the CamelCase name of the resource.',
  },
  {
    id: '000-2.1-kind-inferred',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: 'The server may infer `kind` from the endpoint (a freedom: an object without it is stored as the endpoint\'s kind, or the write is refused and nothing stored).',
  },
  {
    id: '000-2.1-kind-immutable',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: '`kind` cannot be updated.',
  },
  {
    id: '000-2.1-metadata-object-meta',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: 'Every resource carries `metadata` (ObjectMeta): standard object metadata (name, namespace, and so on).',
  },
  {
    id: '000-2.1-list-shape',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: 'Every list type (`<Kind>List`) has `apiVersion` (string), `items` (required array of the resource), `kind` (string) and `metadata` (ListMeta).',
  },
  {
    id: '000-2.1-list-meta-fields',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'ListMeta carries `resourceVersion`, `continue` and `remainingItemCount`.',
  },
  {
    id: '000-2.1-metadata-name-required',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.name is required unless metadata.generateName is given; a create without either is rejected (422 Invalid, `metadata.name: Required value`).',
  },
  {
    id: '000-2.1-metadata-name-format',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.name must be a DNS-1123 subdomain of at most 253 characters, matching `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`; other names are rejected with 422 Invalid.',
  },
  {
    id: '000-2.1-metadata-generate-name',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'When metadata.name is empty and metadata.generateName is set, the server generates a unique name from the generateName prefix.',
  },
  {
    id: '000-2.1-metadata-system-fields',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.uid (a UUID), metadata.resourceVersion (an opaque string), metadata.generation and metadata.creationTimestamp (RFC 3339) are set by the server.',
  },
  {
    id: '000-2.1-metadata-generation',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.generation starts at 1 and is bumped on spec changes only (not on metadata-only or status changes).',
  },
  {
    id: '000-2.1-metadata-resource-version-changes',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.resourceVersion changes on every write of the object.',
  },
  {
    id: '000-2.1-metadata-optimistic-concurrency',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'An update that gives metadata.resourceVersion must match the stored resourceVersion; an update with a stale resourceVersion gets 409 Conflict.',
  },
  {
    id: '000-2.1-metadata-immutable-fields',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.name, metadata.namespace, metadata.uid and metadata.creationTimestamp are immutable; an update cannot change them.',
  },
  {
    id: '000-2.1-metadata-labels',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.labels keys must be qualified names and label values at most 63 characters; invalid labels are rejected with 422 Invalid.',
  },
  {
    id: '000-2.1-metadata-annotations-size',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.annotations keys plus values total at most 262144 bytes; larger annotations are rejected with 422 Invalid (Too long).',
  },
  {
    id: '000-2.1-metadata-namespace-from-path',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'A namespaced object takes its namespace from the request path; a body metadata.namespace that differs from the path is rejected (400).',
  },
  {
    id: '000-2.1-metadata-cluster-scoped-namespace',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'A cluster-scoped object with metadata.namespace set is rejected: `metadata.namespace: Forbidden: not allowed on this type`.',
  },
  {
    id: '000-2.1-metadata-namespace-must-exist',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'A namespaced object can only be created in a namespace that exists; the namespace `default` exists.',
  },
  {
    id: '000-2.1-metadata-finalizers',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'Delete of an object with metadata.finalizers sets metadata.deletionTimestamp and keeps the object until its finalizers are empty.',
  },
  {
    id: '000-2.1-metadata-managed-fields',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'metadata.managedFields entries are `{manager, operation: Apply|Update, apiVersion, time, fieldsType: "FieldsV1", fieldsV1, subresource}`; fieldsV1 keys are `f:<field>`, `k:<json key>` for keyed list items, `v:<json>` for set items, and `.` for the element itself.',
  },
  {
    id: '000-2.1-field-types',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'MUST', source: 'spec',
    text: 'Every object the server returns (the answer to a write, a read, a list item, the object of a watch event) has `apiVersion` and `kind` as strings and `metadata` as an object (ObjectMeta); every `<Kind>List` has `apiVersion` and `kind` strings, `metadata` an object (ListMeta) and `items`, present, an array of the resource.',
  },
  {
    id: '000-2.1-not-shown-field-types',
    doc: '000', section: '2.1', sectionTitle: 'Common shape', level: 'SHOULD', source: 'ground-truth',
    text: 'Fields whose types the spec leaves "not shown" have upstream\'s JSON types in every object the server returns: ObjectMeta (`name`, `generateName`, `namespace`, `selfLink`, `uid`, `resourceVersion`, `creationTimestamp`, `deletionTimestamp`: strings; `generation`, `deletionGracePeriodSeconds`: integers; `labels`, `annotations`: maps of strings; `ownerReferences`, `finalizers`, `managedFields`: arrays), ListMeta (`resourceVersion`, `continue`, `selfLink`: strings; `remainingItemCount`: integer), Condition (`type`, `status`, `lastTransitionTime`, `reason`, `message`: strings; `observedGeneration`: integer), Time, MicroTime and quantities as strings, and the fields of the other named types the spec does not show (GroupResource, ObjectReference, EventSource, PolicyRule, LabelSelector, PodGroupResourceClaimStatus; StorageClass `parameters` values are strings).',
  },

  // ---------------------------------------------------------------- 2.2 StorageClass
  {
    id: '000-2.2-cluster-scoped',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass (group-version `storage.orch.io/v1`) is cluster-scoped.',
  },
  {
    id: '000-2.2-provisioner-required',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `provisioner` (string, type of the provisioner) is required.',
  },
  {
    id: '000-2.2-parameters',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `parameters` is an object (map) of parameters passed to the provisioner.',
  },
  {
    id: '000-2.2-reclaim-policy-default',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `reclaimPolicy` (reclaim policy of dynamically provisioned volumes) defaults to `Delete`.',
  },
  {
    id: '000-2.2-reclaim-policy-values',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `reclaimPolicy` allowed values: `Delete` (volume deleted on release from its claim), `Recycle` (volume recycled into the pool of unbound volumes), `Retain` (volume left in phase Released for manual reclamation).',
  },
  {
    id: '000-2.2-volume-binding-mode-default',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `volumeBindingMode` defaults to `Immediate`.',
  },
  {
    id: '000-2.2-volume-binding-mode-values',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `volumeBindingMode` allowed values: `Immediate` (claims provisioned and bound at once), `WaitForFirstConsumer` (provisioning and binding wait until the first pod referencing the claim is created, during pod scheduling).',
  },
  {
    id: '000-2.2-volume-binding-mode-volume-scheduling',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `volumeBindingMode` is honored only when the VolumeScheduling feature is enabled.',
  },
  {
    id: '000-2.2-allow-volume-expansion',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `allowVolumeExpansion` (boolean) says whether volumes of this class may be expanded.',
  },
  {
    id: '000-2.2-allowed-topologies-empty-no-restriction',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `allowedTopologies` (array of TopologySelectorTerm) restricts the node topologies where volumes may be provisioned; an empty list means no restriction.',
  },
  {
    id: '000-2.2-allowed-topologies-volume-scheduling',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `allowedTopologies` is honored only when VolumeScheduling is enabled.',
  },
  {
    id: '000-2.2-mount-options-not-validated',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass `mountOptions` (array of string, mount options of provisioned volumes) are not validated; mounting simply fails if an option is invalid.',
  },
  {
    id: '000-2.2-topology-term-match-label-expressions',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'StorageClass allowedTopologies is an array of TopologySelectorTerm, each with `matchLabelExpressions` (array of TopologySelectorLabelRequirement with `key` and `values`).',
  },
  {
    id: '000-2.2-topology-term-requirements-anded',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'The requirements within one TopologySelectorTerm are ANDed.',
  },
  {
    id: '000-2.2-topology-term-empty-matches-nothing',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'A null or empty TopologySelectorTerm matches no objects.',
  },
  {
    id: '000-2.2-topology-term-alpha',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'SHOULD', source: 'spec',
    text: 'TopologySelectorTerm is alpha and may change.',
  },
  {
    id: '000-2.2-allowed-topologies-requirement-key-required',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'TopologySelectorLabelRequirement `key` (string, label key) is required.',
  },
  {
    id: '000-2.2-allowed-topologies-requirement-values-required',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'TopologySelectorLabelRequirement `values` (array of string) is required.',
  },
  {
    id: '000-2.2-allowed-topologies-requirement-values-ored',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'TopologySelectorLabelRequirement `values`: one value must match the label; entries are ORed.',
  },
  {
    id: '000-2.2-field-types',
    doc: '000', section: '2.2', sectionTitle: 'StorageClass', level: 'MUST', source: 'spec',
    text: 'Every StorageClass the server returns has the types of §2.2: `provisioner` a string, present (required); `parameters` an object (map); `reclaimPolicy` and `volumeBindingMode` strings; `allowVolumeExpansion` a boolean; `allowedTopologies` an array of TopologySelectorTerm (`matchLabelExpressions`: an array of TopologySelectorLabelRequirement, whose `key` is a string and `values` an array of strings, both required); `mountOptions` an array of strings.',
  },

  // ---------------------------------------------------------------- 2.3 StorageVersionMigration
  {
    id: '000-2.3-cluster-scoped',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration (`storagemigration.orch.io/v1`) is cluster-scoped.',
  },
  {
    id: '000-2.3-resource-required',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration `spec.resource` (GroupResource, the resource being migrated; the migrator sends requests to the endpoint serving it) is required.',
  },
  {
    id: '000-2.3-resource-immutable',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration `spec.resource` is immutable.',
  },
  {
    id: '000-2.3-resource-fields',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration `spec.resource` is `{group, resource}`.',
  },
  {
    id: '000-2.3-resource-resource-required',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration `spec.resource.resource` is required (group may be empty, for the core group).',
  },
  {
    id: '000-2.3-resource-immutable-message',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'A change to StorageVersionMigration `spec.resource` is rejected with `field is immutable`.',
  },
  {
    id: '000-2.3-status-conditions',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration `status.conditions` (array of Condition) holds the latest observations of the migration state.',
  },
  {
    id: '000-2.3-status-conditions-merge-type',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration `status.conditions` has patch strategy merge on key `type`.',
  },
  {
    id: '000-2.3-status-conditions-unique-type',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration `status.conditions` has no duplicate condition types.',
  },
  {
    id: '000-2.3-status-conditions-succeeded-failed-exclusive',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'The StorageVersionMigration conditions `Succeeded` and `Failed` are not both true.',
  },
  {
    id: '000-2.3-status-conditions-running-not-with-terminal',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'The StorageVersionMigration condition `Running` is not true while `Succeeded` or `Failed` is true.',
  },
  {
    id: '000-2.3-status-conditions-terminal-final',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'Once true, the StorageVersionMigration conditions `Succeeded` and `Failed` cannot go back to false.',
  },
  {
    id: '000-2.3-status-resource-version',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration `status.resourceVersion` is the resource version compared with the garbage-collection cache when performing the migration: the current resource version of the group, version and resource when the controller manager first observes the migration.',
    surface: 'controllers',
  },
  {
    id: '000-2.3-status-resource-version-integer',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration `status.resourceVersion` must parse as a non-negative integer.',
  },
  {
    id: '000-2.3-status-resource-version-set-once',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration `status.resourceVersion` cannot change once set.',
  },
  {
    id: '000-2.3-field-types',
    doc: '000', section: '2.3', sectionTitle: 'StorageVersionMigration', level: 'MUST', source: 'spec',
    text: 'Every StorageVersionMigration the server returns has the types of §2.3: `spec.resource` a GroupResource (an object), required; `status.conditions` an array of Condition (objects); `status.resourceVersion` a string.',
  },

  // ---------------------------------------------------------------- 2.4 ResourceQuota
  {
    id: '000-2.4-namespaced',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota (`v1`) is namespaced: aggregate quota limits enforced per namespace, with observed usage.',
  },
  {
    id: '000-2.4-spec-hard',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota `spec.hard` is an object (map of resource name to quantity) of desired hard limits per named resource.',
  },
  {
    id: '000-2.4-spec-hard-quantity-syntax',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `spec.hard` values are quantities: `^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$` with a suffix `n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`, `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei` or a decimal exponent `e<n>`/`E<n>` (JSON numbers accepted too); anything else is rejected.',
  },
  {
    id: '000-2.4-spec-hard-quantity-canonical',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota quantities are returned as strings in canonical form (for example `1.5` as `1500m`, `0.5Gi` as `512Mi`, `1000m` as `1`, the JSON number 10 as `"10"`).',
  },
  {
    id: '000-2.4-spec-hard-non-negative',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `spec.hard` quantities are not negative (`must be greater than or equal to 0`).',
  },
  {
    id: '000-2.4-spec-hard-resource-names',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `spec.hard` resource names are qualified names; a name without `/` must be a standard quota resource (`cpu`, `memory`, `pods`, `requests.storage`, ...), otherwise `must be a standard resource for quota`.',
  },
  {
    id: '000-2.4-spec-hard-integer-resources',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'Object counts (`pods`, `services`, `secrets`, `configmaps`, `persistentvolumeclaims`, ..., `count/<resource>`) and extended resources in `spec.hard` are whole numbers (`must be an integer`).',
  },
  {
    id: '000-2.4-spec-scopes-match',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota `spec.scopes` (array of string) are filters that must match each object tracked by the quota.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-spec-scopes-unset-matches-all',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'If ResourceQuota `spec.scopes` is unset, the quota matches all objects.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-spec-scopes-values',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `spec.scopes` entries are scope names of the ScopedResourceSelectorRequirement `scopeName` list; other values are rejected (`unsupported scope`).',
  },
  {
    id: '000-2.4-spec-scopes-conflicting',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota scopes `BestEffort` with `NotBestEffort`, and `Terminating` with `NotTerminating`, are rejected together (`conflicting scopes`), in spec.scopes and in spec.scopeSelector.',
  },
  {
    id: '000-2.4-spec-scopes-resources',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'A scope may only limit standard resources it tracks (`BestEffort`: pods; `Terminating`, `NotTerminating`, `NotBestEffort`, `PriorityClass`, `CrossNamespacePodAffinity`: pods and cpu/memory requests and limits; `VolumeAttributesClass`: persistentvolumeclaims and requests.storage); otherwise `unsupported scope applied to resource`.',
  },
  {
    id: '000-2.4-spec-scopes-immutable',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `spec.scopes` cannot change after creation (`field is immutable`; order does not matter).',
  },
  {
    id: '000-2.4-spec-scope-selector-and-scopes',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota `spec.scopeSelector` expresses filters with operators; for an object to match, both scopes and scopeSelector (if set) must match.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-status-hard',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota `status.hard` is an object of the enforced hard limits per named resource.',
  },
  {
    id: '000-2.4-status-used',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ResourceQuota `status.used` is an object of the observed total usage in the namespace.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-scope-selector-match-expressions',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopeSelector has `matchExpressions` (array of ScopedResourceSelectorRequirement); the requirements are ANDed.',
  },
  {
    id: '000-2.4-scope-requirement-operator-required',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `operator` (string) is required.',
  },
  {
    id: '000-2.4-scope-requirement-operator-values',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `operator` allowed values: `In`, `NotIn`, `Exists`, `DoesNotExist`.',
  },
  {
    id: '000-2.4-scope-requirement-scope-name-required',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `scopeName` (string) is required.',
  },
  {
    id: '000-2.4-scope-requirement-scope-name-values',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `scopeName` allowed values: `BestEffort` (pods with best-effort quality of service), `CrossNamespacePodAffinity` (pods with cross-namespace pod affinity or anti-affinity), `NotBestEffort`, `NotTerminating` (pods whose spec.activeDeadlineSeconds is nil), `PriorityClass` (pods with a priority class mentioned), `Terminating` (pods with spec.activeDeadlineSeconds >= 0), `VolumeAttributesClass` (claims with a volume attributes class mentioned).',
  },
  {
    id: '000-2.4-scope-requirement-values-in-notin-non-empty',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `values` (array of string) must be non-empty for operators `In` and `NotIn`.',
  },
  {
    id: '000-2.4-scope-requirement-values-exists-empty',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `values` must be empty for operators `Exists` and `DoesNotExist`.',
  },
  {
    id: '000-2.4-scope-requirement-exists-only-scopes',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'For scopeName `Terminating`, `NotTerminating`, `BestEffort`, `NotBestEffort` and `CrossNamespacePodAffinity` the operator must be `Exists`.',
  },
  {
    id: '000-2.4-status-quantities',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'ResourceQuota `status.hard` and `status.used` are checked like spec.hard: resource names, quantity syntax, not negative.',
  },
  {
    id: '000-2.4-scope-selector-priority-class-absent',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'The `PriorityClass` scope is a label-selector match on `{PriorityClass: spec.priorityClassName}`: `Exists` needs a name to be set; `DoesNotExist` and `NotIn` also match pods without one.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-admission-exceeded',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'A create that would take a tracked resource over a quota\'s limit is refused with 403 Forbidden, message `<plural> "<name>" is forbidden: exceeded quota: <q>, requested: <r>=<v>, used: <r>=<v>, limited: <r>=<v>` (only the resources that overflow, sorted by name, joined with `,`).',
    surface: 'controllers',
  },
  {
    id: '000-2.4-admission-must-specify',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'When a quota limits cpu or memory (plain, `requests.` or `limits.` form), a pod with a container or init container that does not set it is refused with 403 Forbidden: `<plural> "<name>" is forbidden: failed quota: <q>: must specify limits.cpu for: c1,c2; requests.memory for: c1`.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-admission-charges-usage',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'When the quota admission admits a create, the new usage is written into the quota\'s `status.used` before the object is stored; a dry run writes nothing.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-used-replenished',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'SHOULD', source: 'ground-truth',
    text: 'The quota controller recomputes `status.used` soon after a tracked object is deleted or a pod turns terminal; `pods` counts pods that are not terminal (phase Succeeded or Failed), `count/pods` every stored pod.',
    surface: 'controllers',
  },
  {
    id: '000-2.4-scope-requirement-values-replaced-on-merge',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'ScopedResourceSelectorRequirement `values` is replaced (not merged) during a strategic merge patch.',
  },
  {
    id: '000-2.4-field-types',
    doc: '000', section: '2.4', sectionTitle: 'ResourceQuota', level: 'MUST', source: 'spec',
    text: 'Every ResourceQuota the server returns has the types of §2.4: `spec.hard` an object (map of resource name to quantity); `spec.scopes` an array of strings; `spec.scopeSelector` an object whose `matchExpressions` is an array of ScopedResourceSelectorRequirement (`operator` and `scopeName` strings, required; `values` an array of strings); `status.hard` and `status.used` objects.',
  },

  // ---------------------------------------------------------------- 2.5 EvictionRequest
  {
    id: '000-2.5-namespaced',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest (`lifecycle.orch.io/v1alpha1`) is namespaced: a requester\'s intent to have a target (a pod) gracefully evicted, or the intent withdrawn.',
  },
  {
    id: '000-2.5-spec-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec` (EvictionRequestSpec) is required.',
  },
  {
    id: '000-2.5-intent-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.intent` (string) is required.',
  },
  {
    id: '000-2.5-intent-values',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.intent` allowed values: `Eviction` (requester wants the target evicted) or `Withdrawn` (requester no longer wants it).',
  },
  {
    id: '000-2.5-intent-withdrawable',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'A requester withdraws its intent by setting EvictionRequest `spec.intent` from `Eviction` to `Withdrawn` (§3.1 trigger), so `spec.intent` may change after creation, unlike `spec.requester` and `spec.target`.',
  },
  {
    id: '000-2.5-requester-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.requester` (string, identifies the requesting entity) is required.',
  },
  {
    id: '000-2.5-requester-domain-prefixed',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.requester` must be a valid domain-prefixed key (form `<domain>/<name>`).',
  },
  {
    id: '000-2.5-requester-reserved-domains',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.requester` may not use the two domain suffixes reserved for the service itself (`orch.io`, as this platform writes upstream\'s `k8s.io`, and its subdomains; the spec does not name the second).',
  },
  {
    id: '000-2.5-requester-reserved-upstream-domains',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'EvictionRequest `spec.requester` may not use upstream\'s reserved suffixes either: `kubernetes.io` and its subdomains are rejected as Invalid (`domain names *.k8s.io, *.kubernetes.io are reserved`; upstream ValidateForbiddenReservedDomainSuffixes, which a server built from upstream keeps).',
  },
  {
    id: '000-2.5-requester-immutable',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.requester` is immutable.',
  },
  {
    id: '000-2.5-target-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target` (EvictionRequestTarget, reference to the object to evict) is required.',
  },
  {
    id: '000-2.5-target-immutable',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target` is immutable.',
  },
  {
    id: '000-2.5-target-pod-same-namespace',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target.pod` (EvictionRequestPodReference) is the pod subject to eviction or termination, in the same namespace as the request.',
    surface: 'controllers',
  },
  {
    id: '000-2.5-target-pod-group-unsupported',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target.pod`: pods that are part of a PodGroup (spec.schedulingGroup set) are unsupported.',
    surface: 'controllers',
  },
  {
    id: '000-2.5-target-pod-name-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target.pod.name` (string, name of the target pod) is required.',
  },
  {
    id: '000-2.5-target-pod-name-format',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'EvictionRequest `spec.target.pod.name` is a DNS-1123 subdomain, like a pod name (upstream format k8s-long-name).',
  },
  {
    id: '000-2.5-target-pod-uid-required',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target.pod.uid` (string) is required.',
  },
  {
    id: '000-2.5-target-pod-uid-format',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `spec.target.pod.uid` is a lowercase UUID in 8-4-4-4-12 format, equal to the pod\'s metadata.uid.',
  },
  {
    id: '000-2.5-status-conditions-merge-type',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `status.conditions` (array of Condition) has patch strategy merge on key `type`.',
  },
  {
    id: '000-2.5-status-conditions-unique-type',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'EvictionRequest `status.conditions` is a list keyed by `type` (upstream listType=map): two conditions of the same type are rejected as Invalid (Duplicate).',
  },
  {
    id: '000-2.5-status-condition-shape',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'Each EvictionRequest status condition is a valid metav1.Condition: `type` a qualified name, `status` one of `True`, `False`, `Unknown`, `reason` set (letters, digits, `_`, `,`, `:`; at most 1024 characters), `lastTransitionTime` set, `message` at most 32768 characters.',
  },
  {
    id: '000-2.5-status-conditions-max-100',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `status.conditions` has maximum length 100.',
  },
  {
    id: '000-2.5-status-condition-types',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest condition types managed by the controller are `TargetEvicted` and `Failed`.',
    surface: 'controllers',
  },
  {
    id: '000-2.5-observed-generation',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `status.observedGeneration` (integer) is the request\'s metadata.generation as observed by the controller, and is managed by the controller.',
    surface: 'controllers',
  },
  {
    id: '000-2.5-observed-generation-minimum',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `status.observedGeneration` has minimum 1 and is never negative.',
  },
  {
    id: '000-2.5-observed-generation-increment-only',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequest `status.observedGeneration` can only be incremented.',
  },
  {
    id: '000-2.5-invalid-target-reason',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'An EvictionRequest whose target cannot be evicted gets `Failed=True`, reason `EvictionInvalid`, and `TargetEvicted=False`, reason `EvictionFailed`, from the controller; the message says why: `Target pod not found.`, `Target pod UID mismatch: expected <uid>, got <uid>.` (both only while no Eviction exists for the target), `Target pod references a SchedulingGroup. Eviction is currently not supported.` (upstream pkg/controller/evictionrequest).',
    surface: 'controllers',
  },
  {
    id: '000-2.5-field-types',
    doc: '000', section: '2.5', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'Every EvictionRequest the server returns has the types of §2.5: `spec` an object, required, with `intent` and `requester` strings and `target` an object (all three required); `spec.target.pod` an object with `name` and `uid` strings (required); `status.conditions` an array of Condition (objects); `status.observedGeneration` an integer.',
  },

  // ---------------------------------------------------------------- 2.6 PodGroup
  {
    id: '000-2.6-namespaced',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup (`scheduling.orch.io/v1beta1`) is namespaced.',
  },
  {
    id: '000-2.6-spec-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec` (PodGroupSpec) is required.',
  },
  {
    id: '000-2.6-scheduling-policy-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy` (PodGroupSchedulingPolicy) is required.',
  },
  {
    id: '000-2.6-scheduling-policy-exactly-one',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy` sets exactly one of `basic` or `gang`.',
  },
  {
    id: '000-2.6-scheduling-policy-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy` is chosen at creation; the policy cannot change afterwards.',
  },
  {
    id: '000-2.6-scheduling-policy-from-template',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'Controllers copy PodGroup `spec.schedulingPolicy` from the PodGroupTemplate.',
  },
  {
    id: '000-2.6-basic-policy',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.basic` (BasicSchedulingPolicy, no fields) means standard scheduling behavior.',
  },
  {
    id: '000-2.6-gang-policy',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.gang` (GangSchedulingPolicy) means all-or-nothing scheduling.',
  },
  {
    id: '000-2.6-gang-set-unset-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.gang` cannot be set or unset after creation.',
  },
  {
    id: '000-2.6-gang-min-count-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.gang.minCount` (integer) is required.',
  },
  {
    id: '000-2.6-gang-min-count-positive',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.gang.minCount` is positive: the minimum number of pods that must be schedulable or scheduled at once for the group to be admitted.',
  },
  {
    id: '000-2.6-gang-min-count-mutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingPolicy.gang.minCount` is mutable (supports scaling).',
  },
  {
    id: '000-2.6-gang-min-count-scheduling-only',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `gang.minCount` is enforced only during scheduling; changes do not affect already-scheduled pods, and may take effect only in a later scheduling cycle.',
    surface: 'controllers',
  },
  {
    id: '000-2.6-disruption-mode-exactly-one',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.disruptionMode` sets exactly one of `all` (AllDisruptionMode, no fields: children only disrupted together) or `single` (SingleDisruptionMode, no fields: children disrupted independently).',
  },
  {
    id: '000-2.6-disruption-mode-default-single',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.disruptionMode` defaults to `single` if unset.',
  },
  {
    id: '000-2.6-disruption-mode-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.disruptionMode` is immutable.',
  },
  {
    id: '000-2.6-parent-composite-pod-group-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.parentCompositePodGroupName` (string) names the parent composite pod group in the same namespace; if unset the group is the root of the hierarchy.',
  },
  {
    id: '000-2.6-parent-composite-pod-group-name-gate',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.parentCompositePodGroupName` is used only when the CompositePodGroup feature gate is on.',
  },
  {
    id: '000-2.6-parent-composite-pod-group-name-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.parentCompositePodGroupName` is immutable.',
  },
  {
    id: '000-2.6-parent-composite-pod-group-name-format',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `spec.parentCompositePodGroupName` is a DNS-1123 subdomain (the name of a CompositePodGroup; upstream format k8s-long-name).',
  },
  {
    id: '000-2.6-parent-composite-requires-workload-ref',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `spec.workloadRef` must be set when `spec.parentCompositePodGroupName` is set (upstream dependentRequired: `spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set`).',
  },
  {
    id: '000-2.6-preemption-policy-values',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.preemptionPolicy` allowed values: `Never` or `PreemptLowerPriority`.',
  },
  {
    id: '000-2.6-preemption-policy-default',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.preemptionPolicy` defaults to `PreemptLowerPriority`.',
  },
  {
    id: '000-2.6-preemption-policy-admission',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.preemptionPolicy` is populated by the priority admission controller from the priority class when that controller is enabled.',
  },
  {
    id: '000-2.6-preemption-policy-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.preemptionPolicy` is immutable.',
  },
  {
    id: '000-2.6-preemption-policy-gate',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.preemptionPolicy` is available only when the PodGroupPreemptionPolicy feature gate is on.',
  },
  {
    id: '000-2.6-priority',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.priority` (integer): a higher value means higher priority.',
    surface: 'controllers',
  },
  {
    id: '000-2.6-priority-set-by-admission',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'Users are prevented from setting PodGroup `spec.priority` when the priority admission controller is enabled; the controller fills it from priorityClassName.',
  },
  {
    id: '000-2.6-priority-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.priority` is immutable.',
  },
  {
    id: '000-2.6-priority-maximum',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `spec.priority` is at most 1e9 (1000000000).',
  },
  {
    id: '000-2.6-priority-class-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.priorityClassName` (string) is the priority class considered when scheduling; copied from the template by controllers; if none is specified admission may set the global default class, otherwise priority is zero.',
  },
  {
    id: '000-2.6-priority-class-name-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.priorityClassName` is immutable.',
  },
  {
    id: '000-2.6-priority-class-name-format',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `spec.priorityClassName`, when set, is a DNS-1123 subdomain (the name of a PriorityClass).',
  },
  {
    id: '000-2.6-resource-claims-merge-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.resourceClaims` (array of PodGroupResourceClaim) has patch strategy merge, retainKeys, on key `name`.',
  },
  {
    id: '000-2.6-resource-claims-shared',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.resourceClaims` are claims that may be shared among pods of the group; a pod consumes a claim by declaring an identical claim (same name, same referenced claim or template) in its own spec.',
  },
  {
    id: '000-2.6-resource-claims-gate',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.resourceClaims` requires the DRAWorkloadResourceClaims feature gate (beta).',
  },
  {
    id: '000-2.6-resource-claims-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.resourceClaims` is immutable.',
  },
  {
    id: '000-2.6-resource-claims-max-4',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `spec.resourceClaims` holds at most 4 entries (upstream maxItems=4; more is Invalid, TooMany).',
  },
  {
    id: '000-2.6-scheduling-constraints-single-topology',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingConstraints.topology` is an array of TopologyConstraint; currently a single constraint may be given.',
  },
  {
    id: '000-2.6-scheduling-constraints-gate',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingConstraints` requires the TopologyAwareWorkloadScheduling feature gate.',
  },
  {
    id: '000-2.6-scheduling-constraints-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.schedulingConstraints` is immutable.',
  },
  {
    id: '000-2.6-workload-ref-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `spec.workloadRef` (WorkloadReference, the template within a Workload object used to create the group) is immutable.',
  },
  {
    id: '000-2.6-gated-fields-dropped',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'A PodGroup field whose feature gate is off (parentCompositePodGroupName: CompositePodGroup, preemptionPolicy: PodGroupPreemptionPolicy, resourceClaims and status.resourceClaimStatuses: DRAWorkloadResourceClaims, schedulingConstraints: TopologyAwareWorkloadScheduling) is dropped when written, unless the stored object already uses it (upstream dropDisabledPodGroupFields).',
  },
  {
    id: '000-2.6-status-conditions-merge-type',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `status.conditions` (array of Condition) has patch strategy merge on key `type`; known types and reasons are in section 3.2.',
  },
  {
    id: '000-2.6-status-conditions-unique-type',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroup `status.conditions` is a list keyed by `type` (upstream listType=map): two conditions of the same type are rejected as Invalid (Duplicate).',
  },
  {
    id: '000-2.6-status-condition-shape',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'Each PodGroup status condition is a valid metav1.Condition: `type` a qualified name, `status` one of `True`, `False`, `Unknown`, `reason` set (letters, digits, `_`, `,`, `:`; at most 1024 characters), `lastTransitionTime` set, `message` at most 32768 characters.',
  },
  {
    id: '000-2.6-status-resource-claim-statuses-merge-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroup `status.resourceClaimStatuses` (array of PodGroupResourceClaimStatus) has patch strategy merge, retainKeys, on key `name`.',
  },
  {
    id: '000-2.6-status-resource-claim-statuses-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'Each PodGroup `status.resourceClaimStatuses[].name` must match the name of an entry in `spec.resourceClaims`.',
  },
  {
    id: '000-2.6-resource-claim-name-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `name` (string) is required.',
  },
  {
    id: '000-2.6-resource-claim-name-dns-label',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `name` is a DNS_LABEL.',
  },
  {
    id: '000-2.6-resource-claim-name-unique',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `name` is unique in the group.',
  },
  {
    id: '000-2.6-resource-claim-exactly-one-source',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim: exactly one of `resourceClaimName` and `resourceClaimTemplateName` must be set.',
  },
  {
    id: '000-2.6-resource-claim-reference-names-format',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    text: 'PodGroupResourceClaim `resourceClaimName` and `resourceClaimTemplateName` are DNS-1123 subdomains (object names; upstream format k8s-long-name).',
  },
  {
    id: '000-2.6-resource-claim-name-reserved',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `resourceClaimName` (string) names a claim in the same namespace, reserved for the group.',
  },
  {
    id: '000-2.6-resource-claim-template-generated',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `resourceClaimTemplateName` (string) names a template in the same namespace; a claim is generated for the group, named from group name, resource name and a generated part, recorded in status.resourceClaimStatuses, and deleted with the group.',
  },
  {
    id: '000-2.6-resource-claim-template-name-immutable',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'PodGroupResourceClaim `resourceClaimTemplateName` is immutable.',
  },
  {
    id: '000-2.6-topology-constraint-key-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'TopologyConstraint `key` (string, node label key of the topology domain) is required.',
  },
  {
    id: '000-2.6-topology-constraint-key-label-key',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'TopologyConstraint `key` is a node label key: a qualified name with an optional DNS-subdomain prefix.',
  },
  {
    id: '000-2.6-topology-constraint-colocation',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'TopologyConstraint: all pods of the group must be colocated in one instance of the topology domain; different groups from the same template may land in different instances.',
  },
  {
    id: '000-2.6-workload-ref-template-name-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'WorkloadReference `templateName` (string, DNS label) is required.',
  },
  {
    id: '000-2.6-workload-ref-template-name-dns-label',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'WorkloadReference `templateName` is a DNS label.',
  },
  {
    id: '000-2.6-workload-ref-workload-name-required',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'WorkloadReference `workloadName` (string, DNS name) is required.',
  },
  {
    id: '000-2.6-workload-ref-workload-name-dns-name',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'WorkloadReference `workloadName` is a DNS name (DNS-1123 subdomain).',
  },
  {
    id: '000-2.6-generic-workload-gate',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'The PodGroup API is enabled by the GenericWorkload feature gate.',
  },
  {
    id: '000-2.6-pod-group-missing-waits',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A pod whose `spec.schedulingGroup.podGroupName` names a PodGroup that does not exist stays unschedulable (`PodScheduled=False`, reason `Unschedulable`, message `waiting for pod\'s pod group "<name>" to appear in scheduling queue`) and is scheduled once the PodGroup is created.',
  },
  {
    id: '000-2.6-field-types',
    doc: '000', section: '2.6', sectionTitle: 'PodGroup', level: 'MUST', source: 'spec',
    text: 'Every PodGroup the server returns has the types of §2.6: `spec` an object, required; `spec.schedulingPolicy` an object, required, with `basic` and `gang` objects and `gang.minCount` an integer (required); `spec.disruptionMode` an object with `all` and `single` objects; `spec.parentCompositePodGroupName`, `spec.preemptionPolicy` and `spec.priorityClassName` strings; `spec.priority` an integer; `spec.resourceClaims` an array of PodGroupResourceClaim (`name`, required, `resourceClaimName` and `resourceClaimTemplateName`: strings); `spec.schedulingConstraints.topology` an array of TopologyConstraint (`key` a string, required); `spec.workloadRef` an object with `templateName` and `workloadName` strings (required); `status.conditions` and `status.resourceClaimStatuses` arrays of objects.',
  },

  // ---------------------------------------------------------------- 2.7 Event
  {
    id: '000-2.7-namespaced',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event (`events.orch.io/v1`) is namespaced: a best-effort report of a state change somewhere in the cluster.',
  },
  {
    id: '000-2.7-event-time-required',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `eventTime` (MicroTime, time the event was first observed) is required.',
  },
  {
    id: '000-2.7-action-non-empty',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `action` (machine-readable action taken or failed regarding the `regarding` object) is non-empty for new events.',
  },
  {
    id: '000-2.7-action-max-128',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `action` is at most 128 characters.',
  },
  {
    id: '000-2.7-reason-non-empty',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `reason` (human-readable reason) is non-empty for new events.',
  },
  {
    id: '000-2.7-reason-max-128',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `reason` is at most 128 characters.',
  },
  {
    id: '000-2.7-note-max-1kb',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `note` (human-readable description) is at most 1 kB.',
  },
  {
    id: '000-2.7-type-values',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `type` (machine-readable) is `Normal` or `Warning`; new types may be added.',
  },
  {
    id: '000-2.7-type-other-rejected',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'A new Event whose `type` is neither `Normal` nor `Warning` is rejected (`has invalid value`).',
  },
  {
    id: '000-2.7-type-non-empty',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `type` is non-empty for new events.',
  },
  {
    id: '000-2.7-regarding',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `regarding` (ObjectReference) is the object the event is about.',
  },
  {
    id: '000-2.7-related',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `related` (ObjectReference) is an optional secondary object.',
  },
  {
    id: '000-2.7-reporting-controller-non-empty',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `reportingController` (name of the emitting controller) is non-empty for new events.',
  },
  {
    id: '000-2.7-reporting-controller-qualified-name',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'Event `reportingController` is a qualified name (for example `example.com/my-controller`).',
  },
  {
    id: '000-2.7-regarding-namespace',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'A new Event outside the `default` and `kube-system` namespaces names the namespace of the object it is about in `regarding.namespace` (`involvedObject.namespace: ... does not match event.namespace`).',
  },
  {
    id: '000-2.7-reporting-instance-non-empty',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `reportingInstance` (ID of the controller instance) is non-empty for new events.',
  },
  {
    id: '000-2.7-reporting-instance-max-128',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `reportingInstance` is at most 128 characters.',
  },
  {
    id: '000-2.7-series-singleton-nil',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `series` (EventSeries) holds data about the series, or is nil for a singleton event.',
  },
  {
    id: '000-2.7-series-count-required',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `series.count` (integer, occurrences in the series up to the last heartbeat) is required when series is set.',
  },
  {
    id: '000-2.7-series-count-min-2',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'Event `series.count` is at least 2 (`should be at least 2`).',
  },
  {
    id: '000-2.7-series-last-observed-time-required',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event `series.lastObservedTime` (MicroTime, last time an event of the series was seen before the last heartbeat) is required when series is set.',
  },
  {
    id: '000-2.7-deprecated-fields',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Event carries the backward-compatibility fields `deprecatedCount` (integer), `deprecatedFirstTimestamp` and `deprecatedLastTimestamp` (Time) and `deprecatedSource` (EventSource).',
  },
  {
    id: '000-2.7-deprecated-fields-unset-on-create',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'Through events.orch.io/v1 a new Event leaves the deprecated fields unset: a set deprecatedCount, deprecatedFirstTimestamp, deprecatedLastTimestamp or deprecatedSource is rejected (`needs to be unset`).',
  },
  {
    id: '000-2.7-immutable-after-create',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'ground-truth',
    text: 'After creation only an Event\'s `series` (and metadata) may change; changes to its other fields are rejected (`field is immutable`).',
  },
  {
    id: '000-2.7-limited-retention',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'SHOULD', source: 'spec',
    text: 'Events have limited retention; their reasons, triggers and messages may evolve.',
  },
  {
    id: '000-2.7-field-types',
    doc: '000', section: '2.7', sectionTitle: 'Event', level: 'MUST', source: 'spec',
    text: 'Every Event the server returns has the types of §2.7: `eventTime` (MicroTime) present (required); `action`, `reason`, `note`, `type`, `reportingController` and `reportingInstance` strings; `regarding` and `related` ObjectReferences (objects); `series` an object with `count`, an integer, and `lastObservedTime` (MicroTime), both required; `deprecatedCount` an integer; `deprecatedSource` an EventSource (an object).',
  },

  // ---------------------------------------------------------------- 2.8 Role-based access objects
  {
    id: '000-2.8-cluster-role-cluster-level',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'ClusterRole (`rbac.authorization.orch.io/v1`) is a cluster-level grouping of PolicyRules referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  },
  {
    id: '000-2.8-cluster-role-rules',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'ClusterRole `rules` (array of PolicyRule) holds all policy rules.',
  },
  {
    id: '000-2.8-aggregation-rule-optional',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'ClusterRole `aggregationRule` (AggregationRule) is optional.',
  },
  {
    id: '000-2.8-aggregation-rule-controller-managed',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'If ClusterRole `aggregationRule` is set, `rules` are controller-managed and direct changes to rules are overwritten.',
  },
  {
    id: '000-2.8-aggregation-rule-selectors',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'ClusterRole `aggregationRule.clusterRoleSelectors` (array of LabelSelector): if any selector matches a cluster role, its permissions are added.',
  },
  {
    id: '000-2.8-cluster-role-binding-exists',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'ClusterRoleBinding exists in `rbac.authorization.orch.io/v1`.',
  },
  {
    id: '000-2.8-role-namespaced',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'Role exists in `rbac.authorization.orch.io/v1` and is namespaced.',
  },
  {
    id: '000-2.8-role-list',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'Role listing returns a RoleList.',
  },
  {
    id: '000-2.8-rbac-name-path-segment',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: "RBAC object names are path segment names (upstream ValidateRBACName): any string but `.` and `..` without `/` or `%`, so names such as `system:controller:x` are valid; others get `may not be '..'`, `may not contain '/'`.",
  },
  {
    id: '000-2.8-policy-rule-verbs-required',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A PolicyRule without verbs is rejected: `rules[i].verbs: Required value: verbs must contain at least one value`.',
  },
  {
    id: '000-2.8-policy-rule-resource-rule',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A PolicyRule without nonResourceURLs is a resource rule: it needs apiGroups (`resource rules must supply at least one api group`) and resources (`resource rules must supply at least one resource`).',
  },
  {
    id: '000-2.8-policy-rule-non-resource-urls-cluster-only',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'nonResourceURLs may appear only in ClusterRole rules: a Role rule with them gets `rules[i].nonResourceURLs: Invalid value: ...: namespaced rules cannot apply to non-resource URLs`.',
  },
  {
    id: '000-2.8-policy-rule-non-resource-urls-exclusive',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A rule cannot name both nonResourceURLs and apiGroups, resources or resourceNames: `rules cannot apply to both regular resources and non-resource URLs`.',
  },
  {
    id: '000-2.8-aggregation-rule-selectors-required',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'An aggregationRule needs at least one clusterRoleSelector: `aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`.',
  },
  {
    id: '000-2.8-aggregation-rule-selectors-valid',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'Each aggregationRule.clusterRoleSelectors entry is a valid LabelSelector (operator In, NotIn, Exists or DoesNotExist; values only for In/NotIn; label keys and values valid).',
  },
  {
    id: '000-2.8-subject-kind',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: "A binding subject's kind is ServiceAccount, User or Group (`subjects[i].kind: Unsupported value`).",
  },
  {
    id: '000-2.8-subject-name-required',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A binding subject needs a name (`subjects[i].name: Required value`).',
  },
  {
    id: '000-2.8-subject-api-group',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'User and Group subjects have apiGroup `rbac.authorization.orch.io` (defaulted when empty; another value is Unsupported); ServiceAccount subjects have apiGroup "".',
  },
  {
    id: '000-2.8-subject-service-account-namespace',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A ServiceAccount subject of a ClusterRoleBinding needs a namespace (`subjects[i].namespace: Required value`).',
  },
  {
    id: '000-2.8-role-ref-required',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'A binding needs roleRef: apiGroup `rbac.authorization.orch.io` (defaulted when empty), kind and name (`roleRef.name: Required value`).',
  },
  {
    id: '000-2.8-role-ref-kind',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: "A RoleBinding's roleRef.kind is Role or ClusterRole; a ClusterRoleBinding's roleRef.kind is ClusterRole only (`roleRef.kind: Unsupported value`).",
  },
  {
    id: '000-2.8-role-ref-immutable',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: "A binding's roleRef cannot change: `roleRef: Invalid value: ...: cannot change roleRef`.",
  },
  {
    id: '000-2.8-delete-returns-status',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: "Deleting a single ClusterRole, ClusterRoleBinding, Role or RoleBinding answers with a Success Status (upstream's RBAC registries do not return the deleted object).",
  },
  {
    id: '000-2.8-cluster-role-field-types',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'MUST', source: 'spec',
    text: 'Every ClusterRole the server returns has the types of §2.8: `rules` an array of PolicyRule (objects); `aggregationRule` an object whose `clusterRoleSelectors` is an array of LabelSelector (objects).',
  },
  {
    id: '000-2.8-not-shown-field-types',
    doc: '000', section: '2.8', sectionTitle: 'Role-based access objects', level: 'SHOULD', source: 'ground-truth',
    text: 'The fields of ClusterRoleBinding, Role and RoleBinding (not shown) have upstream\'s types in every object the server returns: `rules` an array of PolicyRule (`verbs`, `apiGroups`, `resources`, `resourceNames`, `nonResourceURLs`: arrays of strings); `subjects` an array of Subject (`kind`, `apiGroup`, `name`, `namespace`: strings); `roleRef` an object with `apiGroup`, `kind` and `name` strings.',
  },

  // ---------------------------------------------------------------- 3.1 EvictionRequest states
  {
    id: '000-3.1-withdraw-other-requester-continues',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'When a requester sets an EvictionRequest intent from `Eviction` to `Withdrawn` while at least one other requester of the same target still has intent Eviction, the target eviction continues.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-all-withdrawn-cancels',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'When every requester of a common target has intent `Withdrawn`, the eviction is canceled.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-cancel-responders',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'spec',
    text: 'On eviction cancel, inactive responders never run; active responders are expected to cancel the eviction; completed or interrupted responders take no action.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-delete-counts-as-withdrawal',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'Deleting an EvictionRequest counts as a withdrawal of that requester\'s intent.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-all-removed-evictions-collected',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'When all EvictionRequests of a target are removed, the target\'s Evictions are eventually garbage collected.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-failed-condition',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'The controller sets EvictionRequest condition `Failed` true when no responder is processing the request (request canceled or no responder managed to evict).',
    surface: 'controllers',
  },
  {
    id: '000-3.1-target-evicted-condition',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'The controller sets EvictionRequest condition `TargetEvicted` true when the target (pod) is terminated or deleted.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-new-eviction-resets-conditions',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'When Failed or TargetEvicted is set and a new `Eviction` intent is submitted after an unsuccessful eviction, the conditions may be reset (a freedom: the controller observes the new intent, and the conditions are reset or kept).',
    surface: 'controllers',
  },
  {
    id: '000-3.1-relationship',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'EvictionRequests and Evictions are many-to-many in general, and many-to-one when the target is a pod.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-requester-label',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'MUST', source: 'spec',
    text: 'The requester is set as a label on the Eviction.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-eviction-name',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'The controller names an Eviction `pod-<n>-<podName>`, n one more than the highest counter already used for that pod name (cut to 253 characters): after a canceled Eviction, a new Eviction intent makes `pod-<n+1>-<podName>`.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-eviction-labels-owners',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'The Eviction carries the label `<requester>: "requester"` for each EvictionRequest of its target, and an ownerReference `{apiVersion: lifecycle.orch.io/v1alpha1, kind: EvictionRequest, name, uid}` for every live one, with no controller or blockOwnerDeletion flag (so it is garbage collected once every request is gone).',
    surface: 'controllers',
  },
  {
    id: '000-3.1-eviction-requesters',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'The Eviction\'s `status.requesters` lists `{name, intent}` for each requester of the target; entries are never removed (at most 100), and a deleted EvictionRequest\'s requester is recorded as `Withdrawn`.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-awaiting-eviction',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'While no Eviction reports on its target, an EvictionRequest has `TargetEvicted` and `Failed` both False with reason `AwaitingEviction` and message `waiting for an Eviction to report on progress`; otherwise both are copied (status, reason, message) from the most relevant Eviction, with `observedGeneration` = `metadata.generation`.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-target-evicted-reasons',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'An evicted target: `TargetEvicted=True` with reason `PodDeleted`, message `Target pod has been deleted` (pod gone or replaced by another uid), or reason `PodTerminal`, message `Pod has reached terminal state` (phase Succeeded or Failed, which nobody then deletes); `Failed=False` with reason `Succeeded`.',
    surface: 'controllers',
  },
  {
    id: '000-3.1-canceled-reason',
    doc: '000', section: '3.1', sectionTitle: 'EvictionRequest', level: 'SHOULD', source: 'ground-truth',
    text: 'A canceled eviction (no live request with intent Eviction): `Failed=True` with reason `CanceledDueToNoRequesters`, message `No active requesters with eviction intent`; `TargetEvicted=False` with reason `EvictionFailed`.',
    surface: 'controllers',
  },

  // ---------------------------------------------------------------- 3.2 PodGroup conditions
  {
    id: '000-3.2-initially-scheduled',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'MUST', source: 'spec',
    text: 'PodGroup condition `PodGroupInitiallyScheduled` indicates whether the scheduling requirement has been satisfied.',
    surface: 'controllers',
  },
  {
    id: '000-3.2-initially-scheduled-reasons',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'MUST', source: 'spec',
    text: 'PodGroup condition `PodGroupInitiallyScheduled` reasons: `Unschedulable` (resource constraints, affinity rules or insufficient capacity for the gang) and `SchedulerError` (internal error while scheduling, for example affinity parsing errors).',
    surface: 'controllers',
  },
  {
    id: '000-3.2-initially-scheduled-terminal',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'MUST', source: 'spec',
    text: 'Once PodGroup condition `PodGroupInitiallyScheduled` is True it is terminal and never reverts to False, even if pods are later evicted.',
    surface: 'controllers',
  },
  {
    id: '000-3.2-disruption-target',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'MUST', source: 'spec',
    text: 'PodGroup condition `DisruptionTarget` indicates the group is about to be terminated due to disruption; reason `PreemptionByScheduler` (preempted to make room for higher-priority groups or pods).',
    surface: 'controllers',
  },
  {
    id: '000-3.2-gang-unschedulable-message',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A gang cycle that cannot reach minCount stops with `PodGroupInitiallyScheduled=False`, reason `Unschedulable`, message `minCount (N) cannot be satisfied: S scheduled, R remaining`; each pod of the gang gets `PodScheduled=False` with reason `Unschedulable`.',
  },
  {
    id: '000-3.2-scheduler-error-preferred-affinity',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A preferred node affinity term the scheduler cannot parse (`Gt` with a value that is not an integer, which API validation admits) is an error of the scheduling cycle once more than one node is feasible (upstream NodeAffinity PreScore): the gang\'s PodGroup gets `PodGroupInitiallyScheduled=False`, reason `SchedulerError`, message `failed to schedule other pod from a pod group: <error>`, and its pod `PodScheduled=False` with reason `SchedulerError`.',
  },
  {
    id: '000-3.2-preemption-pod-disruption-target',
    doc: '000', section: '3.2', sectionTitle: 'PodGroup conditions', level: 'SHOULD', source: 'ground-truth',
    surface: 'controllers',
    text: 'A pod preempted by the scheduler gets the condition `DisruptionTarget=True`, reason `PreemptionByScheduler`, message `<schedulerName>: preempting to accommodate a higher priority pod` (`podgroup` for a group), before it is deleted.',
  },

  // ---------------------------------------------------------------- 3.3 StorageVersionMigration (transitions not shown: ground truth)
  {
    id: '000-3.3-condition-types',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration conditions are `Running`, `Succeeded` and `Failed`; duplicate condition types are rejected.',
  },
  {
    id: '000-3.3-not-succeeded-and-failed',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration conditions `Succeeded` and `Failed` cannot both be true.',
  },
  {
    id: '000-3.3-running-not-true-when-finished',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration condition `Running` cannot be true when `Succeeded` or `Failed` is true.',
  },
  {
    id: '000-3.3-finished-not-back-to-false',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'StorageVersionMigration conditions `Succeeded` and `Failed` cannot go back to false once true.',
  },
  {
    id: '000-3.3-migration-runs',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'The migrator marks a migration `Running=True` while it rewrites every object of the resource, then sets `Succeeded=True` with reason `StorageVersionMigrationSucceeded`, which flips `Running` to `False`.',
    surface: 'controllers',
  },
  {
    id: '000-3.3-migration-unknown-resource',
    doc: '000', section: '3.3', sectionTitle: 'StorageVersionMigration', level: 'SHOULD', source: 'ground-truth',
    text: 'A migration of a resource unknown to discovery is never run: it gets no `status.resourceVersion` and is never `Running` or `Succeeded`; it fails (`Failed=True`, message `resource does not exist in discovery`), at once in older releases, after a 1-minute grace period in newer ones.',
    surface: 'controllers',
  },

  // ---------------------------------------------------------------- 3.4 Other resources
  {
    id: '000-3.4-no-state-machine',
    doc: '000', section: '3.4', sectionTitle: 'Other resources', level: 'MUST', source: 'spec',
    text: 'ResourceQuota, StorageClass and Event have no state machine.',
  },

  // ---------------------------------------------------------------- 4 Endpoints
  {
    id: '000-4-base-url',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'MUST', source: 'spec',
    text: 'All paths are relative to `{base_url}`; request and response bodies are the resource types of section 2.',
  },
  {
    id: '000-4-discovery-api',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'GET `/api` returns an APIVersions object (the core group versions, `v1`).',
  },
  {
    id: '000-4-discovery-apis',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'GET `/apis` returns an APIGroupList naming every served group and its versions.',
  },
  {
    id: '000-4-discovery-group-version',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'GET `/apis/<group>/<version>` and `/api/v1` return an APIResourceList `{groupVersion, resources: [{name, singularName, namespaced, kind, verbs, shortNames}]}`.',
  },
  {
    id: '000-4-discovery-subresources',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'Discovery lists subresources as `<name>/status` entries in the APIResourceList.',
  },
  {
    id: '000-4-pod-streaming-discovery',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'Discovery lists `pods/exec`, `pods/attach` and `pods/portforward` (kinds PodExecOptions, PodAttachOptions, PodPortForwardOptions) with verbs `create` and `get` (upstream: a SPDY upgrade is a POST, a WebSocket upgrade a GET).',
  },
  {
    id: '000-4-pod-exec-container-choice',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: '`pods/exec` and `pods/attach` without a `container` on a pod of more than one container answer 400 BadRequest "a container name must be specified for pod <name>, choose one of: [<containers>]" before any node is contacted (upstream streamLocation).',
  },
  {
    id: '000-4-discovery-aggregated',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'Aggregated discovery is served when asked with `Accept: application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList`, and the response Content-Type echoes it; otherwise clients fall back to the legacy discovery endpoints.',
  },
  {
    id: '000-4-openapi',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'The server serves `/openapi/v3` (with PATCH operations that list a `fieldValidation` parameter) or `/openapi/v2`, which kubectl create/apply with default `--validate=strict` and kubectl explain need.',
  },
  {
    id: '000-4-table-output',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'A list asked for with `Accept: application/json;as=Table;v=v1;g=meta.orch.io` returns a Table; a plain list is an accepted fallback.',
  },
  {
    id: '000-4-upstream-media-groups',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'For the real kubectl to work, the server also answers the upstream media-type groups `meta.k8s.io` and `apidiscovery.k8s.io`.',
  },
  {
    id: '000-4-version',
    doc: '000', section: '4', sectionTitle: 'Endpoints', level: 'SHOULD', source: 'ground-truth',
    text: 'GET `/version` returns the server version information (a version info object with the server\'s version fields).',
  },

  // ---------------------------------------------------------------- 4.1 Resource collections
  {
    id: '000-4.1-storageclass-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'StorageClass collection path is `/apis/storage.orch.io/v1/storageclasses`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-storageversionmigration-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration collection path is `/apis/storagemigration.orch.io/v1/storageversionmigrations`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-resourcequota-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'ResourceQuota collection path is `/api/v1/namespaces/{namespace}/resourcequotas`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-evictionrequest-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'EvictionRequest collection path is `/apis/lifecycle.orch.io/v1alpha1/namespaces/{namespace}/evictionrequests`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-podgroup-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'PodGroup collection path is `/apis/scheduling.orch.io/v1beta1/namespaces/{namespace}/podgroups`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-event-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'Event collection path is `/apis/events.orch.io/v1/namespaces/{namespace}/events`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-clusterrole-path',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'ClusterRole collection path is `/apis/rbac.authorization.orch.io/v1/clusterroles`; item path is `<collection>/{name}`.',
  },
  {
    id: '000-4.1-resourcequota-status-subresource',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'ResourceQuota has a status subresource (`<item>/status`).',
  },
  {
    id: '000-4.1-evictionrequest-status-subresource',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'EvictionRequest has a status subresource (`<item>/status`).',
  },
  {
    id: '000-4.1-podgroup-status-subresource',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'PodGroup has a status subresource (`<item>/status`).',
  },
  {
    id: '000-4.1-no-status-subresource',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'StorageClass, StorageVersionMigration, Event and ClusterRole have no status subresource.',
  },
  {
    id: '000-4.1-path-parameters',
    doc: '000', section: '4.1', sectionTitle: 'Resource collections', level: 'MUST', source: 'spec',
    text: 'Path parameters `namespace` (string, name and authorization scope of the namespace) and `name` (string, object name) are both required where present.',
  },

  // ---------------------------------------------------------------- 4.2 Operations
  {
    id: '000-4.2-create',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Create: POST C with the resource as body and the write query set; responses 200, 201, 202 carry the resource.',
  },
  {
    id: '000-4.2-patch',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Patch: PATCH C/{name} with a Patch body and the write query set plus `force`; responses 200, 201 carry the resource.',
  },
  {
    id: '000-4.2-replace',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Replace: PUT C/{name} with the resource as body and the write query set; responses 200, 201 carry the resource.',
  },
  {
    id: '000-4.2-delete-returns-resource',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Delete: DELETE C/{name} with DeleteOptions body and the delete query set; for StorageClass and ResourceQuota the 200 and 202 responses carry the resource.',
  },
  {
    id: '000-4.2-delete-returns-status',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Delete: for StorageVersionMigration, EvictionRequest and Event the 200 and 202 responses carry a Status.',
  },
  {
    id: '000-4.2-delete-collection',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Delete collection: DELETE C with DeleteOptions body and the collection-delete query set succeeds; the response is shown only for cluster role bindings (200, a Status).',
  },
  {
    id: '000-4.2-list',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'List: GET C with the list query set; response 200 carries a list (`<Kind>List`).',
  },
  {
    id: '000-4.2-watch',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Watch: GET C with `watch=true`; response 200 is a stream of WatchEvent.',
  },
  {
    id: '000-4.2-patch-status',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Patch status: PATCH C/{name}/status with a Patch body and the write query set plus `force`; responses 200, 201 carry the resource.',
  },
  {
    id: '000-4.2-read-status',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Read status: GET C/{name}/status with query parameter `pretty`; response 200 carries the resource.',
  },
  {
    id: '000-4.2-replace-status',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'Replace status: PUT C/{name}/status with the resource as body and the write query set; responses 200, 201 carry the resource.',
  },
  {
    id: '000-4.2-clusterrolebindings-delete-collection',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'DELETE `/apis/rbac.authorization.orch.io/v1/clusterrolebindings` deletes a collection of cluster role bindings (200 Status).',
  },
  {
    id: '000-4.2-clusterrolebindings-read',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/clusterrolebindings/{name}` reads a cluster role binding (query parameter `pretty` only).',
  },
  {
    id: '000-4.2-clusterrolebindings-list',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/clusterrolebindings` lists cluster role bindings.',
  },
  {
    id: '000-4.2-clusterrolebindings-watch-name',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/watch/clusterrolebindings/{name}` watches one cluster role binding.',
  },
  {
    id: '000-4.2-roles-list-namespaced',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/namespaces/{namespace}/roles` returns 200 RoleList.',
  },
  {
    id: '000-4.2-roles-list-all-namespaces',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/roles` returns 200 RoleList of roles in all namespaces.',
  },
  {
    id: '000-4.2-roles-watch-name',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/rbac.authorization.orch.io/v1/watch/namespaces/{namespace}/roles/{name}` watches one role.',
  },
  {
    id: '000-4.2-podgroups-watch-all-namespaces',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'MUST', source: 'spec',
    text: 'GET `/apis/scheduling.orch.io/v1beta1/watch/podgroups` watches pod groups across all namespaces (200 WatchEvent).',
  },
  {
    id: '000-4.2-read',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Read: GET C/{name} returns 200 with the resource, or 404 NotFound if it does not exist.',
  },
  {
    id: '000-4.2-status-ignored-on-main',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'For a resource with a status subresource, a write to the main resource ignores `status`: the stored status is kept (upstream registry strategies copy it from the old object; status is written through `<item>/status`).',
  },
  {
    id: '000-4.2-status-write-ignores-spec',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'A write through `<item>/status` changes only status: spec changes in its body are ignored (upstream status strategies reset everything but status).',
  },
  {
    id: '000-4.2-delete-collection-response',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Delete collection returns 200 with the list of deleted items or a Success Status.',
  },
  {
    id: '000-4.2-patch-content-types',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Patch accepts the content types `application/json-patch+json` (RFC 6902), `application/merge-patch+json` (RFC 7386), `application/strategic-merge-patch+json` and `application/apply-patch+yaml`; any other gets 415.',
  },
  {
    id: '000-4.2-json-patch-test-failure',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'A JSON patch whose `test` operation fails is rejected with 422.',
  },
  {
    id: '000-4.2-strategic-merge-keyed-lists',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Strategic merge patch: lists with patchStrategy merge and a patchMergeKey merge by key.',
  },
  {
    id: '000-4.2-strategic-merge-directives',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Strategic merge patch supports the directives `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<f>` and `$setElementOrder/<f>`.',
  },
  {
    id: '000-4.2-strategic-merge-unkeyed-lists-replaced',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Strategic merge patch: lists without a patch strategy are replaced (e.g. ResourceQuota scopeSelector values).',
  },
  {
    id: '000-4.2-apply-creates',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'An apply patch to a missing object creates it (201).',
  },
  {
    id: '000-4.2-apply-conflict',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'An apply that changes fields owned by another manager gets 409 reason Conflict, message `Apply failed with 1 conflict: conflict with "mgr": .spec.x`, causes `{reason: "FieldManagerConflict", message, field: ".spec.x"}`.',
  },
  {
    id: '000-4.2-apply-force',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'An apply with `force=true` takes ownership of conflicting fields instead of failing.',
  },
  {
    id: '000-4.2-strategic-merge-object-meta',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Strategic merge patch treats ObjectMeta as upstream does: `finalizers` merge as a set, `ownerReferences` merge on key `uid`, `labels` and `annotations` merge key by key (null deletes).',
  },
  {
    id: '000-4.2-apply-removes-dropped-fields',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'A field an applier set before, no longer sends, and no other manager owns is removed from the object by the apply (upstream server-side apply); a field another manager also owns stays.',
  },
  {
    id: '000-4.2-managed-fields-update-entries',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Create, replace and non-apply patches record an `Update` entry in metadata.managedFields under their fieldManager, owning the fields they set or changed; managedFields are kept across writes whose body does not carry them (upstream field manager).',
  },
  {
    id: '000-4.2-managed-fields-default-manager',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'A write without fieldManager is recorded under the User-Agent\'s program name, the part before the first `/` (upstream: `kubectl/v1.32.0 (linux/amd64) ...` gives `kubectl`).',
  },
  {
    id: '000-4.2-delete-options',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'DeleteOptions may be given as body or query: gracePeriodSeconds (>= 0), preconditions {uid, resourceVersion}, propagationPolicy Orphan|Background|Foreground, orphanDependents, dryRun.',
  },
  {
    id: '000-4.2-delete-preconditions',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'A delete whose DeleteOptions.preconditions (uid or resourceVersion) do not match the object gets 409 Conflict.',
  },
  {
    id: '000-4.2-delete-propagation-finalizers',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Delete with propagationPolicy Foreground adds the finalizer `foregroundDeletion`; Orphan adds `orphan`.',
  },
  {
    id: '000-4.2-delete-gc-background',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Background propagation (the default of every kind of this spec): the owner is removed at once, and the garbage collector then deletes its dependents, the objects whose `metadata.ownerReferences` name it (by uid) and have no other live owner.',
  },
  {
    id: '000-4.2-delete-gc-foreground',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Foreground propagation: the owner stays, with `deletionTimestamp` and the `foregroundDeletion` finalizer, while the garbage collector deletes its dependents; it is removed once no dependent whose owner reference has `blockOwnerDeletion: true` is left.',
  },
  {
    id: '000-4.2-delete-gc-orphan',
    doc: '000', section: '4.2', sectionTitle: 'Operations', level: 'SHOULD', source: 'ground-truth',
    text: 'Orphan propagation: the garbage collector removes the owner from its dependents\' `metadata.ownerReferences` (the dependents stay), then removes the `orphan` finalizer, and the owner goes.',
  },

  // ---------------------------------------------------------------- 4.3 Query parameter sets
  {
    id: '000-4.3-write-set',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'The write query set is: pretty, dryRun, fieldManager, fieldValidation.',
  },
  {
    id: '000-4.3-delete-set',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'The delete query set is: pretty, dryRun, gracePeriodSeconds, ignoreStoreReadErrorWithClusterBreakingPotential, orphanDependents, propagationPolicy.',
  },
  {
    id: '000-4.3-collection-delete-set',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'The collection-delete query set is: pretty, continue, dryRun, fieldSelector, gracePeriodSeconds, ignoreStoreReadErrorWithClusterBreakingPotential, labelSelector, limit, orphanDependents, propagationPolicy, resourceVersion, resourceVersionMatch, sendInitialEvents, shardSelector, timeoutSeconds.',
  },
  {
    id: '000-4.3-collection-delete-label-selector',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'On delete collection, `labelSelector` restricts by labels which objects are deleted; the others stay.',
  },
  {
    id: '000-4.3-collection-delete-field-selector',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'On delete collection, `fieldSelector` restricts by fields which objects are deleted; the others stay.',
  },
  {
    id: '000-4.3-list-set',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'The list query set is: pretty, allowWatchBookmarks, continue, fieldSelector, labelSelector, limit, resourceVersion, resourceVersionMatch, sendInitialEvents, shardSelector, timeoutSeconds, watch.',
  },
  {
    id: '000-4.3-pretty',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `pretty` (string): if `true`, output is pretty printed.',
  },
  {
    id: '000-4.3-pretty-default',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `pretty` defaults to `false` unless the user agent indicates a browser or command-line HTTP tool.',
  },
  {
    id: '000-4.3-dry-run-not-persisted',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `dryRun` (string): when present, changes are not persisted.',
  },
  {
    id: '000-4.3-dry-run-all',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `dryRun` valid value: `All` (all dry-run stages processed).',
  },
  {
    id: '000-4.3-dry-run-invalid',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'An invalid or unrecognized `dryRun` value yields an error response and no further processing.',
  },
  {
    id: '000-4.3-dry-run-full-validation',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A dry run (`dryRun=All`) validates and defaults fully and returns the would-be object, but persists nothing.',
  },
  {
    id: '000-4.3-dry-run-no-watch-event',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A dry run (`dryRun=All`) emits no watch event.',
  },
  {
    id: '000-4.3-field-manager-length',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `fieldManager` (string, name of the actor making the change) is fewer than 128 characters.',
  },
  {
    id: '000-4.3-field-manager-printable',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `fieldManager` contains printable characters only.',
  },
  {
    id: '000-4.3-field-manager-required-for-apply',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `fieldManager` is required for apply patches (`application/apply-patch`).',
  },
  {
    id: '000-4.3-field-manager-optional-non-apply',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `fieldManager` is optional for JsonPatch, MergePatch and StrategicMergePatch.',
  },
  {
    id: '000-4.3-field-validation-ignore',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`fieldValidation=Ignore` silently drops unknown fields in POST/PUT/PATCH bodies and keeps only the last of duplicate fields.',
  },
  {
    id: '000-4.3-field-validation-warn',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`fieldValidation=Warn` sends a warning via the standard warning response header for each dropped unknown field and each duplicate field; the request still succeeds and only the last duplicate persists.',
  },
  {
    id: '000-4.3-field-validation-default-warn',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`fieldValidation` defaults to `Warn` (from v1.23; `Ignore` before).',
  },
  {
    id: '000-4.3-field-validation-strict',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`fieldValidation=Strict` fails with BadRequest if any unknown or duplicate field exists in the body; the error lists all of them.',
  },
  {
    id: '000-4.3-field-validation-values',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`fieldValidation` values are `Ignore`, `Warn` (default) and `Strict`; any other value gets 422 Unsupported value.',
  },
  {
    id: '000-4.3-field-validation-warning-header',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`fieldValidation=Warn` sends one Warning header per problem: `Warning: 299 - "unknown field \\"spec.foo\\""`, `Warning: 299 - "duplicate field \\"spec.x\\""`.',
  },
  {
    id: '000-4.3-field-validation-raw-duplicates',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'Duplicate keys for fieldValidation must be detected in the raw JSON body (a plain JSON parse hides them).',
  },
  {
    id: '000-4.3-force-apply',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `force` (boolean) forces apply requests: the user re-acquires conflicting fields owned by others.',
  },
  {
    id: '000-4.3-force-non-apply-unset',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `force` must be unset for non-apply patches.',
  },
  {
    id: '000-4.3-grace-period-non-negative',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `gracePeriodSeconds` (integer, seconds before deletion) is non-negative.',
  },
  {
    id: '000-4.3-grace-period-zero-immediate',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`gracePeriodSeconds=0` means delete immediately.',
  },
  {
    id: '000-4.3-grace-period-nil-default',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'If `gracePeriodSeconds` is nil the per-type default is used.',
  },
  {
    id: '000-4.3-ignore-store-read-error-default',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `ignoreStoreReadErrorWithClusterBreakingPotential` (boolean) defaults to `false`.',
  },
  {
    id: '000-4.3-ignore-store-read-error-unsafe-delete',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'If `ignoreStoreReadErrorWithClusterBreakingPotential` is true, an unsafe deletion is triggered when normal deletion fails with a corrupt-object error (data cannot be transformed or decoded); unsafe deletion ignores finalizers, skips precondition checks and removes the object from storage.',
  },
  {
    id: '000-4.3-ignore-store-read-error-readable-object',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`ignoreStoreReadErrorWithClusterBreakingPotential=true` on an object that reads fine is refused with 422 Invalid (`ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`) and the object is left alone.',
  },
  {
    id: '000-4.3-orphan-dependents-finalizer',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `orphanDependents` (boolean, deprecated): if true or false, the `orphan` finalizer is added or removed.',
  },
  {
    id: '000-4.3-orphan-dependents-exclusive',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Only one of `orphanDependents` and `propagationPolicy` may be set.',
  },
  {
    id: '000-4.3-propagation-policy-values',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `propagationPolicy` (string) allowed values: `Orphan`, `Background`, `Foreground`.',
  },
  {
    id: '000-4.3-propagation-policy-default',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'The default `propagationPolicy` is decided by the object\'s finalizers and the resource-specific default.',
  },
  {
    id: '000-4.3-continue-token',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `continue` (string) is a server-defined token from a previous list with identical other parameters.',
  },
  {
    id: '000-4.3-continue-unrecognized',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'spec',
    text: 'The server may reject an unrecognized `continue` token (a freedom: refused, the answer is an error; taken, it is still a list).',
  },
  {
    id: '000-4.3-continue-not-with-watch',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`continue` is not supported when `watch` is true.',
  },
  {
    id: '000-4.3-continue-token-format',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'The `continue` token is opaque (upstream: unpadded base64url of `{"v":"meta.orch.io/v1","rv":N,"start":"key"}`).',
  },
  {
    id: '000-4.3-limit-max-items',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `limit` (integer) is the maximum number of items per list call.',
  },
  {
    id: '000-4.3-limit-continue-present',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'If more items exist beyond `limit`, the list metadata carries a `continue` value for the next chunk; only the presence of `continue` says whether more exist.',
  },
  {
    id: '000-4.3-limit-fewer-items',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'spec',
    text: 'A list with `limit` may return fewer items than the limit (even zero).',
  },
  {
    id: '000-4.3-limit-may-ignore',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'spec',
    text: 'Servers may ignore `limit` and return everything.',
  },
  {
    id: '000-4.3-limit-consistent-snapshot',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Continued results (limit/continue chunks) come from a consistent snapshot of the first call.',
  },
  {
    id: '000-4.3-limit-not-with-watch',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`limit` is not supported when `watch` is true.',
  },
  {
    id: '000-4.3-limit-remaining-item-count',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A chunk of a list without selectors that has more after it carries `metadata.remainingItemCount`, the number of objects after the chunk in the list\'s snapshot.',
  },
  {
    id: '000-4.3-field-selector',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `fieldSelector` (string) restricts the returned objects by their fields; default everything.',
  },
  {
    id: '000-4.3-field-selector-syntax',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`fieldSelector` terms are `field=value`, `field==value` or `field!=value` (an unset field reads as ""), joined by `,` and ANDed; every kind supports `metadata.name`, and `metadata.namespace` where it is namespaced.',
  },
  {
    id: '000-4.3-field-selector-kind-fields',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'Besides metadata fields, `fieldSelector` supports the fields each kind supports upstream, e.g. for Event `regarding.kind`, `regarding.namespace`, `regarding.name`, `regarding.uid`, `regarding.apiVersion`, `regarding.resourceVersion`, `regarding.fieldPath`, `reason`, `reportingController` and `type`.',
  },
  {
    id: '000-4.3-field-selector-unsupported',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A `fieldSelector` naming a field the kind does not support gets 400 BadRequest (`field label not supported: x`, or `"x" is not a known field selector: only "metadata.name", "metadata.namespace"` for kinds with only metadata fields).',
  },
  {
    id: '000-4.3-label-selector',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `labelSelector` (string) restricts the returned objects by their labels; default everything.',
  },
  {
    id: '000-4.3-label-selector-syntax',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`labelSelector` requirements are `key=value`, `key==value`, `key!=value` (also true without the key), `key in (v1,v2)`, `key notin (v1,v2)` (also true without the key), `key` and `!key`, joined by `,` and ANDed.',
  },
  {
    id: '000-4.3-label-selector-invalid',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A malformed `labelSelector` gets 400 BadRequest with the parser\'s message (e.g. `unable to parse requirement: found \'\', expected: \',\' or \')\'`).',
  },
  {
    id: '000-4.3-resource-version',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `resourceVersion` (string) is a constraint on which resource versions may serve the request; default unset.',
  },
  {
    id: '000-4.3-resource-version-match',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `resourceVersionMatch` (string) says how resourceVersion is applied to list calls; default unset.',
  },
  {
    id: '000-4.3-resource-version-match-recommended',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'spec',
    text: '`resourceVersionMatch` is recommended whenever `resourceVersion` is set.',
  },
  {
    id: '000-4.3-resource-version-match-exact',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A list with `resourceVersionMatch=Exact` is served at exactly the given resourceVersion (upstream; the spec names only `NotOlderThan`).',
  },
  {
    id: '000-4.3-resource-version-match-values',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`resourceVersionMatch` values are `Exact` or `NotOlderThan`; it is forbidden unless `resourceVersion` is set; `Exact` with resourceVersion `0` is forbidden.',
  },
  {
    id: '000-4.3-resource-version-with-continue',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'A list giving both `resourceVersion` and `continue` is rejected: `specifying resource version is not allowed when using continue`.',
  },
  {
    id: '000-4.3-allow-watch-bookmarks',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `allowWatchBookmarks` (boolean) requests watch events of type `BOOKMARK`.',
  },
  {
    id: '000-4.3-allow-watch-bookmarks-discretion',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'spec',
    text: 'Servers may ignore `allowWatchBookmarks` and send bookmarks at their discretion; no bookmark interval is guaranteed.',
  },
  {
    id: '000-4.3-allow-watch-bookmarks-ignored-non-watch',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`allowWatchBookmarks` is ignored when the request is not a watch.',
  },
  {
    id: '000-4.3-send-initial-events-stream',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'With `watch=true` and `sendInitialEvents=true`, the stream begins with synthetic events for the current objects, then a synthetic Bookmark event carrying the resource version of that set and the annotation `orch.io/initial-events-end` set to `true`, then normal change events.',
  },
  {
    id: '000-4.3-send-initial-events-requires-match',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`sendInitialEvents` requires `resourceVersionMatch=NotOlderThan`; any other or unset resourceVersionMatch yields an Invalid error.',
  },
  {
    id: '000-4.3-send-initial-events-not-older-than',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'With `sendInitialEvents`, `resourceVersionMatch=NotOlderThan` means data at least as new as resourceVersion (the bookmark is sent once synced that far); with resourceVersion unset it means a consistent read.',
  },
  {
    id: '000-4.3-send-initial-events-default',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`sendInitialEvents` defaults to true if resourceVersion is empty or `0`, false otherwise.',
  },
  {
    id: '000-4.3-shard-selector-gate',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `shardSelector` (string) is alpha and requires the ShardedListAndWatch feature gate.',
  },
  {
    id: '000-4.3-shard-selector-syntax',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`shardSelector` is a CEL expression built from `shardRange(<path>, \'<hexStart>\', \'<hexEnd>\')` terms joined by `||`.',
  },
  {
    id: '000-4.3-shard-selector-paths',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`shardSelector` paths use object-rooted form: `object.metadata.uid` or `object.metadata.namespace`.',
  },
  {
    id: '000-4.3-shard-selector-bounds',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: '`shardSelector` bounds are single-quoted hex strings with `0x` prefix, lower inclusive, upper exclusive, over the 64-bit FNV-1a hash space [0x0, 0x10000000000000000).',
  },
  {
    id: '000-4.3-shard-selector-hash',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: '`shardSelector` hashes the field\'s string bytes with FNV-1a 64 and keeps objects whose hash is in [start, end), e.g. `shardRange(object.metadata.uid, \'0x0000000000000000\', \'0x8000000000000000\')`; it applies to list and watch.',
  },
  {
    id: '000-4.3-shard-selector-shard-info',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'SHOULD', source: 'ground-truth',
    text: 'When `shardSelector` is honoured the list carries `metadata.shardInfo: {"selector": "..."}`.',
  },
  {
    id: '000-4.3-timeout-seconds',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `timeoutSeconds` (integer) is the timeout of the list or watch call regardless of activity.',
  },
  {
    id: '000-4.3-watch',
    doc: '000', section: '4.3', sectionTitle: 'Query parameter sets', level: 'MUST', source: 'spec',
    text: 'Query parameter `watch` (boolean) returns changes as a stream of add, update and remove notifications; specify resourceVersion.',
  },

  // ---------------------------------------------------------------- 5 Authentication
  {
    id: '000-5-namespace-authorization-scope',
    doc: '000', section: '5', sectionTitle: 'Authentication', level: 'MUST', source: 'spec',
    text: 'The `namespace` path parameter is the object name and authorization scope of the namespace.',
  },

  // ---------------------------------------------------------------- 6 Events
  {
    id: '000-6-watch-stream',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'A list call with `watch=true` returns 200 with a stream of WatchEvent of add, update and remove notifications.',
  },
  {
    id: '000-6-watch-bookmark',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'Watch streams may carry `BOOKMARK` events (see allowWatchBookmarks and sendInitialEvents).',
  },
  {
    id: '000-6-eviction-controller',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'The eviction-request controller observes EvictionRequests and creates Evictions.',
    surface: 'controllers',
  },
  {
    id: '000-6-eviction-responders',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'spec',
    text: 'Responders watch Evictions and report progress in their status.',
    surface: 'controllers',
  },
  {
    id: '000-6-event-resources-ordinary',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'MUST', source: 'spec',
    text: 'Event resources (section 2.7) are ordinary stored objects with the operations of section 4.',
  },
  {
    id: '000-6-watch-event-envelope',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'A watch response is one JSON object per line: `{"type": ..., "object": {...}}` with type one of `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`.',
  },
  {
    id: '000-6-watch-chunked-json',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'A watch response is 200, chunked, with Content-Type `application/json`.',
  },
  {
    id: '000-6-watch-bookmark-object',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'A BOOKMARK event\'s object is of the resource\'s own kind with only metadata.resourceVersion meaningful (upstream sends bookmarks only when allowWatchBookmarks=true, which the spec leaves to the server: §4.3).',
  },
  {
    id: '000-6-watch-initial-events',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'A watch with sendInitialEvents=true (with allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan) sends ADDED for every current object, then a BOOKMARK with annotation `orch.io/initial-events-end: "true"`, then changes.',
  },
  {
    id: '000-6-watch-expired-resource-version',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'A watch from a compacted resourceVersion returns 200 then one ERROR event whose object is a Status with code 410, reason Expired (`too old resource version: ...`).',
  },
  {
    id: '000-6-watch-timeout-ends',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'When a watch\'s timeoutSeconds elapses, the stream simply ends.',
  },
  {
    id: '000-6-watch-selector-transitions',
    doc: '000', section: '6', sectionTitle: 'Events', level: 'SHOULD', source: 'ground-truth',
    text: 'On a watch with a label or field selector, an object that stops matching arrives as a DELETED event (its last matching state) and one that starts matching as an ADDED event.',
  },

  // ---------------------------------------------------------------- 7 Errors (spec table)
  {
    id: '000-7-dry-run-invalid',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'An invalid or unrecognized dryRun value gets an error response; nothing is processed.',
  },
  {
    id: '000-7-field-validation-strict',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'fieldValidation=Strict with unknown or duplicate fields gets a BadRequest error naming all such fields.',
  },
  {
    id: '000-7-field-validation-warn',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'fieldValidation=Warn with unknown or duplicate fields gets success plus a warning header.',
  },
  {
    id: '000-7-continue-expired',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'An expired continue token (generally after five to fifteen minutes) or a changed server configuration gets 410 ResourceExpired, returned with a fresh continue token (continuing with it gives the next key against the latest snapshot, inconsistent with earlier results).',
  },
  {
    id: '000-7-send-initial-events-invalid',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'sendInitialEvents with resourceVersionMatch other than NotOlderThan gets an Invalid error.',
  },
  {
    id: '000-7-orphan-and-propagation',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Setting both orphanDependents and propagationPolicy is not allowed.',
  },
  {
    id: '000-7-force-non-apply',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'MUST', source: 'spec',
    text: 'Setting force on a non-apply patch is not allowed.',
  },

  // ---------------------------------------------------------------- 7 Errors (ground truth: error bodies)
  {
    id: '000-7-status-body',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Error bodies are a Status: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":M,"reason":R,"details":{name,group,kind,uid,causes:[{reason,message,field}],retryAfterSeconds},"code":N}` with code equal to the HTTP status.',
  },
  {
    id: '000-7-status-not-found',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A missing object gets 404 reason NotFound, message `<resource>.<group> "<name>" not found` (core group: `resourcequotas "q" not found`), details {name, group, kind: the plural resource}.',
  },
  {
    id: '000-7-status-already-exists',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Creating an object whose name is taken gets 409 reason AlreadyExists, message `<resource>.<group> "<name>" already exists`.',
  },
  {
    id: '000-7-status-conflict',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A write with a stale resourceVersion gets 409 reason Conflict, message `Operation cannot be fulfilled on <resource.group> "<name>": the object has been modified; please apply your changes to the latest version and try again`.',
  },
  {
    id: '000-7-status-invalid',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A validation failure gets 422 reason Invalid, message `<Kind>.<group> "<name>" is invalid: <errors>` (one error prints `field: body`, several `[e1, e2]`); details.kind is the Kind; one cause per field error {reason: FieldValueRequired|FieldValueInvalid|FieldValueNotSupported|FieldValueForbidden|FieldValueTooLong|FieldValueTooMany|FieldValueDuplicate, message, field}.',
  },
  {
    id: '000-7-status-field-error-messages',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Field error bodies read `Required value`, `Forbidden: d`, `Invalid value: "s": d`, `Unsupported value: "x": supported values: "a", "b"`, `Too long: may not be more than N bytes`, and `field is immutable`.',
  },
  {
    id: '000-7-status-invalid-options',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Bad query options get 422 Invalid with an empty name, e.g. `ListOptions.meta.orch.io "" is invalid: ...` (likewise PatchOptions, DeleteOptions, CreateOptions, UpdateOptions).',
  },
  {
    id: '000-7-status-bad-request',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A malformed request gets 400 reason BadRequest.',
  },
  {
    id: '000-7-status-unauthorized',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An unauthenticated request gets 401 reason Unauthorized.',
  },
  {
    id: '000-7-status-forbidden',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An unauthorized request gets 403 reason Forbidden.',
  },
  {
    id: '000-7-status-method-not-allowed',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A method a path does not support gets 405 reason MethodNotAllowed.',
  },
  {
    id: '000-7-status-not-acceptable',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An `Accept` header naming no media type the server can produce gets 406 reason NotAcceptable.',
  },
  {
    id: '000-7-status-gone',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Expired resource versions and continue tokens get 410 Gone with reason `Expired`.',
  },
  {
    id: '000-7-status-entity-too-large',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Request bodies over 3 MiB get 413 reason RequestEntityTooLarge.',
  },
  {
    id: '000-7-status-unsupported-media-type',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A request body in an unsupported Content-Type gets 415 reason UnsupportedMediaType, message `the body of the request was in an unknown format - accepted media types include: ...`.',
  },
  {
    id: '000-7-status-internal',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An internal server failure gets 500 reason InternalError.',
  },
  {
    id: '000-7-continue-invalid-token',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A list with a malformed continue token, when refused (the spec lets the server take it: §4.3), gets 400 `invalid continue token`.',
  },
  {
    id: '000-7-continue-expired-body',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An expired continue token gets 410 reason Expired, message `The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.`, and Status.metadata.continue carries a fresh token.',
  },
  {
    id: '000-7-send-initial-events-messages',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'sendInitialEvents validation gets 422 `ListOptions.meta.orch.io "" is invalid`: `resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`, or `resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"`.',
  },
  {
    id: '000-7-send-initial-events-forbidden-for-list',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'sendInitialEvents on a plain (non-watch) list gets 422 `sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`.',
  },
  {
    id: '000-7-force-non-apply-message',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'force on a non-apply patch gets 422 `PatchOptions.meta.orch.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`.',
  },
  {
    id: '000-7-apply-field-manager-required',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'An apply patch without fieldManager gets 422 `fieldManager: Required value: is required for apply patch`.',
  },
  {
    id: '000-7-field-manager-too-long',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A fieldManager of 128 or more characters gets 422 with a `Too long` field error.',
  },
  {
    id: '000-7-field-validation-strict-status',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'fieldValidation=Strict on create/update gets 400 `... strict decoding error: unknown field "spec.foo", duplicate field "x"` (all problems listed); on patch it gets 422.',
  },
  {
    id: '000-7-dry-run-unsupported-value',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'A dryRun value other than `All` gets 422 `dryRun: Unsupported value: ...: supported values: "All"`.',
  },
  {
    id: '000-7-orphan-and-propagation-message',
    doc: '000', section: '7', sectionTitle: 'Errors', level: 'SHOULD', source: 'ground-truth',
    text: 'Setting both orphanDependents and propagationPolicy gets 422 `orphanDependents and deletionPropagation cannot be both set`.',
  },

  // ---------------------------------------------------------------- 8 Limits
  {
    id: '000-8-eviction-request-conditions',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'EvictionRequest status.conditions has at most 100 entries.',
  },
  {
    id: '000-8-event-string-fields',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'Event action, reason and reportingInstance are at most 128 characters each.',
  },
  {
    id: '000-8-event-note',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'Event note is at most 1 kB.',
  },
  {
    id: '000-8-field-manager',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'fieldManager is fewer than 128 characters.',
  },
  {
    id: '000-8-continue-token-validity',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'SHOULD', source: 'spec',
    text: 'A continue token is generally valid for five to fifteen minutes.',
  },
  {
    id: '000-8-pod-group-min-count',
    doc: '000', section: '8', sectionTitle: 'Limits', level: 'MUST', source: 'spec',
    text: 'PodGroup gang minCount is a positive integer.',
  },

  // ---------------------------------------------------------------- 9 Versioning
  {
    id: '000-9-storageclass-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'StorageClass is served as `storage.orch.io/v1` (stable form).',
  },
  {
    id: '000-9-storageversionmigration-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'StorageVersionMigration is served as `storagemigration.orch.io/v1`.',
  },
  {
    id: '000-9-resourcequota-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'ResourceQuota is served as `v1` (core group).',
  },
  {
    id: '000-9-evictionrequest-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'EvictionRequest is served as `lifecycle.orch.io/v1alpha1` (alpha).',
  },
  {
    id: '000-9-podgroup-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'PodGroup is served as `scheduling.orch.io/v1beta1`, enabled by the GenericWorkload gate.',
  },
  {
    id: '000-9-podgroup-field-gates',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Further PodGroup fields are gated by CompositePodGroup, PodGroupPreemptionPolicy, DRAWorkloadResourceClaims (beta) and TopologyAwareWorkloadScheduling.',
  },
  {
    id: '000-9-event-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Event is served as `events.orch.io/v1`.',
  },
  {
    id: '000-9-rbac-version',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'Role-based access objects are served as `rbac.authorization.orch.io/v1`.',
  },
  {
    id: '000-9-release',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'SHOULD', source: 'spec',
    text: 'The reference corresponds to release 1.37.',
  },
  {
    id: '000-9-field-validation-default-change',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'The default of fieldValidation changed from Ignore to Warn in v1.23.',
  },
  {
    id: '000-9-orphan-dependents-deprecated',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'orphanDependents is deprecated in favour of propagationPolicy.',
  },
  {
    id: '000-9-shard-selector-alpha',
    doc: '000', section: '9', sectionTitle: 'Versioning', level: 'MUST', source: 'spec',
    text: 'The shardSelector parameter is alpha.',
  },
];
