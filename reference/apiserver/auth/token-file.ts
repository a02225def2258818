// The static token table (upstream --token-auth-file, tokenfile.NewCSV): CSV rows of
// `token,user,uid[,"group1,group2"]`; further columns are ignored. A repeated token keeps the last
// row, as upstream (which only warns).
import { readFileSync } from 'node:fs';

export interface StaticToken {
  readonly token: string;
  readonly user: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

export function readTokenFile(file: string): StaticToken[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TokenFileError(`cannot read token file '${file}': ${(err as Error).message}`);
  }
  return parseTokenCsv(text, file);
}

/** Parses the token CSV; `file` only names the source in errors. */
export function parseTokenCsv(text: string, file = '<tokens>'): StaticToken[] {
  const out = new Map<string, StaticToken>();
  parseCsv(text, file).forEach((record, i) => {
    if (record.length === 1 && record[0] === '') return; // blank line
    if (record.length < 3) {
      throw new TokenFileError(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${record.length} (record ${i + 1})`);
    }
    const [token, user, uid, groups] = record as [string, string, string, string | undefined];
    // Upstream skips rows without a token (with a warning): an empty token would match nothing.
    if (!token) return;
    if (!user) throw new TokenFileError(`token file '${file}': record ${i + 1} has an empty user name`);
    const groupList = (groups ?? '').split(',').map((g) => g.trim()).filter(Boolean);
    out.set(token, { token, user, ...(uid ? { uid } : {}), ...(groupList.length ? { groups: groupList } : {}) });
  });
  return [...out.values()];
}

/**
 * RFC 4180 records as Go's encoding/csv reads them with TrimLeadingSpace: quoted fields may hold
 * commas, newlines and doubled quotes; a bare quote inside an unquoted field is an error.
 */
function parseCsv(text: string, file: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  let line = 1;
  const bad = (why: string) => new TokenFileError(`token file '${file}' is not valid CSV: line ${line}: ${why}`);
  while (i <= text.length) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw bad('extraneous or missing " in quoted-field');
        const ch = text[i]!;
        if (ch === '"') {
          if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
          i++;
          break;
        }
        if (ch === '\n') line++;
        field += ch;
        i++;
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') throw bad('extraneous or missing " in quoted-field');
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        if (text[i] === '"') throw bad('bare " in non-quoted-field');
        field += text[i];
        i++;
      }
    }
    record.push(field);
    if (text[i] === ',') { i++; continue; }
    if (text[i] === '\r') i++;
    i++;
    line++;
    records.push(record);
    record = [];
    if (i >= text.length) break;
  }
  return records;
}
