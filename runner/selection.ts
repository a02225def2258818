// What the operator selected, as the report records it: an auditor reading a report must know
// which cases were asked for, under which stated conditions, and whether cases were left out.
import type { Case } from '../suites/case.js';
import type { Level } from '../suites/requirements/types.js';
import type { RunSelection, StatedFact } from './results.js';
import { FACTS, type TargetFacts } from './facts.js';
import { defaultGates } from './gates.js';

export interface SelectionInput {
  /** `--id` values (with --rerun-failed: the failed cases of its results file). */
  ids?: readonly string[];
  /** `--rerun-failed`: the results file whose failed cases were selected. */
  rerunFailed?: string;
  focus?: string;
  skip?: string;
  /** `--suite` values as given (repeatable, comma-separated lists allowed). */
  suite?: readonly string[];
  level?: Level;
  /** Parsed `--gates` (every gate, defaults included), only when the flag was given. */
  gates?: Record<string, boolean>;
  /** Facts the operator stated about a target given with --api (none for the embedded run). */
  facts?: TargetFacts;
  /** `--expect` file and its loaded entries. */
  expectFile?: string;
  expectations?: ReadonlyMap<string, string>;
  strict?: boolean;
  /** The selected cases and every case of the kit. */
  selected: readonly Case[];
  all: readonly Case[];
}

/** The facts stated, with their values; the authentication fact's value is a token and is left out. */
export function statedFacts(facts: TargetFacts | undefined): StatedFact[] {
  if (!facts) return [];
  const out: StatedFact[] = [];
  if (facts.continueTtlSeconds !== undefined) out.push({ fact: 'continueTtl', flag: FACTS.continueTtl.flag, value: `${facts.continueTtlSeconds}s` });
  if (facts.compactionIntervalSeconds !== undefined) out.push({ fact: 'compaction', flag: FACTS.compaction.flag, value: `${facts.compactionIntervalSeconds}s` });
  for (const path of facts.corruptObjects ?? []) out.push({ fact: 'corruptObject', flag: FACTS.corruptObject.flag, value: path });
  if (facts.failingHealthCheck) {
    const { endpoint, check } = facts.failingHealthCheck;
    out.push({ fact: 'failingHealthCheck', flag: FACTS.failingHealthCheck.flag, value: `${endpoint}/${check}` });
  }
  if (facts.nodeMonitorGracePeriodSeconds !== undefined) out.push({ fact: 'nodeMonitorGracePeriod', flag: FACTS.nodeMonitorGracePeriod.flag, value: `${facts.nodeMonitorGracePeriodSeconds}s` });
  if (facts.authentication) out.push({ fact: 'authentication', flag: FACTS.authentication.flag });
  return out;
}

export function buildRunSelection(input: SelectionInput): RunSelection {
  const ids = new Set(input.selected.map((c) => c.id));
  const partial = input.all.some((c) => !ids.has(c.id));
  const sel: RunSelection = {
    suites: (input.suite ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean),
    facts: statedFacts(input.facts),
    strict: !!input.strict,
    selectedCases: ids.size,
    totalCases: input.all.length,
    partial,
  };
  if (input.ids?.length) sel.ids = [...input.ids];
  if (input.rerunFailed !== undefined) sel.rerunFailed = input.rerunFailed;
  if (input.focus !== undefined) sel.focus = input.focus;
  if (input.skip !== undefined) sel.skip = input.skip;
  if (input.level !== undefined) sel.level = input.level;
  if (input.gates !== undefined) {
    // What the operator said that matters: the gates set against their 1.37 defaults.
    const defaults = defaultGates();
    sel.gates = Object.fromEntries(Object.entries(input.gates).filter(([name, on]) => defaults[name] !== on));
  }
  if (input.expectFile !== undefined) sel.expect = { file: input.expectFile, entries: Object.fromEntries(input.expectations ?? []) };
  return sel;
}
