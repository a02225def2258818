// The whole conformance suite. Ids are unique: a test checks it.
import type { Case } from './case.js';
import { controlPlaneCases } from './000-control-plane/index.js';
import { nodeAgentCases } from './001-node-agent/index.js';
import { metricsDebugCases } from './002-metrics-debug/index.js';

export const ALL_CASES: readonly Case[] = [...controlPlaneCases, ...nodeAgentCases, ...metricsDebugCases];
