// Every case of spec 000, in spec order.
import type { Case } from '../case.js';
import { commonShapeCases } from './2.1-common-shape.js';
import { storageClassCases } from './2.2-storageclass.js';
import { discoveryCases } from './4-discovery.js';
import { operationCases } from './4.2-operations.js';
import { watchCases } from './6-watch.js';
import { errorCases } from './7-errors.js';

export const controlPlaneCases: Case[] = [
  ...commonShapeCases,
  ...storageClassCases,
  ...discoveryCases,
  ...operationCases,
  ...watchCases,
  ...errorCases,
];
