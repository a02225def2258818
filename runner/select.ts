// Which cases a run includes: --focus, --skip, --suite, --level.
import type { Case } from '../suites/case.js';
import type { Level } from '../suites/requirements/types.js';
import { UsageError } from './errors.js';

export interface Selection {
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

export function selectCases(all: readonly Case[], sel: Selection): Case[] {
  const focus = sel.focus ? regex('--focus', sel.focus) : undefined;
  const skip = sel.skip ? regex('--skip', sel.skip) : undefined;
  const known = new Set(all.map((c) => c.suite));
  for (const s of sel.suites ?? []) {
    if (!known.has(s)) throw new UsageError(`--suite: unknown suite "${s}"; suites: ${[...known].sort().join(', ')}`);
  }
  return all.filter((c) =>
    (!focus || matches(focus, c)) &&
    (!skip || !matches(skip, c)) &&
    (!sel.suites?.length || sel.suites.includes(c.suite)) &&
    (!sel.level || c.level === sel.level));
}
