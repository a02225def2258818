// What the agent tests share.

/**
 * Polls `f` every 25 ms until it gives something other than undefined, within `ms`: the agent acts on
 * watch events and PLEG relists, so a test waits for the state it expects, boundedly.
 */
export async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
