// Spec 000 §6 (and the watch row of §4.2): a list with watch=true streams add, update and remove
// notifications, one JSON WatchEvent per line (envelope from the ground-truth note).
import { defineCase, type Case } from '../case.js';
import { eventsFor } from '../watch.js';
import { expectCode, expectEqual, expectObject, fail, SUCCESS } from '../verify.js';
import { createStorageClass, scItem, SC_PATH } from './fixtures.js';

const common = { suite: 'watch', spec: { doc: '000', section: '6' }, level: 'MUST', impact: 'cluster-scoped', needs: ['api'] } as const;

export const watchCases: Case[] = [
  defineCase({
    ...common,
    id: 'api.storageclass.watch.added-modified-deleted',
    title: 'A watch from a list\'s resourceVersion sees ADDED, MODIFIED and DELETED for a StorageClass, in order',
    // The envelope ({type, object} per line) is upstream's, the means of reading the stream; its
    // Content-Type and chunking are the SHOULD case api.watch.chunked-json.
    requirements: ['000-6-watch-stream', '000-4.2-watch'],
    async run(ctx) {
      const list = expectObject(await ctx.api.get(SC_PATH), [200], 'StorageClassList', 'list before watching');
      const w = await ctx.api.watch(SC_PATH, { resourceVersion: list.metadata?.resourceVersion });
      expectEqual(w.status, 200, 'HTTP status of the watch');

      const sc = await createStorageClass(ctx);
      const name = sc.metadata.name;
      const changed = { ...sc, metadata: { ...sc.metadata, labels: { ...sc.metadata.labels, touched: 'yes' } } };
      expectObject(await ctx.api.put(scItem(name), changed), SUCCESS.replace, 'StorageClass', 'update');
      expectCode(await ctx.api.delete(scItem(name)), [200, 202], 'delete');

      const ours = await eventsFor(w, name, 3);
      w.close();
      if (w.badLines.length) fail('every line of the stream is a JSON WatchEvent', '{"type": ..., "object": ...} per line', w.badLines[0]);
      expectEqual(ours.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED'], `event types for ${name}`);
      for (const e of ours) expectEqual(e.object?.kind, 'StorageClass', `kind of the object in the ${e.type} event`);
      expectEqual(ours[1].object?.metadata?.labels?.touched, 'yes', 'the MODIFIED event carries the updated object');
    },
  }),
];
