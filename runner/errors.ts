/** A mistake in how the tool was invoked (bad option, unknown reporter). The CLI maps it to exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
