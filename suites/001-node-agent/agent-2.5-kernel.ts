// Spec 001 cases observing an agent (placeholder: filled in by the area's author).
import type { Case } from '../case.js';

export const agentKernelCases: Case[] = [];
