// Every legal variant: targets that differ from the reference only where the spec leaves freedom.
// The whole suite must pass against each (test/legal-variants.test.ts).
import type { LegalVariant } from '../helpers/variant-target.js';
import { statusCodeVariants } from './status-codes.js';
import { listVariants } from './lists.js';
import { watchVariants } from './watch.js';
import { resourceVersionVariants } from './resource-versions.js';
import { representationVariants } from './representation.js';
import { transportVariants } from './transport.js';
import { mayRuleVariants } from './may-rules.js';

export const VARIANTS: readonly LegalVariant[] = [
  ...statusCodeVariants,
  ...listVariants,
  ...watchVariants,
  ...resourceVersionVariants,
  ...representationVariants,
  ...transportVariants,
  ...mayRuleVariants,
];
