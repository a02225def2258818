// Packages the reference needs only for some requests (YAML bodies, JSON patches, protobuf metrics),
// loaded on first use: loading them at start-up costs `serve` about a third of its start time,
// and most servers never see a YAML body. They are CommonJS, so `require` loads them synchronously
// and the same module instance an `import` would give is returned.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `load()` on the first call, its result ever after. */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => (loaded ??= { value: load() }).value;
}

export const yaml = onFirstUse(() => require('yaml') as typeof import('yaml'));
export const jsonPatch = onFirstUse(() => require('fast-json-patch') as typeof import('fast-json-patch'));
export const protobuf = onFirstUse(() => require('protobufjs') as typeof import('protobufjs'));
/** The etcd v3 client: only `serve --storage etcd` needs it (it pulls in gRPC and proto loading). */
export const etcd3 = onFirstUse(() => require('etcd3') as typeof import('etcd3'));
