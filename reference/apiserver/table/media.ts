// The conversions a client may ask for in Accept (upstream's `as`, `g` and `v` media type
// parameters): a Table of rows (`kubectl get`), or PartialObjectMetadata / PartialObjectMetadataList
// (metadata-only clients), in meta.orch.io or upstream's meta.k8s.io, version v1 or v1beta1.
// Upstream serves Tables as JSON or YAML, never streamed as YAML (nor does this server stream YAML).

export type ConversionKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** A conversion of the response, and the apiVersion of what it produces (`meta.k8s.io/v1`). */
export interface Conversion {
  readonly kind: ConversionKind;
  readonly apiVersion: string;
}

const KINDS: ReadonlySet<string> = new Set<ConversionKind>(['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']);
const GROUPS: ReadonlySet<string> = new Set(['meta.orch.io', 'meta.k8s.io']);
const VERSIONS: ReadonlySet<string> = new Set(['v1', 'v1beta1']);

/**
 * The output format and conversion one Accept range with `as=` asks for, or undefined when this
 * server does not make it (another kind, group or version, a media type other than JSON or YAML):
 * negotiation then passes over the range, as upstream does.
 */
export function acceptedConversion(
  type: string,
  subtype: string,
  params: ReadonlyMap<string, string>,
  stream: boolean,
): { type: 'json' | 'yaml'; convert: Conversion } | undefined {
  const kind = params.get('as')!;
  const group = params.get('g') ?? '';
  const version = params.get('v') ?? '';
  if (!KINDS.has(kind) || !GROUPS.has(group) || !VERSIONS.has(version)) return undefined;
  const streamParam = params.get('stream');
  if (streamParam !== undefined && (streamParam !== 'watch' || !stream)) return undefined;
  let format: 'json' | 'yaml';
  if ((type === '*' && subtype === '*') || (type === 'application' && (subtype === '*' || subtype === 'json'))) format = 'json';
  else if (type === 'application' && subtype === 'yaml' && !stream) format = 'yaml';
  else return undefined;
  return { type: format, convert: { kind: kind as ConversionKind, apiVersion: `${group}/${version}` } };
}
