// Which kinds travel in protobuf (application/vnd.kubernetes.protobuf) and as which message. Only
// names here: nothing is loaded until a protobuf body is read or written (messages.ts), so that
// requests in JSON pay a Set lookup at most.

/** The media type kubectl and client-go's typed clients send and ask for first. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** A watch stream in protobuf: length-prefixed WatchEvent messages (codec.ts). */
export const PROTOBUF_STREAM_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** Kinds whose endpoints speak protobuf (their lists and Status answers come with them). */
const SERVED_KINDS: ReadonlySet<string> = new Set(['Namespace', 'ResourceQuota', 'Node', 'Pod', 'Binding']);

/** kind -> message, for bodies whose apiVersion is `v1` (the core group). */
const CORE_MESSAGES: ReadonlyMap<string, string> = new Map([
  ['Namespace', `${CORE}.Namespace`],
  ['NamespaceList', `${CORE}.NamespaceList`],
  ['ResourceQuota', `${CORE}.ResourceQuota`],
  ['ResourceQuotaList', `${CORE}.ResourceQuotaList`],
  ['Node', `${CORE}.Node`],
  ['NodeList', `${CORE}.NodeList`],
  ['Pod', `${CORE}.Pod`],
  ['PodList', `${CORE}.PodList`],
  ['Status', `${META}.Status`],
  ['Binding', `${CORE}.Binding`],
]);

/** The bodies of pods/{name}/eviction: policy/v1, and v1beta1, the same message. */
const EVICTION_VERSIONS: ReadonlySet<string> = new Set(['policy/v1', 'policy/v1beta1']);

export const WATCH_EVENT_MESSAGE = `${META}.WatchEvent`;
export const UNKNOWN_MESSAGE = 'k8s.io.apimachinery.pkg.runtime.Unknown';

/** Whether a resource's endpoints read and write protobuf: a cheap check made on every request. */
export function servesProtobuf(s: { readonly group: string; readonly version: string; readonly kind: string }): boolean {
  return s.group === '' && s.version === 'v1' && SERVED_KINDS.has(s.kind);
}

/** The message of a body of this apiVersion and kind, or undefined when it has none. */
export function messageFor(apiVersion: string, kind: string): string | undefined {
  // A meta kind, named in the client's own group version or the meta group's: which versions are
  // acceptable is delete-options.ts's to say, as for JSON bodies.
  if (kind === 'DeleteOptions') return `${META}.DeleteOptions`;
  if (kind === 'Eviction') return EVICTION_VERSIONS.has(apiVersion) ? 'k8s.io.api.policy.v1.Eviction' : undefined;
  return apiVersion === 'v1' ? CORE_MESSAGES.get(kind) : undefined;
}

/** Whether bodies of a kind (a subresource's, such as Binding or Eviction) may come in protobuf. */
export function hasMessage(s: { readonly apiVersion: string; readonly kind: string }): boolean {
  return messageFor(s.apiVersion, s.kind) !== undefined;
}
