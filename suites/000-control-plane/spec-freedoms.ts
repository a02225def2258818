// What spec 000 leaves open in the answers the API cases read, in one place: the success codes of
// deletes (§4.2: 200 and 202 for an item; the collection's answer is shown only for cluster role
// bindings) and the patch media types (§4.2: "Patch media types ... not shown"). A case's verdict
// takes every answer the spec allows; upstream's choice is a SHOULD finding (suites/findings.ts).
import type { ApiResponse } from '../../runner/client.js';
import { upstream } from '../findings.js';
import { expectCode, expectTrue, skip } from '../verify.js';

/** §4.2 Delete: "200 and 202". */
export const DELETED = [200, 202] as const;

/**
 * A delete collection succeeded. §4.2 shows its answer ("200: Status") only for cluster role
 * bindings; for the other kinds it is "not shown", so any success passes and upstream's 200 is a
 * finding.
 */
export function expectCollectionDeleted(res: ApiResponse, what: string): void {
  expectTrue(res.status >= 200 && res.status < 300, what, 'a success (HTTP 2xx; spec 000 §4.2 does not show the answer for this kind)', `HTTP ${res.status} ${res.text.slice(0, 200)}`);
  upstream(() => expectCode(res, 200, `${what}: HTTP code (upstream's)`));
}

/** The patch media types the cases send beyond JSON patch and merge patch. */
export const PATCH_TYPE_NAMES: Record<string, string> = {
  'application/apply-patch+yaml': 'server-side apply (application/apply-patch+yaml)',
  'application/strategic-merge-patch+json': 'strategic merge patch (application/strategic-merge-patch+json)',
};

/** The target refused the patch for its media type (415 Unsupported Media Type). */
export const unsupportedPatchType = (res: ApiResponse): boolean => res.status === 415;

/**
 * Skips the case when the target does not take the patch type it needs (415): the spec shows no
 * patch media types, so a server may serve none but JSON and merge patches, and then a rule about
 * apply or strategic merge cannot be observed. Whether upstream's types are served is checked by
 * cases of their own, at SHOULD (api.<kind>.apply, api.<kind>.patch.strategic).
 */
export function skipUnsupportedPatch(res: ApiResponse, contentType: string, rule: string): void {
  if (!unsupportedPatchType(res)) return;
  skip(`the target does not take ${PATCH_TYPE_NAMES[contentType] ?? contentType} patches (HTTP 415; spec 000 §4.2 shows no patch media types), so ${rule} cannot be observed`);
}
