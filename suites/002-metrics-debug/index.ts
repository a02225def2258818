// Every case of spec 002, in spec order.
import type { Case } from '../case.js';
import { sliCases } from './2.1-slis.js';
import { statuszFieldCases } from './2.3-statusz.js';
import { flagzFieldCases } from './2.4-flagz.js';
import { endpointCases } from './4-endpoints.js';
import { healthCases } from './4-health.js';
import { debugErrorCases } from './7-errors.js';
import { metricsCases } from './4-metrics.js';
import { failingHealthCases } from './4-health-failing.js';
import { flagsOnlyCases } from './4-flagz-only.js';
import { scrapingCases } from './4-scraping.js';
import { versioningCases } from './9-versioning.js';
import { httpsCases } from './1-https.js';
import { agentStatsCases } from './agent-stats.js';
// <<imports>>

export const metricsDebugCases: Case[] = [
  ...sliCases,
  ...statuszFieldCases,
  ...flagzFieldCases,
  ...endpointCases,
  ...healthCases,
  ...metricsCases,
  ...failingHealthCases,
  ...flagsOnlyCases,
  ...scrapingCases,
  ...versioningCases,
  ...httpsCases,
  ...agentStatsCases,
  // <<cases>>
  ...debugErrorCases,
];
