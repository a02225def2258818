// The pod info service's names (spec 001 §4.2 with upstream's KEP-4188), without grpc-js: the suite's
// client reads them at load time, before it loads gRPC on first use.

/** Upstream's package and service; the spec names the RPCs and messages but no package. */
export const PODS_SERVICE = 'v1alpha1.Pods';
/** The metadata key carrying the field mask (upstream `x-kubernetes-fieldmask`, renamed). */
export const FIELD_MASK_KEY = 'x-orch-fieldmask';
/** Upstream's watch event types, field 2 of PodWatchResponse. */
export const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;
export type PodEventType = (typeof EVENT_TYPES)[number];
