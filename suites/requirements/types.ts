// The requirements catalogue: every normative rule of the spec, one entry each.
// Cases point at requirements by id; CONFORMANCE.md is generated from both.

/** The three spec documents in ../shared/seeds. */
export type SpecDoc = '000' | '001' | '002';

export const SPEC_DOC_TITLES: Record<SpecDoc, string> = {
  '000': 'Control-plane resource API',
  '001': 'Node agent interfaces',
  '002': 'Metrics and debug endpoints',
};

/** MUST: the spec states the rule. SHOULD: a recommendation, or a rule taken from upstream behaviour. */
export type Level = 'MUST' | 'SHOULD';

/**
 * Where the rule's words come from: the spec itself, or the ground-truth note of real upstream
 * behaviour for what the spec leaves "not shown" (such rules are SHOULD unless the spec makes them MUST).
 */
export type RuleSource = 'spec' | 'ground-truth';

export interface Requirement {
  /** Stable id: `<doc>-<section>-<slug>`, e.g. `000-2.2-reclaim-policy-default`. Never reuse or renumber. */
  readonly id: string;
  readonly doc: SpecDoc;
  /** Section number as printed in the spec, e.g. `2.2`, `4.3`, `7`. */
  readonly section: string;
  /** Section heading, e.g. `StorageClass`. */
  readonly sectionTitle: string;
  readonly level: Level;
  readonly source: RuleSource;
  /** The rule in the spec's own words (or the ground-truth note's, for source `ground-truth`). */
  readonly text: string;
  /**
   * Spec 001 only. `api`: the rule is about objects the control plane stores and validates (Pod, Node,
   * Lease fields), so a case against the API observes it. Without it a spec 001 rule is about the
   * node agent, and only a case that observes an agent (needs agent, cri or agent-exec) covers it.
   * `controllers` (any doc): the rule is about what a controller or the scheduler does (a state
   * transition, a computed status, a binding); only a case that observes one (declares
   * `controllers`) covers it, not a case that writes the outcome itself and reads it back.
   */
  readonly surface?: 'api' | 'controllers';
}
