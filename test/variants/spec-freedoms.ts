// Freedoms spec 000 leaves in the answers of the API (issue 21 §1): warnings beyond the ones it
// requires, the delete codes it lists side by side, "1 kB" read as 1,000 bytes, and patch media types
// it does not show. Each takes one freedom the reference does not.
import { answer, jsonBody, statusBody, type ProxiedRequest } from '../helpers/broken-target.js';
import { isApiPath, type LegalVariant } from '../helpers/variant-target.js';
import { deletePodAtOnce } from '../helpers/pods-at-once.js';

const pathOnly = (req: ProxiedRequest): string => req.path.split('?')[0]!;
const mediaType = (req: ProxiedRequest): string => (Object.entries(req.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '').split(';')[0]!.trim().toLowerCase();

/** An alpha or beta API: a server may warn about its use (upstream does for some). */
const isPreRelease = (req: ProxiedRequest): boolean => isApiPath(req) && /\/v\d+(alpha|beta)\d+(\/|$)/.test(pathOnly(req));

const PRE_RELEASE_WARNING = '299 - "this API version is not stable: it may change or go away in a later release"';

function addWarning(headers: Record<string, string>): void {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'warning') ?? 'warning';
  headers[key] = headers[key] ? `${headers[key]}, ${PRE_RELEASE_WARNING}` : PRE_RELEASE_WARNING;
}

/** §4.2 shows the answer to a delete collection of cluster role bindings: 200, a Status. */
const isBindingCollection = (req: ProxiedRequest): boolean => /^\/apis\/rbac\.authorization\.orch\.io\/v1\/clusterrolebindings\/?$/.test(pathOnly(req));

/** The Event of spec 000 §2.7 (events.orch.io), written with a body that carries `note`. */
const isEventWrite = (req: ProxiedRequest): boolean =>
  ['POST', 'PUT', 'PATCH'].includes(req.method) && /^\/apis\/events\.orch\.io\/v1\/namespaces\/[^/]+\/events(\/[^/]+)?$/.test(pathOnly(req));

/** The note a write sets: the object's (POST, PUT, merge patch) or a JSON patch's add/replace. */
function noteOf(req: ProxiedRequest): unknown {
  const body = jsonBody(req);
  if (Array.isArray(body)) return body.find((op) => op?.path === '/note' && (op?.op === 'add' || op?.op === 'replace'))?.value;
  return body && typeof body === 'object' ? body.note : undefined;
}

/** The patch types spec 000 does not show, which upstream serves. */
const UNSHOWN_PATCH_TYPES = ['application/apply-patch+yaml', 'application/apply-patch+json', 'application/apply-patch+cbor', 'application/strategic-merge-patch+json'];

export const specFreedomVariants: LegalVariant[] = [
  {
    name: 'warnings-extra',
    freedom: '§4.3 Warn requires a warning per dropped or duplicate field, nothing else: this also warns on every answer of an alpha or beta API (v1alpha1, v1beta1), about no field',
    hooks: () => ({
      response(req, res) {
        if (isPreRelease(req)) addWarning(res.headers);
      },
      watchHead(req, head) {
        if (isPreRelease(req)) addWarning(head.headers);
      },
    }),
  },
  {
    name: 'delete-202',
    freedom: '§4.2: a delete answers 200 or 202 (the reference 200), and a delete collection\'s answer is not shown except for cluster role bindings (kept at 200): every 200 to a DELETE becomes 202, the body unchanged',
    hooks: () => ({
      response(req, res) {
        if (req.method === 'DELETE' && isApiPath(req) && res.status === 200 && !isBindingCollection(req)) res.status = 202;
      },
    }),
  },
  {
    name: 'pods-deleted-at-once',
    freedom: '§4.2: gracePeriodSeconds "if nil the per-type default is used", and spec 001 names no default for pods: a pod is deleted at once (as with gracePeriodSeconds=0) instead of being marked and left to its agent (upstream\'s graceful deletion)',
    hooks: () => ({
      request(req) {
        deletePodAtOnce(req);
      },
    }),
  },
  {
    name: 'event-note-1000',
    freedom: '§2.7/§8: an Event note is at most "1 kB", which may be read as 1,000 bytes (the reference takes 1,024): a write whose note is longer than 1,000 bytes is refused with 422 Invalid',
    hooks: () => ({
      request(req) {
        if (!isEventWrite(req)) return;
        const note = noteOf(req);
        if (typeof note !== 'string' || Buffer.byteLength(note, 'utf8') <= 1000) return;
        const name = jsonBody(req)?.metadata?.name ?? pathOnly(req).split('/')[7] ?? '';
        const message = `Event.events.orch.io ${JSON.stringify(name)} is invalid: note: Too long: may not be more than 1000 bytes`;
        return answer(422, statusBody(422, 'Invalid', message, [{ field: 'note', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1000 bytes' }]));
      },
    }),
  },
  {
    name: 'patch-types-merge-only',
    freedom: '§4.2: "Patch media types ... not shown": this serves JSON patch and merge patch only, and answers 415 UnsupportedMediaType to server-side apply and strategic merge patch',
    hooks: () => ({
      request(req) {
        if (req.method !== 'PATCH' || !isApiPath(req) || !UNSHOWN_PATCH_TYPES.includes(mediaType(req))) return;
        return answer(415, statusBody(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json`));
      },
    }),
  },
];
