// Freedoms of chunked lists (§4.3 limit and continue, §7): limit ignored, limit honoured with fewer
// items (even zero), items in any order, an expired token answered with the spec's reason word,
// an unrecognized token ignored instead of rejected.
import { randomBytes } from 'node:crypto';
import { answer, jsonBody, statusBody, type ProxiedResponse } from '../helpers/broken-target.js';
import { INCONSISTENT_CONTINUE } from '../../reference/apiserver/continue-token.js';
import { editBody, editParams, isApiRead, params, type LegalVariant } from '../helpers/variant-target.js';


const limited = (q: URLSearchParams) => Number(q.get('limit')) > 0;

export const listVariants: LegalVariant[] = [
  {
    name: 'limit-ignored',
    freedom: '§4.3 limit: "Servers may ignore limit and return everything" (no continue ever)',
    hooks: () => ({
      request(req) {
        if (!isApiRead(req)) return;
        editParams(req, (q) => {
          q.delete('limit');
          q.delete('continue');
        });
      },
    }),
  },
  {
    name: 'limit-fewer-first-chunk-empty',
    freedom: '§4.3 limit: "May return fewer items (even zero); only the presence of continue says whether more exist"',
    hooks: (ctx) => {
      // The first limited list is answered with zero items and a token of the proxy's own; that
      // token later gives the reference's answer to the first call (the consistent snapshot). Such
      // tokens expire as the reference's do, with a fresh token that starts the list again.
      const ttlMs = ctx.facts.continueTtlSeconds !== undefined ? ctx.facts.continueTtlSeconds * 1000 : Infinity;
      const tokens = new Map<string, { issued: number; firstCall: string; answer?: ProxiedResponse }>();
      const mint = (entry: { issued: number; firstCall: string; answer?: ProxiedResponse }) => {
        const token = `chunk-${randomBytes(9).toString('base64url')}`;
        tokens.set(token, entry);
        return token;
      };
      return {
        request(req) {
          if (!isApiRead(req)) return;
          const token = params(req).get('continue');
          const entry = token ? tokens.get(token) : undefined;
          if (!entry) return;
          if (Date.now() - entry.issued > ttlMs) {
            const fresh = mint({ issued: Date.now(), firstCall: entry.firstCall });
            return answer(410, { ...statusBody(410, 'Expired', INCONSISTENT_CONTINUE), metadata: { continue: fresh } });
          }
          // The checks the reference makes of a continued list's other parameters.
          const rv = params(req).get('resourceVersion');
          if (rv && rv !== '0') return answer(400, statusBody(400, 'BadRequest', 'specifying resource version is not allowed when using continue'));
          if (entry.answer) return { ...entry.answer, headers: { ...entry.answer.headers } };
          req.path = entry.firstCall;
        },
        response(req, res) {
          const q = params(req);
          if (!isApiRead(req) || res.status !== 200 || !limited(q) || q.has('continue')) return;
          if (!Array.isArray(jsonBody(res)?.items)) return;
          const token = mint({ issued: Date.now(), firstCall: req.path, answer: { ...res, headers: { ...res.headers } } });
          editBody(res, (o) => {
            // Everything of the first call is still to come: its items and what it left for later.
            const later = o.metadata?.continue ? o.metadata.remainingItemCount : 0;
            o.metadata = { ...o.metadata, continue: token };
            if (typeof later === 'number') o.metadata.remainingItemCount = o.items.length + later;
            else delete o.metadata.remainingItemCount;
            o.items = [];
          });
        },
      };
    },
  },
  {
    name: 'items-reversed',
    freedom: '§4.3: the spec promises no order of list items (the reference sorts by name; this reverses)',
    hooks: () => ({
      response(req, res) {
        if (!isApiRead(req) || res.status !== 200) return;
        editBody(res, (o) => {
          if (Array.isArray(o.items)) o.items.reverse();
        });
      },
    }),
  },
  {
    name: 'continue-expired-resource-expired',
    freedom: '§7: an expired continue token is "410 ResourceExpired" (the reference says Expired, upstream\'s word)',
    hooks: () => ({
      response(req, res) {
        if (!isApiRead(req) || res.status !== 410 || !params(req).has('continue')) return;
        editBody(res, (o) => {
          if (o.kind === 'Status' && o.reason === 'Expired') o.reason = 'ResourceExpired';
        });
      },
    }),
  },
  {
    name: 'continue-unrecognized-ignored',
    freedom: '§4.3 continue: "the server may reject an unrecognized token" (the reference rejects; this ignores it and lists from the start)',
    hooks: (ctx) => ({
      async request(req) {
        if (!isApiRead(req) || !params(req).has('continue')) return;
        const res = await ctx.forward(req);
        // Only a token the reference does not recognize; other refusals stay.
        if (res.status !== 400 || !/invalid continue token/i.test(jsonBody(res)?.message ?? '')) return res;
        editParams(req, (q) => q.delete('continue'));
        return ctx.forward(req);
      },
    }),
  },
];
