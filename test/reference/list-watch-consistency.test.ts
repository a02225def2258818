// The list-then-watch contract (spec §4.3, §6): a consumer that lists (in chunks) and then watches
// from the list's resourceVersion, while several writers create, update and delete concurrently,
// sees every change after the list exactly once, in order, and ends with the server's state.
import t from 'tap';
import { SC, WatchReader, call, sc, startTestServer, type WatchEventLine } from './helpers.js';

const WRITERS = 4;
const WRITES_PER_WRITER = 200;

interface Write {
  readonly rv: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly name: string;
}

/** One writer: creates, updates and deletes its own StorageClasses, recording each write's revision. */
async function writer(u: string, id: number, writes: Write[]): Promise<void> {
  const live: string[] = [];
  let created = 0;
  for (let i = 0; i < WRITES_PER_WRITER; i++) {
    const roll = (i * 7 + id * 13) % 10;
    if (live.length === 0 || roll < 4) {
      const name = `w${id}-${created++}`;
      const r = await call(u, 'POST', SC, sc(name, { metadata: { name, labels: { writer: String(id) } } }));
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
      live.push(name);
      writes.push({ rv: Number(r.body.metadata.resourceVersion), type: 'ADDED', name });
    } else if (roll < 8) {
      const name = live[i % live.length]!;
      const cur = (await call(u, 'GET', `${SC}/${name}`)).body;
      const r = await call(u, 'PUT', `${SC}/${name}`, { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, n: String(i) } } });
      if (r.status !== 200) throw new Error(`update ${name}: ${r.status} ${r.text}`);
      writes.push({ rv: Number(r.body.metadata.resourceVersion), type: 'MODIFIED', name });
    } else {
      const name = live.splice(i % live.length, 1)[0]!;
      const r = await call(u, 'DELETE', `${SC}/${name}`);
      if (r.status !== 200) throw new Error(`delete ${name}: ${r.status} ${r.text}`);
      writes.push({ rv: Number(r.body.metadata.resourceVersion), type: 'DELETED', name });
    }
  }
}

/** name -> resourceVersion of a list's items. */
const stateOf = (items: any[]): Map<string, string> => new Map(items.map((i) => [i.metadata.name, i.metadata.resourceVersion]));

t.test(`list then watch with ${WRITERS} writers x ${WRITES_PER_WRITER} writes: every change exactly once, in order`, async (t) => {
  const srv = await startTestServer(t);
  const u = srv.url;
  const writes: Write[] = [];
  const writing = Array.from({ length: WRITERS }, (_, id) => writer(u, id, writes));

  // Start listing once the writers are well under way, in chunks, as a reflector does.
  while (writes.length < 100) await new Promise((r) => setTimeout(r, 5));
  const items: any[] = [];
  let rv = '';
  let cont: string | undefined;
  let pages = 0;
  do {
    const page = (await call(u, 'GET', `${SC}?limit=7${cont ? `&continue=${cont}` : ''}`)).body;
    if (!rv) rv = page.metadata.resourceVersion;
    t.equal(page.metadata.resourceVersion, rv, `chunk ${++pages} is of the first chunk's snapshot`);
    items.push(...page.items);
    cont = page.metadata.continue;
  } while (cont);
  const listRv = Number(rv);
  const w = await WatchReader.open(`${u}${SC}?watch=true&resourceVersion=${rv}`);
  t.teardown(() => w.close());

  await Promise.all(writing);
  t.equal(writes.length, WRITERS * WRITES_PER_WRITER, 'every write was made');
  t.ok(writes.some((x) => x.rv > listRv), 'writes went on after the list');

  // The list is the state at its revision: every write up to it, none after.
  const expectedAtList = new Map<string, string>();
  for (const x of [...writes].sort((a, b) => a.rv - b.rv)) {
    if (x.rv > listRv) break;
    if (x.type === 'DELETED') expectedAtList.delete(x.name);
    else expectedAtList.set(x.name, String(x.rv));
  }
  t.same(stateOf(items), expectedAtList, 'the chunked list is exactly the state at its resourceVersion');

  const after = writes.filter((x) => x.rv > listRv).sort((a, b) => a.rv - b.rv);
  const events: WatchEventLine[] = [];
  while (events.length < after.length) {
    const ev = await w.next(10_000);
    if (!ev) break;
    events.push(ev);
  }
  t.same(
    events.map((e) => ({ rv: Number(e.object.metadata.resourceVersion), type: e.type, name: e.object.metadata.name })),
    after,
    'the watch: every write after the list, once each, in revision order',
  );

  const state = stateOf(items);
  for (const e of events) {
    if (e.type === 'DELETED') state.delete(e.object.metadata.name);
    else state.set(e.object.metadata.name, e.object.metadata.resourceVersion);
  }
  t.same(state, stateOf((await call(u, 'GET', SC)).body.items), 'list + events = the final state');
});
