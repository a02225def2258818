// The other outcome of each rule the spec words with "may" where the reference takes one (§2.1):
// it rejects an unrecognized apiVersion (this accepts it) and infers a missing kind (this requires
// it). The continue-token rule is in lists.ts, the bookmark rule in watch.ts.
import { answer, jsonBody, statusBody } from '../helpers/broken-target.js';
import { isApiPath, type LegalVariant } from '../helpers/variant-target.js';

/** The group/version a resource path is served under: `v1` for /api/v1/..., `g/v` for /apis/g/v/... */
function pathVersion(path: string): string | undefined {
  const m = /^\/api\/(v[^/?]+)|^\/apis\/([^/?]+\/[^/?]+)/.exec(path);
  return m ? (m[1] ?? m[2]) : undefined;
}

const writesObject = (method: string) => method === 'POST' || method === 'PUT';

export const mayRuleVariants: LegalVariant[] = [
  {
    name: 'api-version-unrecognized-accepted',
    freedom: '§2.1 apiVersion: the server "may reject unrecognized values" (the reference rejects; this reads the object as the endpoint\'s version)',
    hooks: (ctx) => ({
      async request(req) {
        if (!writesObject(req.method) || !isApiPath(req)) return;
        const body = jsonBody(req);
        const version = pathVersion(req.path);
        if (!body || typeof body.apiVersion !== 'string' || !version || body.apiVersion === version) return;
        // Ask the reference first: a version it recognizes (converts) stays as sent.
        const res = await ctx.forward(req);
        if (res.status !== 400 || !/API version/i.test(jsonBody(res)?.message ?? '')) return res;
        req.body = JSON.stringify({ ...body, apiVersion: version });
      },
    }),
  },
  {
    name: 'kind-required',
    freedom: '§2.1 kind: the server "may infer it from the endpoint" (the reference infers; this requires it)',
    hooks: () => ({
      request(req) {
        if (!writesObject(req.method) || !isApiPath(req)) return;
        const body = jsonBody(req);
        if (!body || typeof body !== 'object' || Array.isArray(body) || body.kind !== undefined) return;
        return answer(400, statusBody(400, 'BadRequest', `Object 'Kind' is missing in '${req.body.slice(0, 200)}'`));
      },
    }),
  },
];
