// Test-only: named ways to change the reference's metrics for the project's proofs
// (test/proof/metrics-native-limit.ts). A proof starts a reference process with
// ORCH_CONFORMANCE_METRICS_BREAK=<name>[,<name>...]; nothing else sets it. A name no code checks
// changes nothing, and the proof that uses it then fails, so a typo cannot make a proof vacuous.
//
//   native-schema-8         native histograms start at schema 8 (the finest the spec allows) instead of
//                           the schema of bucket factor 1.1. Not a break: a legal resolution at which
//                           ordinary request latencies populate far more than 160 buckets, so the
//                           bucket limit's reduction really runs.
//   native-no-bucket-limit  native histograms never reduce their resolution: the §8 limit of 160
//                           buckets is not kept.
import { switchesFrom } from '../test-switches.js';

/** True when the test-only breakage `name` is on in this process (ORCH_CONFORMANCE_METRICS_BREAK). */
export const broken = switchesFrom('ORCH_CONFORMANCE_METRICS_BREAK');
