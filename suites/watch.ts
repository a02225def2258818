// Reading a watch stream in a case: other runs and other cases write to the same collections at the
// same time, so a case picks out the events of its own object, within one overall deadline.
import type { WatchEvent, WatchStream } from '../runner/client.js';

/** Up to `count` events about the object `name`, waiting at most `timeoutMs` in all. */
export async function eventsFor(w: WatchStream, name: string, count: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
  const deadline = Date.now() + timeoutMs;
  const ours: WatchEvent[] = [];
  while (ours.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const ev = await w.next(left);
    if (!ev) break;
    if (ev.object?.metadata?.name === name) ours.push(ev);
  }
  return ours;
}
