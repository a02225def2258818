// Every case of spec 001, in spec order.
import type { Case } from '../case.js';
import { podCases } from './1-pods.js';
import { nodeStatusCases } from './2.2-node-status.js';
import { seccompCases } from './2.4-seccomp.js';
// <<imports>>

export const nodeAgentCases: Case[] = [
  ...podCases,
  ...nodeStatusCases,
  ...seccompCases,
  // <<cases>>
];
