// The whole catalogue, in spec order, with a lookup by id.
import type { Requirement } from './types.js';
import { CONTROL_PLANE } from './000-control-plane.js';
import { NODE_AGENT } from './001-node-agent.js';
import { METRICS_DEBUG } from './002-metrics-debug.js';

export type { Requirement, SpecDoc, Level, RuleSource } from './types.js';
export { SPEC_DOC_TITLES } from './types.js';

export const REQUIREMENTS: readonly Requirement[] = [...CONTROL_PLANE, ...NODE_AGENT, ...METRICS_DEBUG];

const byId = new Map(REQUIREMENTS.map((r) => [r.id, r]));

export function requirementById(id: string): Requirement | undefined {
  return byId.get(id);
}
