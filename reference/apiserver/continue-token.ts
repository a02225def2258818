// The `continue` token of paged lists, as upstream k8s.io/apiserver/pkg/storage encodes it: unpadded
// base64url of {"v":"meta.orch.io/v1","rv":N,"start":"<key after the last one returned, relative
// to the collection prefix>"}. Tokens expire (default 5 minutes, spec §7, §8): an expired one gets
// 410 Expired with a fresh token whose rv is -1, which continues from the same key at the latest
// revision (upstream handleCompactedErrorForPaging).
import { badRequest, expired, type StatusError } from './errors.js';

export const CONTINUE_API_VERSION = 'meta.orch.io/v1';

/** Upstream's continue token validity is bounded by etcd compaction, every 5 minutes. */
export const DEFAULT_CONTINUE_TTL_MS = 5 * 60_000;

/** rv of a token that continues at the latest revision (after expiry). */
export const LATEST_REVISION = -1;

export const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of the ' +
  'results. Continuing with the provided token results in an inconsistent list - objects that were created, ' +
  'modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export interface ContinueToken {
  /** The snapshot revision; negative (LATEST_REVISION) for the latest one. */
  readonly rv: number;
  /** Key relative to the collection prefix where the next chunk starts. */
  readonly start: string;
}

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: CONTINUE_API_VERSION, rv, start }), 'utf8').toString('base64url');
}

const GENERIC = 'continue key is not valid';

function invalidToken(detail: string): StatusError {
  return badRequest(`invalid continue token: ${detail}`);
}

/** Go's path.Clean, enough to refuse start keys that climb out of the collection. */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

/** Decodes a token as upstream DecodeContinue does; anything malformed is 400 `invalid continue token: ...`. */
export function decodeContinue(token: string): ContinueToken {
  // Go's RawURLEncoding is strict: URL alphabet, no padding, no stray trailing bits.
  const bad = /[^A-Za-z0-9_-]/.exec(token);
  if (bad) throw invalidToken(`${GENERIC}: illegal base64 data at input byte ${bad.index}`);
  if (token.length % 4 === 1) throw invalidToken(`${GENERIC}: illegal base64 data at input byte ${token.length - 1}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken(`${GENERIC}: invalid character looking for beginning of value`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidToken(`${GENERIC}: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type storage.continueToken`);
  }
  const c = parsed as Record<string, unknown>;
  const v = c['v'] ?? '';
  const rv = c['rv'] ?? 0;
  const start = c['start'] ?? '';
  if (typeof v !== 'string') throw invalidToken(`${GENERIC}: json: cannot unmarshal ${typeof v} into Go struct field continueToken.v of type string`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv)) {
    throw invalidToken(`${GENERIC}: json: cannot unmarshal ${typeof rv} into Go struct field continueToken.rv of type int64`);
  }
  if (typeof start !== 'string') throw invalidToken(`${GENERIC}: json: cannot unmarshal ${typeof start} into Go struct field continueToken.start of type string`);
  if (v !== CONTINUE_API_VERSION) throw invalidToken(`${GENERIC}: server does not recognize this encoded version ${v}`);
  if (rv === 0) throw invalidToken(`${GENERIC}: incorrect encoded start resourceVersion (version ${CONTINUE_API_VERSION})`);
  if (start.length === 0) throw invalidToken(`${GENERIC}: encoded start key empty (version ${CONTINUE_API_VERSION})`);
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) throw invalidToken(`${GENERIC}: ${start}`);
  return { rv, start: key.slice(1) };
}

/** The 410 for an expired or compacted continue token, carrying a token for the rest at the latest revision. */
export function continueExpired(start: string): StatusError {
  const err = expired(INCONSISTENT_CONTINUE);
  err.status.metadata.continue = encodeContinue(LATEST_REVISION, start);
  return err;
}

/**
 * When the tokens of each snapshot revision were first handed out, so that a token lives `ttlMs`
 * from the first chunk of its list on. Tokens of a revision this server never issued (another
 * server, a restart) count as expired: "server configuration changed" in spec §7's words; except on
 * a storage shared by several API servers (etcd), where another server's token is as good as one's
 * own and lives, as upstream's do, until its revision is compacted (the list then answers 410).
 */
export class ContinueTokens {
  private readonly issued = new Map<number, number>();

  constructor(
    readonly ttlMs: number = DEFAULT_CONTINUE_TTL_MS,
    private readonly now: () => number = Date.now,
    private readonly acceptForeign = false,
  ) {}

  /** A token for the chunk after `start` of the snapshot at `rv`. */
  issue(rv: number, start: string): string {
    const now = this.now();
    this.forgetOlderThan(now - this.ttlMs);
    if (!this.issued.has(rv)) this.issued.set(rv, now);
    return encodeContinue(rv, start);
  }

  /** Whether a decoded token may still continue its snapshot. */
  valid(token: ContinueToken): boolean {
    if (token.rv < 0) return true;
    const at = this.issued.get(token.rv);
    if (at === undefined) return this.acceptForeign;
    return this.now() - at <= this.ttlMs;
  }

  private forgetOlderThan(cutoff: number): void {
    // Insertion order is issue order, so the oldest come first.
    for (const [rv, at] of this.issued) {
      if (at >= cutoff) break;
      this.issued.delete(rv);
    }
  }
}
