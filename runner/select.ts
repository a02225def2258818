// Which cases a run includes: --id, --focus, --skip, --suite, --level.
import type { Case } from '../suites/case.js';
import type { Level } from '../suites/requirements/types.js';
import { UsageError } from './errors.js';
import { didYouMean } from './suggest.js';

export interface Selection {
  /** `--id`: exactly these cases (with the other flags still applied); unknown ids are refused. */
  ids?: readonly string[];
  focus?: string;
  skip?: string;
  suites?: readonly string[];
  level?: Level;
}

function regex(flag: string, src: string): RegExp {
  try {
    return new RegExp(src);
  } catch (err) {
    throw new UsageError(`${flag}: not a valid regular expression: ${(err as Error).message}`);
  }
}

/** A case matches a pattern when its id, title or one of its requirement ids does. */
function matches(re: RegExp, c: Case): boolean {
  return re.test(c.id) || re.test(c.title) || c.requirements.some((r) => re.test(r));
}

/** Refuses ids no case has, naming the nearest ones: a typo must not select nothing in silence. */
export function checkCaseIds(flag: string, ids: Iterable<string>, all: readonly Case[]): void {
  const known = new Set(all.map((c) => c.id));
  for (const id of ids) {
    if (!known.has(id)) throw new UsageError(`${flag}: no case has the id "${id}"${didYouMean(id, known)} (see 'orch-conformance list')`);
  }
}

export function selectCases(all: readonly Case[], sel: Selection): Case[] {
  const focus = sel.focus ? regex('--focus', sel.focus) : undefined;
  const skip = sel.skip ? regex('--skip', sel.skip) : undefined;
  const known = new Set(all.map((c) => c.suite));
  for (const s of sel.suites ?? []) {
    if (!known.has(s)) throw new UsageError(`--suite: unknown suite "${s}"${didYouMean(s, known)}; suites: ${[...known].sort().join(', ')}`);
  }
  if (sel.ids) checkCaseIds('--id', sel.ids, all);
  // Exact ids, not a pattern: `--id api.shape.role` must not also take `api.shape.rolebinding`.
  const ids = sel.ids?.length ? new Set(sel.ids) : undefined;
  return all.filter((c) =>
    (!ids || ids.has(c.id)) &&
    (!focus || matches(focus, c)) &&
    (!skip || !matches(skip, c)) &&
    (!sel.suites?.length || sel.suites.includes(c.suite)) &&
    (!sel.level || c.level === sel.level));
}
