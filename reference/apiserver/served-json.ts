// The JSON text of stored objects as a GET serves them, remembered per key at its revision. A value
// at a revision never changes (revisions are never reused), so a GET of an unchanged object is
// answered with the text made the first time instead of decoding and encoding it again, the way
// upstream's watch cache keeps one serialization of an object for every watcher. Bounded: the
// oldest entry goes first.
import type { KeyValue } from '../storage/types.js';

export class ServedJsonCache {
  private readonly entries = new Map<string, { readonly revision: number; readonly text: string }>();

  constructor(private readonly capacity = 1024) {}

  /** The text for `kv`: remembered, or made by `render` and remembered. */
  textOf(kv: KeyValue, render: (kv: KeyValue) => string): string {
    const hit = this.entries.get(kv.key);
    if (hit && hit.revision === kv.modRevision) return hit.text;
    const text = render(kv);
    // Re-inserting moves the key to the end, so eviction takes the least recently written.
    this.entries.delete(kv.key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(kv.key, { revision: kv.modRevision, text });
    return text;
  }
}

/**
 * The JSON text of objects a write hands both to its caller and to the collection's watchers
 * (store.ts marks them): made once, for the answer and every watcher's event alike. Such objects
 * are final once marked: nothing may change them afterwards.
 */
const sharedText = new WeakMap<object, string | undefined>();

export function markShared(obj: object): void {
  if (!sharedText.has(obj)) sharedText.set(obj, undefined);
}

/** JSON.stringify(obj), made once for a shared object. */
export function jsonText(obj: unknown): string {
  if (typeof obj !== 'object' || obj === null || !sharedText.has(obj)) return JSON.stringify(obj);
  let text = sharedText.get(obj);
  if (text === undefined) sharedText.set(obj, (text = JSON.stringify(obj)));
  return text;
}
