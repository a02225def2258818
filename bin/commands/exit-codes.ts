// The exit codes of every command, in one place: the CLI's contract with scripts and CI.
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, interrupted: 130, terminated: 143 } as const;
