// resourceVersions are opaque strings (spec §2.1 leaves ObjectMeta to upstream, where clients must
// not parse them): the variant shows the reference's numbers as non-numeric strings, still growing
// in the server's own sense, and maps them back in everything a client sends.
import { editBody, walkObjects, watchEvent, type LegalVariant } from '../helpers/variant-target.js';

// Upper case never occurs in object names, so a request's own text is not mistaken for a version.
const OPAQUE = /RV([0-9a-z]+)Z/g;
const opaque = (rv: string) => (/^\d+$/.test(rv) ? `RV${BigInt(rv).toString(36)}Z` : rv);
const numeric = (text: string) => text.replace(OPAQUE, (_, n: string) => [...n].reduce((acc, d) => acc * 36n + BigInt(parseInt(d, 36)), 0n).toString());

/** Every ObjectMeta's and ListMeta's resourceVersion (objects, lists, events, Status) made opaque. */
function opaqueVersions(v: unknown): void {
  walkObjects(v, (o) => {
    const m = o.metadata;
    if (m && typeof m === 'object' && typeof m.resourceVersion === 'string') m.resourceVersion = opaque(m.resourceVersion);
  });
}

export const resourceVersionVariants: LegalVariant[] = [
  {
    name: 'resource-versions-opaque',
    freedom: 'resourceVersion is an opaque string (ObjectMeta, "not shown", is upstream\'s: clients must not parse or compare it numerically)',
    hooks: () => ({
      request(req) {
        // A server's own versions are the only such strings a client sends: in the query
        // (resourceVersion), in bodies (metadata, delete preconditions, patches).
        req.path = numeric(req.path);
        req.body = numeric(req.body);
      },
      response(_req, res) {
        editBody(res, (o) => opaqueVersions(o));
      },
      watchLine(_req, line) {
        const e = watchEvent(line);
        if (!e) return line;
        opaqueVersions(e);
        return JSON.stringify(e);
      },
    }),
  },
];
