// Writing a response body in protobuf, for the handler's send.
import type { ServerResponse } from 'node:http';
import { encodeObject } from './codec.js';
import { PROTOBUF_MEDIA_TYPE } from './kinds.js';

/**
 * Answers with `body` enveloped in protobuf; false (nothing written) when its kind has no
 * message, so that the caller answers in JSON, which every protobuf client also accepts.
 */
export function sendProtobuf(res: ServerResponse, code: number, body: unknown, headers?: Record<string, string | string[]>): boolean {
  const bytes = encodeObject(body);
  if (!bytes) return false;
  res.writeHead(code, {
    ...headers,
    'Content-Type': PROTOBUF_MEDIA_TYPE,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(bytes.length),
  });
  res.end(bytes);
  return true;
}
