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
import { errorShapeVariants } from './error-shapes.js';
import { debugTextVariants } from './debug-text.js';
import { specFreedomVariants } from './spec-freedoms.js';

export const VARIANTS: readonly LegalVariant[] = [
  ...statusCodeVariants,
  ...listVariants,
  ...watchVariants,
  ...resourceVersionVariants,
  ...representationVariants,
  ...transportVariants,
  ...mayRuleVariants,
  ...errorShapeVariants,
  ...debugTextVariants,
  ...specFreedomVariants,
];

/**
 * The targets the suite runs against, each taking the freedoms of its list at once (nearest the
 * reference first). A target that takes several freedoms is as legal as one that takes one, and
 * four runs of the whole suite cost what nineteen would not on a CI machine of two cores. Freedoms
 * are combined only where none can hide another: every variant here makes no case skip except
 * limit-ignored (no continue tokens, so the pagination cases skip) and patch-types-merge-only (no
 * apply or strategic merge patch, so the cases about those skip), which run together and apart from
 * the rest: no pagination case sends a patch, no patch case pages. The other pagination freedoms
 * are kept apart from each other. A variant that reads the reference's messages
 * (continue-unrecognized-ignored, api-version-unrecognized-accepted) stands nearer the reference
 * than messages-reworded. The error-shape freedoms (error-shapes.ts) change only error answers: a
 * 422 without causes sits beside reworded messages (a case may then find the field in neither, and
 * must not need to), a plain 400 and another 404 reason beside the other status-code freedoms, and
 * error bodies that are no Status at all beside limit-ignored (pagination cases skip there, and no
 * error answer is a pagination one). delete-202 and warnings-extra change only DELETE codes and add
 * a Warning no case's rule is about, and pods-deleted-at-once only when a pod goes; event-note-1000 refuses only Event writes with long notes:
 * none of them touches what the variants beside them change. patch-types-merge-only makes the apply
 * and strategic-merge cases skip: it runs beside freedoms no such case is about (pagination,
 * transport, debug text, DELETE codes, pods, and warnings on alpha and beta APIs, which no apply or
 * strategic-merge case of a warning rule uses), never beside a freedom of error answers or of write
 * codes (an apply refused with a small JSON error, or creating with 200, would go unseen).
 * A run's variants share one proxy (test/helpers/variant-target.ts) that applies them as a chain of a
 * proxy per variant would: hop-by-hop freedoms (`Connection: close`, watch writes split in pieces)
 * reach the run's client only from the last variant of its list, so connection-close-split-watch,
 * second in its run, shows them to the client only when it runs alone.
 * `LEGAL_VARIANTS=each` runs every variant alone, to tell which freedom a failure comes from.
 */
export const VARIANT_RUNS: readonly (readonly string[])[] = [
  ['continue-unrecognized-ignored', 'api-version-unrecognized-accepted', 'create-200-update-201', 'items-reversed', 'bookmarks-injected', 'messages-reworded', 'invalid-without-causes'],
  ['continue-expired-resource-expired', 'kind-required', 'bookmarks-unasked', 'create-202-update-200', 'resource-versions-opaque', 'json-layout-and-extras', 'event-note-1000', 'invalid-as-plain-400', 'not-found-other-reason'],
  ['limit-fewer-first-chunk-empty', 'connection-close-split-watch', 'slow-100ms', 'debug-text-reworded', 'warnings-extra', 'delete-202', 'pods-deleted-at-once', 'patch-types-merge-only'],
  ['limit-ignored', 'errors-small-json'],
];
