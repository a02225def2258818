// The feature gates a target has, for `run --gates`: release 1.37 defaults (reference/features.ts)
// overridden by what the user says. A case that needs another gate state is skipped with the reason.
import { UsageError } from './errors.js';
import { FeatureGates, FeatureGateError, GATES_1_37 } from '../reference/features.js';

export { GATES_1_37 };

export function defaultGates(): Record<string, boolean> {
  return new FeatureGates().all();
}

/** Parses `Name=true,Other=false` over the defaults; unknown names, bad values and locked gates are usage errors. */
export function parseGates(spec: string | undefined): Record<string, boolean> {
  try {
    return FeatureGates.parse(spec).all();
  } catch (err) {
    if (err instanceof FeatureGateError) throw new UsageError(`--gates: ${err.message}`);
    throw err;
  }
}

/** Why a case cannot run with these gates, or undefined when it can. */
export function gateMismatch(needs: Readonly<Record<string, boolean>> | undefined, has: Record<string, boolean>): string | undefined {
  for (const [name, want] of Object.entries(needs ?? {})) {
    if ((has[name] ?? false) !== want) return `needs feature gate ${name}=${want}; the target has ${name}=${has[name] ?? false}`;
  }
  return undefined;
}
