// Test-only: named switches that break a part of the reference in exactly one rule, for the
// project's proofs. A proof starts the process with the part's environment variable set to
// <name>[,<name>...]; nothing else sets it. A name no code checks changes nothing, and the proof that
// uses it then fails (its case passes against the "broken" part), so a typo cannot make a proof vacuous.

/** The `broken(name)` test of one part, read from `env` once, on first use. */
export function switchesFrom(env: string): (name: string) => boolean {
  let active: ReadonlySet<string> | undefined;
  return (name) => {
    active ??= new Set((process.env[env] ?? '').split(',').map((s) => s.trim()).filter(Boolean));
    return active.has(name);
  };
}
