// Options for the project's property tests (fast-check): a fixed seed, so that CI runs the same
// inputs every time and a failure is reproducible; FC_SEED=<n> (or FC_SEED=random) explores others.
export function propertyRuns(numRuns: number, extra: { interruptAfterTimeLimit?: number } = {}): { numRuns: number; seed?: number } & typeof extra {
  const env = process.env['FC_SEED'];
  const seed = env === 'random' ? undefined : env ? Number(env) : 20261123;
  return { numRuns, ...(seed === undefined ? {} : { seed }), ...extra };
}
