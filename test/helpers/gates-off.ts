// The gates the spec names that are on by default in 1.37 and not locked: the declared-gates tests
// turn every one off at once (test/gates-off.test.ts for the agent cases on the embedded reference,
// test/etcd-suite.test.ts for the API and metrics cases through `serve` and `run --api`).
//
// Why one run with every such gate off at once, not one run per gate: each of these gates switches
// its own surface only (ComponentStatusz /statusz, ComponentFlagz /flagz, NativeHistograms the native
// exposition, ContainerCheckpoint the agent's /checkpoint route, DRAWorkloadResourceClaims the
// PodGroup claim fields) and none changes what another does, so a case that silently needs one of
// them fails there just as it would with that gate alone off: one suite run finds what five would.
// What it cannot see: a case that declares one of these gates on is skipped, so a second, undeclared
// dependency of it on another of them would need that gate off alone. GenericWorkload is turned on:
// PodGroups, and so their claim fields, exist only with it, and only then can a case lean on
// DRAWorkloadResourceClaims unseen (the few cases needing GenericWorkload off run in every default run).
import { GATES_1_37 } from '../../runner/gates.js';

export const GATES_OFF: readonly string[] = Object.entries(GATES_1_37).filter(([, g]) => g.default && !g.locked).map(([name]) => name).sort();

/** The gate states those runs state: each of GATES_OFF false, GenericWorkload true. */
export const GATES_OFF_STATED: Readonly<Record<string, boolean>> = { ...Object.fromEntries(GATES_OFF.map((name) => [name, false])), GenericWorkload: true };

/** The same, as `--gates` / `--feature-gates` take it. */
export const GATES_OFF_FLAG = Object.entries(GATES_OFF_STATED).map(([k, v]) => `${k}=${v}`).join(',');

/** A skip that names a gate and that the run declared its state. */
export const DECLARED_GATE_SKIP = /needs feature gate \w+=(true|false).*the run declares \(--gates\)/;
