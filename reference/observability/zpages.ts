// What /statusz and /flagz share: Accept negotiation between their plain text form and their
// structured JSON form (`application/json;v=<version>;g=config.orch.io;as=<Kind>`), the header of
// the text form, and the answers. Upstream: k8s.io/component-base/zpages/httputil.
import { parseAccept } from './exposition.js';

export const ZPAGES_GROUP = 'config.orch.io';
export const ZPAGES_WARNING = 'Warning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.';

/** The text form is refused for an Accept that allows neither it nor the structured form. */
export const TEXT_NOT_ACCEPTABLE = 'media type not acceptable, must be: text/plain';
/** JSON asked for without all of g, v and as (or with values this page does not serve). */
export const JSON_NOT_ACCEPTABLE = 'not acceptable';

export interface StructuredForm {
  /** `as`, e.g. Statusz. */
  readonly kind: string;
  /** `v` values served; every one answers with the same body. */
  readonly versions: readonly string[];
}

export type ZPageFormat = { readonly type: 'text' } | { readonly type: 'json' } | { readonly type: 'refused'; readonly message: string };

/**
 * Upstream NegotiateMediaTypeWithVersion: no Accept, or exactly the any-type wildcard, is text; otherwise the most
 * preferred clause that matches text/plain or application/json decides. JSON needs g, v and as on
 * that clause, naming this page's group, a served version and its kind.
 */
export function negotiateZPage(accept: string | undefined, form: StructuredForm): ZPageFormat {
  const header = (accept ?? '').trim();
  if (header === '' || header === '*/*') return { type: 'text' };
  for (const c of parseAccept(header)) {
    const anyType = c.type === '*' && c.subtype === '*';
    if (anyType || (c.type === 'text' && (c.subtype === 'plain' || c.subtype === '*'))) return { type: 'text' };
    // application/* picks JSON too, and carries no structured parameters of its own.
    if (c.type === 'application' && (c.subtype === 'json' || c.subtype === '*')) {
      return hasStructuredParams(c, form) ? { type: 'json' } : { type: 'refused', message: JSON_NOT_ACCEPTABLE };
    }
  }
  return { type: 'refused', message: TEXT_NOT_ACCEPTABLE };
}

function hasStructuredParams(c: { readonly params: Readonly<Record<string, string>> }, form: StructuredForm): boolean {
  return c.params['g'] === ZPAGES_GROUP && c.params['as'] === form.kind && form.versions.includes(c.params['v'] ?? '');
}

/** The first lines of a text page: a blank line, `<component> <title>`, the warning. */
export function textHeader(component: string, title: string): string {
  return `\n${component} ${title}\n${ZPAGES_WARNING}\n`;
}
