// Running against the embedded reference. A case that needs a feature gate in another state than
// the 1.37 default runs against a reference started with that gate set, so that every case runs
// (none is skipped for a gate the reference could simply have had).
import type { Case } from '../suites/case.js';
import { startReference, type RunningReference } from '../reference/server.js';
import { defaultGates } from './gates.js';
import { runGroups, type RunOptions } from './run.js';
import type { RunReport } from './results.js';

/** Cases grouped by the gate overrides they need; `fixed` puts them all in one group with those gates. */
export function groupByGates(cases: readonly Case[], fixed?: Record<string, boolean>): Array<{ overrides: Record<string, boolean>; cases: Case[] }> {
  if (fixed) return [{ overrides: fixed, cases: [...cases] }];
  const defaults = defaultGates();
  const groups = new Map<string, { overrides: Record<string, boolean>; cases: Case[] }>();
  for (const c of cases) {
    const overrides = Object.fromEntries(Object.entries(c.gates ?? {}).filter(([k, v]) => defaults[k] !== v).sort(([a], [b]) => a.localeCompare(b)));
    const key = JSON.stringify(overrides);
    if (!groups.has(key)) groups.set(key, { overrides, cases: [] });
    groups.get(key)!.cases.push(c);
  }
  // The default reference first: it is what the report names as the target.
  return [...groups.values()].sort((a, b) => Object.keys(a.overrides).length - Object.keys(b.overrides).length);
}

/**
 * Starts the references a selection needs (one per gate set; `gates`, when the user gave them, fixes
 * one set for all), runs the cases as one run and stops the references.
 */
export async function runEmbedded(cases: readonly Case[], opts: Omit<RunOptions, 'conn' | 'gates' | 'cases' | 'embedded'> & { gates?: Record<string, boolean> }): Promise<RunReport> {
  const defaults = defaultGates();
  const fixed = opts.gates ? Object.fromEntries(Object.entries(opts.gates).filter(([k, v]) => defaults[k] !== v)) : undefined;
  const refs: RunningReference[] = [];
  try {
    const groups = [];
    for (const g of groupByGates(cases, fixed)) {
      const ref = await startReference({ host: '127.0.0.1', port: 0, featureGates: g.overrides });
      refs.push(ref);
      groups.push({ conn: { baseUrl: ref.url }, gates: { ...defaults, ...g.overrides }, cases: g.cases });
    }
    return await runGroups(groups, { ...opts, embedded: true });
  } finally {
    await Promise.all(refs.map((r) => r.close()));
  }
}
