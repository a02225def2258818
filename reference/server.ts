// The reference control-plane API server: the generic apiserver core with the reference's
// resources on in-memory MVCC storage.
import { startApiServer } from './apiserver/apiserver.js';
import { REFERENCE_CONTROLLERS, REFERENCE_RESOURCES } from './resources/index.js';
import { MemoryStorage } from './storage/memory.js';
import { FeatureGates } from './features.js';

export interface ReferenceOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Only 'memory' so far; an etcd backend fits the same Storage interface. */
  storage?: 'memory';
  /** Gates set against their 1.37 defaults; unknown or locked ones throw FeatureGateError. */
  featureGates?: Readonly<Record<string, boolean>>;
}

export interface RunningReference {
  /** The API base URL, http://host:port. */
  url: string;
  /** Ends open watches and connections; resolves once the server has stopped. */
  close(): Promise<void>;
}

export { REFERENCE_RESOURCES };

export async function startReference(opts: ReferenceOptions = {}): Promise<RunningReference> {
  if (opts.storage !== undefined && opts.storage !== 'memory') throw new Error(`unsupported storage: ${String(opts.storage)}`);
  const featureGates = new FeatureGates(opts.featureGates);
  const storage = new MemoryStorage();
  try {
    const api = await startApiServer({ storage, strategies: REFERENCE_RESOURCES, controllers: REFERENCE_CONTROLLERS, host: opts.host, port: opts.port, featureGates });
    return { url: api.url, close: api.close };
  } catch (err) {
    await storage.close();
    throw err;
  }
}
