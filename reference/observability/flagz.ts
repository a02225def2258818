// /flagz (spec 002 §2.4, §4): the command-line flags the component was started with (defaults
// included), as sorted `name=value` text lines or as the structured Flagz object; confidential
// values are redacted in both.
import { textHeader, ZPAGES_GROUP, type StructuredForm } from './zpages.js';

/** The spec's row asks with v=v1alpha1 and the body says v1beta1; asking for v1beta1 works too. */
export const FLAGZ_FORM: StructuredForm = { kind: 'Flagz', versions: ['v1alpha1', 'v1beta1'] };
export const FLAGZ_API_VERSION = `${ZPAGES_GROUP}/v1beta1`;

/** What a confidential flag's value is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Flags whose values are confidential, by name: tokens, passwords, secrets, credentials, and keys
 * given inline (`--encryption-key`, but not `--tls-private-key-file`, which names a file).
 */
export function isConfidentialFlag(name: string): boolean {
  const n = name.toLowerCase();
  return /token|password|passwd|secret|credential/.test(n) || /(^|[-_])key$/.test(n);
}

/** The flags as shown: sorted by name, confidential values redacted. */
export function shownFlags(flags: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.entries(flags)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    // An empty value gives nothing away (and shows that the flag is unset).
    .map(([k, v]) => [k, isConfidentialFlag(k) && v !== '' ? REDACTED : v]);
}

export function flagzText(component: string, flags: Readonly<Record<string, string>>): string {
  return `${textHeader(component, 'flags')}\n${shownFlags(flags).map(([k, v]) => `${k}=${v}\n`).join('')}`;
}

/** The structured Flagz object of §2.4. */
export function flagzObject(component: string, flags: Readonly<Record<string, string>>): Record<string, unknown> {
  return {
    kind: FLAGZ_FORM.kind,
    apiVersion: FLAGZ_API_VERSION,
    metadata: { name: component },
    flags: Object.fromEntries(shownFlags(flags)),
  };
}
