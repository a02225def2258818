// The streaming server's request cache, as upstream's (k8s.io/kubelet/pkg/cri/streaming/request_cache.go):
// Exec/Attach/PortForward store their request under a random token and answer its URL; the first use of
// the URL consumes the token (single use), a token older than the TTL (1 minute) is gone, and at most
// maxInFlight (1000) tokens wait at once: past that, Insert fails RESOURCE_EXHAUSTED "maximum number of
// in-flight requests exceeded", as upstream's NewErrorTooManyInFlight.
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { CriError } from '../state.js';

export const TOKEN_TTL_MS = 60_000;
export const MAX_IN_FLIGHT = 1000;
/** Upstream's token: 8 characters of raw URL-safe base64 (6 random bytes). */
const TOKEN_BYTES = 6;

export class RequestCache<T> {
  /** Insertion order is age order: the oldest first. */
  private readonly entries = new Map<string, { request: T; expires: number }>();

  constructor(private readonly ttlMs = TOKEN_TTL_MS, private readonly maxInFlight = MAX_IN_FLIGHT, private readonly now = () => Date.now()) {}

  insert(request: T): string {
    this.gc();
    if (this.entries.size >= this.maxInFlight) throw new CriError(grpc.status.RESOURCE_EXHAUSTED, 'maximum number of in-flight requests exceeded');
    let token: string;
    do token = randomBytes(TOKEN_BYTES).toString('base64url'); while (this.entries.has(token));
    this.entries.set(token, { request, expires: this.now() + this.ttlMs });
    return token;
  }

  /** The request, once: the token is gone afterwards (and an expired one answers undefined). */
  consume(token: string): T | undefined {
    const e = this.entries.get(token);
    if (!e) return undefined;
    this.entries.delete(token);
    return this.now() > e.expires ? undefined : e.request;
  }

  get size(): number { return this.entries.size; }

  private gc(): void {
    const now = this.now();
    for (const [token, e] of this.entries) {
      if (e.expires >= now) break; // the rest are younger
      this.entries.delete(token);
    }
  }
}
