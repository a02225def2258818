// The areas the agent proofs are split into, one test file each (by case id).
export const SYNC = /^agent\.(sync|pleg|kernel|events)\./;
export const NODE = /^agent\.(node|lease|conditions)\./;
export const SECCOMP = /^agent\.seccomp\./;
export const EXEC = /^agent\.(files|lock|config|watchdog|healthz|standalone|cri)\./;
export const CHECKPOINT = /^agent\.checkpoint\./;
export const PODINFO = /^agent\.podinfo\./;
export const STATS = /^agent\.stats\./;
export const PROOF_AREAS = [SYNC, NODE, SECCOMP, EXEC, CHECKPOINT, PODINFO, STATS];
