// The pod info service's wire definitions (pods.proto beside this file), loaded with protobufjs
// (cri/grpc-services.ts) for the agent that serves them and for the suite's client. Loaded on first use:
// importing this module costs nothing until a socket is served or called.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadServices, type ProtoOptions } from '../../../cri/grpc-services.js';

export { EVENT_TYPES, FIELD_MASK_KEY, PODS_SERVICE, type PodEventType } from './names.js';

/** Field names as the proto spells them (podUID), enums as their names, bytes as Buffers. */
const LOADER_OPTIONS: ProtoOptions = { keepCase: true, enums: String, defaults: true };

/**
 * Where pods.proto is. The compiled module runs from dist/reference/agent/pod-info/ and tsc does not
 * copy .proto files, so beside the module first (a packaging step may put it there), then the source tree.
 */
export function podsProtoPath(): string {
  const candidates = [new URL('./pods.proto', import.meta.url), new URL('../../../../reference/agent/pod-info/pods.proto', import.meta.url)];
  for (const c of candidates) {
    const p = fileURLToPath(c);
    if (existsSync(p)) return p;
  }
  throw new Error(`reference/agent/pod-info/pods.proto not found (looked at ${candidates.map((c) => fileURLToPath(c)).join(', ')})`);
}

export interface PodsDefinitions {
  /** Client constructor; `.service` is the definition a grpc Server registers. */
  Pods: grpc.ServiceClientConstructor;
}

let loaded: PodsDefinitions | undefined;

export function loadPods(): PodsDefinitions {
  if (loaded) return loaded;
  loaded = { Pods: loadServices(podsProtoPath(), ['v1alpha1.Pods'], LOADER_OPTIONS)['v1alpha1.Pods'] };
  return loaded;
}
