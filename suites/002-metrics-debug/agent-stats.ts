// Placeholder: filled by the issue 12 work.
import type { Case } from '../case.js';

export const agentStatsCases: Case[] = [];
