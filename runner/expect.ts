// The --expect file: known failures, each with a reason, so a CI can gate on regressions only.
// Accepted shapes (YAML or JSON): a map `case.id: reason`, or a list of `{id, reason}`.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Case } from '../suites/case.js';
import { UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

export function loadExpectations(file: string, all: readonly Case[]): Map<string, string> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--expect ${file}: cannot read it: ${(err as Error).message}`);
  }
  const entries: Array<[unknown, unknown]> = Array.isArray(doc)
    ? doc.map((e: any) => [e?.id, e?.reason])
    : doc && typeof doc === 'object' ? Object.entries(doc) : [];
  if (!Array.isArray(doc) && (doc === null || typeof doc !== 'object')) {
    throw new UsageError(`--expect ${file}: expected a map of case id to reason, or a list of {id, reason}`);
  }
  const ids = new Set(all.map((c) => c.id));
  const out = new Map<string, string>();
  for (const [id, reason] of entries) {
    if (typeof id !== 'string' || typeof reason !== 'string' || !reason.trim()) {
      throw new UsageError(`--expect ${file}: every entry needs a case id and a non-empty reason (got ${JSON.stringify([id, reason])})`);
    }
    // A typo would silently hide nothing and flag nothing: refuse it.
    if (!ids.has(id)) throw new UsageError(`--expect ${file}: no case has the id "${id}"${didYouMean(id, ids)} (see 'orch-conformance list')`);
    out.set(id, reason.trim());
  }
  return out;
}
