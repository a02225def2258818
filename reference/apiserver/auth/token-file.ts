// The static token table (upstream --token-auth-file, tokenfile.NewCSV): CSV rows of
// `token,user,uid[,"group1,group2"]`; further columns are ignored. Read exactly as upstream reads it
// (Go's encoding/csv with its defaults, FieldsPerRecord -1): no field is trimmed, so a group written
// `" system:masters "` is that padded name and not the privileged group; the fourth field is split on
// commas as it stands. Where upstream only warns (an empty token: row skipped; a repeated token: the
// later row wins) the reference warns too. It refuses, where upstream would quietly run with a
// table that does not do what its author meant: a byte order mark (upstream makes it part of the
// first token, which then never matches) and an empty user name (upstream authenticates such a
// token as the user "").
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

/** Receives a warning about the file (upstream logs these with klog.Warningf and starts anyway). */
export type TokenFileWarn = (message: string) => void;

export function readTokenFile(file: string, warn?: TokenFileWarn): StaticToken[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TokenFileError(`cannot read token file '${file}': ${(err as Error).message}`);
  }
  return parseTokenCsv(text, file, warn);
}

/** Parses the token CSV; `file` only names the source in errors and warnings. */
export function parseTokenCsv(text: string, file = '<tokens>', warn: TokenFileWarn = () => {}): StaticToken[] {
  if (text.startsWith('\uFEFF')) {
    throw new TokenFileError(`token file '${file}' line 1 starts with a byte order mark (U+FEFF), which would become part of the first token: save the file without it`);
  }
  const out = new Map<string, StaticToken>();
  for (const { fields, line, number } of readCsv(text, file)) {
    const where = `record ${number} (line ${line})`;
    if (fields.length < 3) {
      throw new TokenFileError(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${fields.length}: ${where}`);
    }
    const [token, user, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') {
      warn(`empty token has been found in token file '${file}', ${where}: row skipped`);
      continue;
    }
    if (user === '') throw new TokenFileError(`token file '${file}': ${where} has an empty user name`);
    if (out.has(token)) warn(`duplicate token has been found in token file '${file}', ${where}: this later row wins`);
    // Upstream splits the field as it stands; an empty name (an empty field, or `a,,b`) names no
    // group anyone can bind, so it is left out rather than shown as "".
    const groupList = groups === undefined ? [] : groups.split(',').filter((g) => g !== '');
    out.set(token, { token, user, ...(uid ? { uid } : {}), ...(groupList.length ? { groups: groupList } : {}) });
  }
  return [...out.values()];
}

interface CsvRecord {
  readonly fields: string[];
  /** The line the record starts on (1-based). */
  readonly line: number;
  /** The record's number among non-empty records (1-based), as upstream counts them. */
  readonly number: number;
}

/**
 * Records as Go's encoding/csv Reader reads them with its defaults: `\r\n` ends a line like `\n`,
 * empty lines are skipped, fields are not trimmed, a quoted field may hold commas, newlines and
 * doubled quotes, a quote inside an unquoted field (` "x"` included) or after a closing quote is an
 * error.
 */
function readCsv(text: string, file: string): CsvRecord[] {
  // Lines with their ends normalised to "\n"; the last one gets one if it has none (a trailing
  // "\r" before the end of the file is dropped, as Go does).
  const lines: string[] = [];
  for (let start = 0; start < text.length;) {
    const nl = text.indexOf('\n', start);
    let line = nl < 0 ? text.slice(start) : text.slice(start, nl);
    if (nl < 0 || line.endsWith('\r')) line = line.endsWith('\r') ? line.slice(0, -1) : line;
    lines.push(line + '\n');
    start = nl < 0 ? text.length : nl + 1;
  }
  const records: CsvRecord[] = [];
  let li = 0;
  const bad = (line: number, why: string) => new TokenFileError(`token file '${file}' is not valid CSV: line ${line}: ${why}`);
  while (li < lines.length) {
    let line = lines[li++]!;
    if (line === '\n') continue; // empty line
    const startLine = li;
    const fields: string[] = [];
    for (;;) {
      if (line[0] !== '"') {
        const comma = line.indexOf(',');
        const field = comma >= 0 ? line.slice(0, comma) : line.slice(0, -1);
        if (field.includes('"')) throw bad(li, 'bare " in non-quoted-field');
        fields.push(field);
        if (comma < 0) break;
        line = line.slice(comma + 1);
        continue;
      }
      // Quoted field: may run over several lines.
      let field = '';
      line = line.slice(1);
      let done = false;
      for (;;) {
        const q = line.indexOf('"');
        if (q < 0) {
          field += line;
          if (li >= lines.length) throw bad(startLine, 'extraneous or missing " in quoted-field');
          line = lines[li++]!;
          continue;
        }
        field += line.slice(0, q);
        line = line.slice(q + 1);
        if (line[0] === '"') { field += '"'; line = line.slice(1); continue; }
        if (line[0] === ',') { line = line.slice(1); break; }
        if (line === '\n') { done = true; break; }
        throw bad(li, 'extraneous or missing " in quoted-field');
      }
      fields.push(field);
      if (done) break;
    }
    records.push({ fields, line: startLine, number: records.length + 1 });
  }
  return records;
}
