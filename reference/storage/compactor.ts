// Periodic compaction of a storage that keeps no history window of its own (etcd), as upstream's
// API server compacts etcd every --etcd-compaction-interval: each tick compacts to the revision
// seen at the previous tick, so history lives between one and two intervals. Several API servers
// on one etcd may each run one: compacting to a revision already compacted changes nothing.
import { isStorageError, type Storage } from './types.js';

export interface Compactor {
  stop(): void;
}

export function startCompactor(storage: Storage, intervalMs: number, log: (message: string, err?: unknown) => void = () => {}): Compactor {
  let previous: number | undefined;
  let running = false;
  const timer = setInterval(() => {
    // A slow etcd must not stack ticks up.
    if (running) return;
    running = true;
    (async () => {
      const current = await storage.currentRevision();
      if (previous !== undefined) await storage.compact(previous);
      previous = current;
    })().then(
      () => (running = false),
      (err: unknown) => {
        running = false;
        if (isStorageError(err, 'Closed')) clearInterval(timer);
        // etcd unreachable for a while: the next tick tries again.
        else log('storage compaction failed', err);
      },
    );
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
