// The Status a request gets when storage itself fails (not a contract error such as a conflict):
// the handler and the auth filter (whose RBAC reads storage) answer alike.
import { isStorageError } from '../storage/types.js';
import { serviceUnavailable, timeout, type StatusError } from './errors.js';

/** The answer for a storage failure, or undefined when `err` is none (the caller's 500 path). */
export function storageFailure(err: unknown): StatusError | undefined {
  // A request that raced server shutdown: expected, not a bug worth logging.
  if (isStorageError(err, 'Closed')) return serviceUnavailable('the server is shutting down');
  if (isStorageError(err, 'Unavailable')) {
    // Upstream's request timeout answers a hung etcd with this Timeout (after its 60 s); here the
    // storage call's own deadline brings it as soon as that passes. A call that failed at once is 503.
    return err.details.timedOut
      ? timeout(`request did not complete within requested timeout - storage is unavailable: ${err.message}`, 0)
      : serviceUnavailable(`storage is unavailable: ${err.message}`);
  }
  return undefined;
}
