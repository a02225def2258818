// README's figures against a run: the coverage it states (overall and per spec document) and its
// sample console output must be what the main run (every case against the embedded reference)
// gives, else README goes stale whenever cases or requirements are added. Figures README no longer
// states where this looks for them count as drift too, so the check cannot pass by finding nothing.
import type { RunReport } from '../../runner/results.js';
import { coverageOf } from '../../reporters/coverage.js';

/** Durations differ from run to run: `48.6s`, `1m36.8s`, `365ms` all read `<time>`. */
function withoutTimes(line: string): string {
  return line.replace(/\b\d+m\d+(?:\.\d+)?s\b|\b\d+(?:\.\d+)?(?:ms|s)\b/g, '<time>').trim();
}

/** The ```text block of README that shows the main command's console output. */
function sampleOutput(readme: string): string | undefined {
  const at = readme.indexOf('Console output of that command');
  if (at < 0) return undefined;
  return /```text\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
}

/**
 * What README states that `report` (the main run's JSON) and `consoleOut` (its console reporter's
 * standard output) contradict, one line each; empty when README is current.
 */
export function readmeDrift(readme: string, report: Pick<RunReport, 'summary' | 'cases' | 'coverage'>, consoleOut: string): string[] {
  const out: string[] = [];
  const cov = coverageOf(report as RunReport);
  const { covered, requirements } = cov.total;
  const missing = (what: string) => out.push(`README no longer states ${what} where this test looks for it`);
  const differ = (what: string, says: string, is: string) => { if (says !== is) out.push(`README says ${what} ${says}, the run gives ${is}`); };

  const overall = /\*\*(\d+) of the (\d+) requirements\*\*/.exec(readme);
  if (!overall) missing('"**N of the M requirements**"');
  else differ('requirements covered', `${overall[1]} of ${overall[2]}`, `${covered} of ${requirements}`);

  // Per spec document: "(000: 457 of 475, 001: 182 of 229, 002: 78 of 80)".
  const perDoc = new Map<string, { covered: number; requirements: number }>();
  for (const s of cov.sections) {
    const d = perDoc.get(s.doc) ?? { covered: 0, requirements: 0 };
    d.covered += s.covered;
    d.requirements += s.requirements;
    perDoc.set(s.doc, d);
  }
  const docs = /\((\d{3}: \d+ of \d+(?:,\s+\d{3}: \d+ of \d+)*)\)/.exec(readme);
  if (!docs) missing('the coverage per spec document "(000: N of M, ...)"');
  else {
    const stated = new Map([...docs[1].matchAll(/(\d{3}): (\d+) of (\d+)/g)].map((m) => [m[1], `${m[2]} of ${m[3]}`]));
    for (const [doc, d] of [...perDoc].sort(([a], [b]) => a.localeCompare(b))) differ(`spec ${doc}'s coverage`, stated.get(doc) ?? '(nothing)', `${d.covered} of ${d.requirements}`);
    for (const doc of stated.keys()) if (!perDoc.has(doc)) out.push(`README states coverage of spec ${doc}, which the run does not know`);
  }

  const others = /The other (\d+) are listed as "not covered"/.exec(readme);
  if (!others) missing('"The other N are listed as \\"not covered\\""');
  else differ('requirements not covered', others[1], String(requirements - covered));

  const sample = sampleOutput(readme);
  if (sample === undefined) {
    missing('the sample console output (a ```text block after "Console output of that command")');
    return out;
  }
  const header = /^Run \S+ against .*: (\d+) cases?$/m.exec(sample);
  if (!header) missing('the sample\'s header line "Run <id> against ...: N cases"');
  else differ('in its sample header', `${header[1]} cases`, `${report.summary.total} cases`);
  // The sample's closing lines (requirements, counts, verdict) are the console's own words: each must
  // be a line the run printed, durations aside.
  const printed = new Set(consoleOut.split('\n').map(withoutTimes));
  const closing = sample.split('\n').filter((l) => l.trim() && !/^(ok|not ok|skip|warn|Run) /.test(l) && l.trim() !== '…');
  if (closing.length === 0) missing('the sample\'s closing lines (requirements, counts, verdict)');
  for (const line of closing) if (!printed.has(withoutTimes(line))) out.push(`README's sample line is not what the run printed: ${line.trim()}`);
  return out;
}
