// Sending a generated, memoised document (the OpenAPI ones) the way Go's http.ServeContent does for
// upstream's OpenAPI handlers: with its ETag, and 304 Not Modified without a body when the client's
// If-None-Match already names it, so kubectl's cached copy costs one round trip and no bytes.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface CachedDocument {
  readonly body: string | Uint8Array;
  /** Unquoted: uppercase hex SHA-512 of the body, as upstream computes it. */
  readonly etag: string;
}

export function cachedDocument(body: string | Uint8Array): CachedDocument {
  return { body, etag: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** RFC 9110 weak comparison, as ServeContent: `W/"x"` matches `"x"`, and `*` matches any. */
function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const quoted = `"${etag}"`;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === quoted || t === `W/${quoted}`;
  });
}

/** Answers a GET or HEAD with `doc` (200), or 304 when If-None-Match names its ETag. */
export function sendCachedDocument(req: IncomingMessage, res: ServerResponse, doc: CachedDocument, headers: Readonly<Record<string, string>>): void {
  const etag = `"${doc.etag}"`;
  if (noneMatchHits(req.headers['if-none-match'], doc.etag)) {
    // Like ServeContent's writeNotModified: no entity headers, no body.
    const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    res.writeHead(304, { ...kept, ETag: etag });
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, ETag: etag, 'Content-Length': String(Buffer.byteLength(doc.body)) });
  res.end(req.method === 'HEAD' ? undefined : doc.body);
}
