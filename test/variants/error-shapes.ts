// Freedoms of the error answers. Spec 000 §7 names the errors (which writes are refused, a
// BadRequest for fieldValidation=Strict that lists the fields, 410 ResourceExpired with a fresh
// continue token, an Invalid error for sendInitialEvents without NotOlderThan) but says "Shape of
// error bodies: not shown": upstream's 422 for validation, its Status reasons and details.causes
// are its own choices. Each variant here takes one of the choices an independent server makes, and
// no MUST case may fail against it: upstream's shape is a SHOULD finding (suites/findings.ts).
import type { Breakage, ProxiedRequest, ProxiedResponse } from '../helpers/broken-target.js';
import { isApiPath, type LegalVariant } from '../helpers/variant-target.js';

function statusOf(res: ProxiedResponse): any {
  try {
    const o = JSON.parse(res.body);
    return o && typeof o === 'object' && o.kind === 'Status' ? o : undefined;
  } catch {
    return undefined;
  }
}

function setBody(res: ProxiedResponse, body: unknown): void {
  res.body = JSON.stringify(body);
  for (const k of Object.keys(res.headers)) if (k.toLowerCase() === 'content-type' || k.toLowerCase() === 'content-length') delete res.headers[k];
  res.headers['content-type'] = 'application/json';
}

/** An error answer of the API (not a watch stream, not the debug endpoints). */
const apiError = (req: ProxiedRequest, res: ProxiedResponse) => isApiPath(req) && res.status >= 400 && statusOf(res) !== undefined;

/**
 * The hooks of a variant that reshapes the API's error answers: `reshape` rewrites one in place (a
 * response of 400 or more whose body is a Status). A watch refused before its stream begins (e.g.
 * sendInitialEvents without resourceVersionMatch=NotOlderThan) is an error answer too, but passes the
 * proxy as a head, then its body as a line: the head's code becomes what the whole answer's would
 * (`reshape` of a bare Status of that code), and the body line is reshaped as an answer of the code
 * the server sent.
 */
function errorAnswers(reshape: (req: ProxiedRequest, res: ProxiedResponse) => void): Breakage {
  /** Watches the server refused, with the code it answered. */
  const refused = new WeakMap<ProxiedRequest, number>();
  return {
    response(req, res) {
      if (apiError(req, res)) reshape(req, res);
    },
    watchHead(req, head) {
      if (!isApiPath(req) || head.status < 400) return;
      refused.set(req, head.status);
      const bare: ProxiedResponse = { status: head.status, headers: {}, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: head.status }) };
      reshape(req, bare);
      head.status = bare.status;
    },
    watchLine(req, line) {
      const code = refused.get(req);
      if (code === undefined) return line;
      const res: ProxiedResponse = { status: code, headers: {}, body: line };
      if (statusOf(res) !== undefined) reshape(req, res);
      return res.body;
    },
  };
}

export const errorShapeVariants: LegalVariant[] = [
  {
    name: 'invalid-as-plain-400',
    freedom: '§7 "Shape of error bodies: not shown": a validation error answered 400 BadRequest (upstream 422 Invalid), without details.causes',
    hooks: () => errorAnswers((_req, res) => {
      if (res.status !== 422) return;
      const s = statusOf(res);
      const { causes: _dropped, ...details } = s.details ?? {};
      res.status = 400;
      setBody(res, { ...s, code: 400, reason: 'BadRequest', ...(s.details ? { details } : {}) });
    }),
  },
  {
    name: 'invalid-without-causes',
    freedom: '§7 "Shape of error bodies: not shown": 422 kept, but the Status carries no details.causes (the fields are named in the message only)',
    hooks: () => errorAnswers((_req, res) => {
      if (res.status !== 422) return;
      const s = statusOf(res);
      if (!Array.isArray(s.details?.causes)) return;
      delete s.details.causes;
      setBody(res, s);
    }),
  },
  {
    name: 'not-found-other-reason',
    freedom: '§7 "Shape of error bodies: not shown": a 404 whose Status reason is not upstream\'s NotFound',
    hooks: () => errorAnswers((_req, res) => {
      if (res.status !== 404) return;
      setBody(res, { ...statusOf(res), reason: 'ObjectMissing' });
    }),
  },
  {
    name: 'errors-small-json',
    freedom: '§7 "Shape of error bodies: not shown": errors answered with the code kept and a small JSON object `{code, error}` instead of a Status (410, whose fresh continue token the spec states, keeps its Status)',
    hooks: () => errorAnswers((_req, res) => {
      if (res.status === 410) return;
      const s = statusOf(res);
      setBody(res, { code: res.status, error: String(s.message ?? '') });
    }),
  },
];
