// The parameters of one media range (`type/subtype;k=v;q=0.5`), shared by the API server's and the
// metrics endpoints' content negotiation: lowercased keys, unquoted values, q apart (0 when unparsable).
export function parseMediaParams(parts: readonly string[]): { params: Record<string, string>; q: number } {
  const params: Record<string, string> = {};
  let q = 1;
  for (const p of parts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (k === 'q') {
      const n = Number(v);
      q = Number.isFinite(n) ? n : 0;
    } else {
      params[k] = v;
    }
  }
  return { params, q };
}
