// Simulated container processes, the ExecSync interpreter and the CRI log writer of the mock runtime.
//
// COMMAND CONVENTION (what a container "runs" is decided by its command + args, joined as the argv):
//   ["sleep", "N"]                runs N seconds (fractions allowed, "infinity" = forever), exits 0
//   ["sh", "-c", "<script>"]      (also /bin/sh, bash, ash) runs a small script, see below; a shell
//                                 without -c reads its (empty) stdin and exits 0 at once
//   a built-in (below)            runs that one built-in and exits with its status
//   anything else, or empty       a long-running program: runs until stopped or killed (with both
//                                 command and args empty the image's default is not run: it runs until stopped)
// Scripts are lists of statements separated by `;`, newlines, `&&` and `||`, with `while COND; do ...; done`
// and `for NAME in WORDS; do ...; done` loops, pipes `a | b` (the stages run one after the other: b reads all
// of a's stdout) and assignments: `NAME=value` alone sets a shell variable, before a command it sets that
// command's environment only.
// Built-ins: echo [-n] ..., sleep N, exit [N], true, false, :, exec CMD..., trap '' TERM (the process then
// ignores SIGTERM, see stopping), hostname, env, printenv [NAME], pwd, id [-u|-g|-G] [-n], cat [FILE...]
// (stdin without a file), ls [-1] [-a] [PATH...], touch FILE..., mkdir [-p] DIR..., test / [ ... ] (-e -f -d
// -r -w -s -z -n, = != -eq -ne -lt -le -gt -ge, !), grep [-q -v -i -c -F -E] PATTERN [FILE...] (a JavaScript
// regular expression), wc [-l -w -c], head [-n N], pgrep [-f] [-l] [-x] PATTERN (the container's own processes:
// PID 1 and its running execs; exit 1 when none). Files are the container's view (container-view.ts):
// /proc/{1,self,<pid>}/{status,cmdline}, /etc/hostname, /etc/resolv.conf, /etc/hosts, the mounts (real host
// files), and the root (in-memory files; refused with "Read-only file system" when the root is read-only).
// Redirections `> FILE`, `>> FILE`, `< FILE`, `>&2`, `1>&2`, `2>&1`, `>/dev/null`, `2>/dev/null`. Expansions,
// outside single quotes, when a statement runs: `$NAME`, `${NAME}` (shell variables, then the container's env
// plus HOSTNAME), `$?`
// (the last status), `$((...))` (integer + - * / % and parentheses; bare names read variables) and `$(...)`
// (the stdout of a script, trailing newlines removed); no globbing, and field splitting only of the unquoted
// words of a `for` list. In a container's own
// script a command that is not a built-in is a long-running program: the script blocks there until the
// container is stopped. A script ends with the status of its last statement, or with `exit N`.
//
// EXIT REASONS, as containerd reports them: exit 0 is "Completed", any other code "Error"; an OOM kill is
// 137 with "OOMKilled".
//
// STOPPING: StopContainer(timeout) sends SIGTERM: a process exits at once with 143 (128+15), unless its
// script said `trap '' TERM`; then it is killed with SIGKILL after the timeout: 137. Timeout 0, a sandbox
// stop and RemoveContainer of a running container kill at once: 137.
//
// LOGS: stdout and stderr lines go to the container's log file (sandbox log_directory joined with the
// container's log_path) in the CRI format `<RFC3339Nano> <stdout|stderr> <F|P> <text>`; a line longer than
// 16 KiB is split into P (partial) records ending with an F record, as containerd does.
//
// EXECSYNC runs the same built-ins (a direct argv or `sh -c <script>`). There, an unknown command inside a
// script fails like a shell (`sh: X: not found`, 127); an unknown direct argv fails the call as a runtime
// does when the executable is missing (UNKNOWN). A timeout outlasted fails DEADLINE_EXCEEDED (the caller
// enforces it with the AbortSignal it passes). While it runs, an exec is a process of the container
// (/proc/<pid>, pgrep).
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { nowNs, rfc3339Nano } from './clock.js';
import { timerDelay } from '../../cri/timers.js';
import { ContainerFs, defaultView, FS_MESSAGES, groupName, userName, type ContainerView, type FsError, type Reader } from './container-view.js';

export type Stream = 'stdout' | 'stderr';

export interface ExitInfo { exitCode: number; reason: string; message: string }

export function reasonFor(exitCode: number): string {
  return exitCode === 0 ? 'Completed' : 'Error';
}

// ---------------------------------------------------------------------------------------------
// Shell-ish parsing

/** A piece of a word; expansions are kept as written and expanded when the statement runs. */
type Part = { kind: 'lit'; text: string } | { kind: 'var'; name: string } | { kind: 'arith'; expr: string } | { kind: 'cmd'; script: string };
/** `assigns`: the word starts with an unquoted `NAME=` (an assignment when it leads a command). */
interface Word { parts: Part[]; quoted: boolean; assigns?: string }
type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: string };

const WORD_END = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '<', '>', '(', ')']);

/** Tokenises a script: words (made of parts), operators ; && || | newline and redirections. */
function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = script.length;
  while (i < n) {
    const ch = script[i];
    if (ch === ' ' || ch === '\t' || ch === '\r') { i++; continue; }
    if (ch === '#') { while (i < n && script[i] !== '\n') i++; continue; }
    if (ch === '\n' || ch === ';') { tokens.push({ kind: 'op', op: ';' }); i++; continue; }
    if (script.startsWith('&&', i)) { tokens.push({ kind: 'op', op: '&&' }); i += 2; continue; }
    if (script.startsWith('||', i)) { tokens.push({ kind: 'op', op: '||' }); i += 2; continue; }
    const redirect = /^(?:[12]?>>|[12]?>&[12]|[12]?>)/.exec(script.slice(i, i + 4));
    if (redirect) { tokens.push({ kind: 'op', op: redirect[0] }); i += redirect[0].length; continue; }
    if (ch === '&' || ch === '|' || ch === '<' || ch === '(' || ch === ')') { tokens.push({ kind: 'op', op: ch }); i++; continue; }
    // A word: runs of unquoted, single- and double-quoted parts.
    const parts: Part[] = [];
    const lit = (text: string) => {
      const last = parts[parts.length - 1];
      if (last?.kind === 'lit') last.text += text; else parts.push({ kind: 'lit', text });
    };
    let quoted = false;
    // The word's leading run of plain unquoted characters, for `NAME=value`.
    let plain = '';
    let plainOnly = true;
    while (i < n && !WORD_END.has(script[i])) {
      const c = script[i];
      if (c === "'") {
        quoted = true;
        const end = script.indexOf("'", i + 1);
        if (end < 0) throw new SyntaxError('unterminated quoted string');
        lit(script.slice(i + 1, end));
        i = end + 1;
      } else if (c === '"') {
        quoted = true;
        i++;
        while (i < n && script[i] !== '"') {
          if (script[i] === '\\' && i + 1 < n && '"\\$`'.includes(script[i + 1])) { lit(script[i + 1]); i += 2; continue; }
          if (script[i] === '$') { i = dollar(script, i, parts, lit); continue; }
          lit(script[i++]);
        }
        if (i >= n) throw new SyntaxError('unterminated quoted string');
        i++;
      } else if (c === '\\' && i + 1 < n) {
        lit(script[i + 1]);
        i += 2;
      } else if (c === '$') {
        i = dollar(script, i, parts, lit);
      } else {
        if (plainOnly) plain += c;
        lit(c);
        i++;
        continue;
      }
      plainOnly = false;
    }
    const assigns = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(plain)?.[1];
    tokens.push({ kind: 'word', word: assigns ? { parts, quoted, assigns } : { parts, quoted } });
  }
  return tokens;
}

/** Reads a `$` expansion at i into `parts`; returns the index after it. */
function dollar(s: string, i: number, parts: Part[], lit: (t: string) => void): number {
  if (s.startsWith('$((', i)) {
    const end = closing(s, i + 3, 2);
    parts.push({ kind: 'arith', expr: s.slice(i + 3, end - 1) });
    return end + 1;
  }
  if (s.startsWith('$(', i)) {
    const end = closing(s, i + 2, 1);
    parts.push({ kind: 'cmd', script: s.slice(i + 2, end) });
    return end + 1;
  }
  const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(s.slice(i));
  if (braced) { parts.push({ kind: 'var', name: braced[1] }); return i + braced[0].length; }
  const plain = /^\$([A-Za-z_][A-Za-z0-9_]*|\?)/.exec(s.slice(i));
  if (plain) { parts.push({ kind: 'var', name: plain[1] }); return i + plain[0].length; }
  lit('$');
  return i + 1;
}

/** The index of the `)` that brings the parenthesis depth from `depth` to 0 (quotes skipped). */
function closing(s: string, from: number, depth: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (c === "'") { const e = s.indexOf("'", i + 1); if (e < 0) break; i = e; continue; }
    if (c === '\\') { i++; continue; }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new SyntaxError('unterminated $( or $((');
}

interface Redirect { op: string; target?: Word }
interface SimpleCommand { kind: 'simple'; argv: Word[]; redirects: Redirect[] }
interface WhileLoop { kind: 'while'; cond: CommandList; body: CommandList }
/** `for NAME in WORDS; do BODY; done` (without `in`: no words, as there are no positional parameters). */
interface ForLoop { kind: 'for'; name: string; words: Word[]; body: CommandList }
/** Commands joined by `|`: each stage's stdout is the next one's stdin. */
type Compound = SimpleCommand | WhileLoop | ForLoop;
interface Pipeline { kind: 'pipeline'; stages: Compound[] }
type Command = Compound | Pipeline;
/** Commands joined by `;` (always run), `&&` (run on success), `||` (run on failure). */
type CommandList = { join: ';' | '&&' | '||'; command: Command }[];

function literal(w: Word): string | undefined {
  return !w.quoted && w.parts.length === 1 && w.parts[0].kind === 'lit' ? w.parts[0].text : undefined;
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): CommandList {
    const list = this.list(new Set());
    if (this.pos < this.tokens.length) throw new SyntaxError(`syntax error near ${describe(this.tokens[this.pos])}`);
    return list;
  }

  private peekWord(): string | undefined {
    const t = this.tokens[this.pos];
    return t && t.kind === 'word' ? literal(t.word) : undefined;
  }

  private list(stop: Set<string>): CommandList {
    const out: CommandList = [];
    let join: ';' | '&&' | '||' = ';';
    for (;;) {
      while (this.tokens[this.pos]?.kind === 'op' && (this.tokens[this.pos] as { op: string }).op === ';') this.pos++;
      const word = this.peekWord();
      if (this.pos >= this.tokens.length || (word !== undefined && stop.has(word))) break;
      out.push({ join, command: this.pipeline() });
      const t = this.tokens[this.pos];
      if (!t) break;
      if (t.kind === 'op' && (t.op === ';' || t.op === '&&' || t.op === '||')) {
        join = t.op as ';' | '&&' | '||';
        this.pos++;
        continue;
      }
      const w = this.peekWord();
      if (w !== undefined && stop.has(w)) break;
      throw new SyntaxError(`syntax error near ${describe(t)}`);
    }
    return out;
  }

  private pipeline(): Command {
    const stages = [this.command()];
    while (this.tokens[this.pos]?.kind === 'op' && (this.tokens[this.pos] as { op: string }).op === '|') {
      this.pos++;
      stages.push(this.command());
    }
    return stages.length === 1 ? stages[0] : { kind: 'pipeline', stages };
  }

  private command(): Compound {
    if (this.peekWord() === 'for') {
      this.pos++;
      const name = this.peekWord();
      if (name === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new SyntaxError('syntax error: bad for loop variable');
      this.pos++;
      const words: Word[] = [];
      if (this.peekWord() === 'in') {
        this.pos++;
        for (let t = this.tokens[this.pos]; t && t.kind === 'word'; t = this.tokens[++this.pos]) words.push(t.word);
      }
      while (this.tokens[this.pos]?.kind === 'op' && (this.tokens[this.pos] as { op: string }).op === ';') this.pos++;
      this.expect('do');
      const body = this.list(new Set(['done']));
      this.expect('done');
      return { kind: 'for', name, words, body };
    }
    if (this.peekWord() === 'while') {
      this.pos++;
      const cond = this.list(new Set(['do']));
      this.expect('do');
      const body = this.list(new Set(['done']));
      this.expect('done');
      return { kind: 'while', cond, body };
    }
    const argv: Word[] = [];
    const redirects: Redirect[] = [];
    while (this.pos < this.tokens.length) {
      const t = this.tokens[this.pos];
      if (t.kind === 'word') { argv.push(t.word); this.pos++; continue; }
      if (/>/.test(t.op) || t.op === '<') {
        this.pos++;
        if (t.op.includes('&')) { redirects.push({ op: t.op }); continue; }
        const target = this.tokens[this.pos];
        if (!target || target.kind !== 'word') throw new SyntaxError(`syntax error: ${t.op} without a file`);
        redirects.push({ op: t.op, target: target.word });
        this.pos++;
        continue;
      }
      if (t.op === ';' || t.op === '&&' || t.op === '||' || t.op === '|') break;
      throw new SyntaxError(`unsupported shell syntax ${JSON.stringify(t.op)}`);
    }
    if (argv.length === 0) throw new SyntaxError('syntax error: empty command');
    return { kind: 'simple', argv, redirects };
  }

  private expect(word: string): void {
    if (this.peekWord() !== word) throw new SyntaxError(`syntax error: expected "${word}"`);
    this.pos++;
  }
}

function describe(t: Token): string {
  if (t.kind === 'op') return JSON.stringify(t.op);
  return JSON.stringify(t.word.parts.map((p) => (p.kind === 'lit' ? p.text : '$')).join(''));
}

// ---------------------------------------------------------------------------------------------
// Arithmetic: $((...)) over integers

/** Evaluates + - * / % with parentheses and unary signs; names read variables (unset or empty: 0). */
export function arithmetic(expr: string, lookup: (name: string) => string | undefined): number {
  const tokens = expr.match(/\d+|[A-Za-z_][A-Za-z0-9_]*|[-+*/%()]|\S/g) ?? [];
  let pos = 0;
  const fail = (): never => { throw new SyntaxError(`arithmetic syntax error: ${expr.trim()}`); };
  const primary = (): number => {
    const t = tokens[pos++];
    if (t === undefined) return fail();
    if (t === '(') { const v = sum(); if (tokens[pos++] !== ')') fail(); return v; }
    if (t === '-') return -primary();
    if (t === '+') return primary();
    if (/^\d+$/.test(t)) return Number(t);
    if (/^[A-Za-z_]/.test(t)) {
      const v = (lookup(t) ?? '').trim();
      if (v === '') return 0;
      if (!/^-?\d+$/.test(v)) fail();
      return Number(v);
    }
    return fail();
  };
  const product = (): number => {
    let v = primary();
    while (tokens[pos] === '*' || tokens[pos] === '/' || tokens[pos] === '%') {
      const op = tokens[pos++];
      const r = primary();
      if (op !== '*' && r === 0) throw new SyntaxError('arithmetic: division by zero');
      v = op === '*' ? v * r : op === '/' ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[pos] === '+' || tokens[pos] === '-') v = tokens[pos++] === '+' ? v + product() : v - product();
    return v;
  };
  if (tokens.length === 0) return 0;
  const v = sum();
  if (pos < tokens.length) fail();
  return v;
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** What a running script or exec can see and do. */
export interface ShellContext {
  hostname: string;
  env: Record<string, string>;
  workingDir: string;
  /** The container's in-memory files (absolute paths), shared by its process and its execs. */
  files: Map<string, string>;
  /** The container's configured view (identity, /proc, mounts, read-only root); a plain root one when absent. */
  view?: ContainerView;
  /** This process's pid inside the container (1 for the container's own process). */
  pid?: number;
  out(stream: Stream, text: string): void;
  signal: AbortSignal;
  /** A command that is not a built-in: a long-running program ('block') or a shell error ('notfound'). */
  unknown: 'block' | 'notfound';
  /** `trap '' TERM` was run (the process ignores SIGTERM). */
  ignoreTerm?: boolean;
  /** The status of the last statement, for `$?`. */
  lastStatus?: number;
  /** The shell's own variables (`NAME=value`, `for NAME in ...`), read before the environment. */
  vars?: Map<string, string>;
  /** An open stdin (the streaming server's exec, a container created with stdin: mocks/cri/streaming/);
   *  absent, stdin is empty. */
  stdin?: StdinReader;
}

/**
 * An open stdin, as the streaming server (mocks/cri/streaming/stdin.ts) provides it: it runs the programs
 * that read their stdin (`cat` without files, a shell without -c) and answers undefined for any other argv,
 * which then runs as usual.
 */
export interface StdinReader {
  run(argv: string[], ctx: ShellContext): Promise<number> | undefined;
}

class ExitSignal { constructor(readonly code: number) {} }
class Aborted extends Error {}

const BUILTINS = new Set(['echo', 'sleep', 'exit', 'true', 'false', ':', 'cat', 'hostname', 'env', 'printenv', 'pwd', 'trap',
  'exec', 'id', 'ls', 'touch', 'mkdir', 'test', '[', 'grep', 'wc', 'head', 'pgrep']);

export function isBuiltin(name: string): boolean {
  return BUILTINS.has(posix.basename(name));
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);

export function isShell(argv: string[]): boolean {
  return argv.length >= 1 && SHELLS.has(posix.basename(argv[0]));
}

/** Sleeps, rejecting with Aborted when the signal fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted());
    const onAbort = () => { if (timer) clearTimeout(timer); reject(new Aborted()); };
    const timer = Number.isFinite(ms) ? setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, timerDelay(ms)) : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `sleep` durations: seconds with an optional s/m/h/d suffix, or infinity. */
export function parseDuration(arg: string): number | undefined {
  if (arg === 'infinity' || arg === 'inf') return Infinity;
  const m = /^(\d+(?:\.\d+)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]]!;
  return Number(m[1]) * unit * 1000;
}

function resolvePath(ctx: ShellContext, p: string): string {
  return posix.resolve(ctx.workingDir || '/', p);
}

function fsOf(ctx: ShellContext): ContainerFs {
  ctx.view ??= defaultView([]);
  return new ContainerFs(ctx.files, ctx.view);
}

function isFsError(v: unknown): v is FsError {
  return typeof v === 'string' && v in FS_MESSAGES;
}

function lookupVar(ctx: ShellContext, name: string): string | undefined {
  if (name === '?') return String(ctx.lastStatus ?? 0);
  const own = ctx.vars?.get(name);
  if (own !== undefined) return own;
  if (name === 'HOSTNAME') return ctx.env.HOSTNAME ?? ctx.hostname;
  return ctx.env[name];
}

/** Expands a word's parts now (variables, arithmetic, command substitution). */
async function expandWord(w: Word, ctx: ShellContext): Promise<string> {
  let out = '';
  for (const p of w.parts) {
    if (p.kind === 'lit') out += p.text;
    else if (p.kind === 'var') out += lookupVar(ctx, p.name) ?? '';
    else if (p.kind === 'arith') {
      const expr = p.expr.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*|\?)\}?/g, (_, n: string) => lookupVar(ctx, n) ?? '');
      out += String(arithmetic(expr, (n) => lookupVar(ctx, n)));
    } else {
      // Command substitution: the script's stdout, its stderr passing through, in a subshell (exit ends only it).
      let captured = '';
      const sub: ShellContext = { ...ctx, out: (s, t) => { if (s === 'stdout') captured += t; else ctx.out(s, t); } };
      try {
        sub.lastStatus = await runList(parseScript(p.script), sub, 0);
      } catch (err) {
        if (!(err instanceof ExitSignal)) throw err;
        sub.lastStatus = err.code;
      }
      ctx.lastStatus = sub.lastStatus;
      out += captured.replace(/\n+$/, '');
    }
  }
  return out;
}

type Write = (s: Stream, text: string) => void;

/** What a built-in gets: its arguments, output, stdin (a pipe's or a file's), the container's files. */
interface Call { args: string[]; ctx: ShellContext; write: Write; input: string; fs: ContainerFs; self: Reader }

const err = (c: Call, text: string) => c.write('stderr', `${text}\n`);
const errText = (e: FsError) => FS_MESSAGES[e];

/** The inputs of cat/grep/wc/head: the files named (or stdin); a file that cannot be read is reported. */
async function inputs(c: Call, tool: string, files: string[]): Promise<{ name: string; text: string }[] | undefined> {
  if (files.length === 0) return [{ name: '', text: c.input }];
  const out: { name: string; text: string }[] = [];
  let failed = false;
  for (const f of files) {
    if (f === '-') { out.push({ name: f, text: c.input }); continue; }
    const r = await c.fs.read(resolvePath(c.ctx, f), c.self);
    if (isFsError(r)) {
      failed = true;
      err(c, r === 'EISDIR' ? `${tool}: read error: ${errText(r)}` : `${tool}: can't open '${f}': ${errText(r)}`);
    } else out.push({ name: f, text: r });
  }
  return failed && out.length === 0 ? undefined : Object.assign(out, { failed });
}

/** `id` as busybox prints it: names in parentheses where the simulated /etc/passwd and /etc/group know them. */
function idBuiltin(c: Call): number {
  const { uid, gid, groups } = c.ctx.view!.identity;
  const flags = c.args.filter((a) => a.startsWith('-')).join('').replace(/-/g, '');
  const names = flags.includes('n');
  const fmt = (n: number, name: string | undefined) => (names ? name ?? String(n) : String(n));
  const others = [gid, ...groups.filter((g) => g !== gid)];
  if (flags.includes('u')) c.write('stdout', `${fmt(uid, userName(uid))}\n`);
  else if (flags.includes('G')) c.write('stdout', `${others.map((g) => fmt(g, groupName(g))).join(' ')}\n`);
  else if (flags.includes('g')) c.write('stdout', `${fmt(gid, groupName(gid))}\n`);
  else {
    const named = (n: number, name: string | undefined) => (name ? `${n}(${name})` : String(n));
    c.write('stdout', `uid=${named(uid, userName(uid))} gid=${named(gid, groupName(gid))} groups=${others.map((g) => named(g, groupName(g))).join(',')}\n`);
  }
  return 0;
}

/** test / [: the POSIX forms by argument count (0 to 4 arguments). */
async function testBuiltin(c: Call, bracket: boolean): Promise<number> {
  let args = c.args;
  if (bracket) {
    if (args[args.length - 1] !== ']') { err(c, 'sh: [: missing ]'); return 2; }
    args = args.slice(0, -1);
  }
  const unary = async (op: string, arg: string): Promise<boolean | undefined> => {
    if (op === '-z') return arg === '';
    if (op === '-n') return arg !== '';
    const path = resolvePath(c.ctx, arg);
    const kind = ['-e', '-f', '-d', '-r', '-w', '-s'].includes(op) ? await c.fs.kind(path, c.self) : undefined;
    switch (op) {
      case '-e': case '-r': return kind !== undefined;
      case '-f': return kind === 'file';
      case '-d': return kind === 'dir';
      case '-w': return c.fs.writable(path, c.self);
      case '-s': { if (kind !== 'file') return false; const r = await c.fs.read(path, c.self); return !isFsError(r) && r.length > 0; }
      default: return undefined;
    }
  };
  const binary = (a: string, op: string, b: string): boolean | undefined => {
    if (op === '=' || op === '==') return a === b;
    if (op === '!=') return a !== b;
    const ints = { '-eq': (x: number, y: number) => x === y, '-ne': (x: number, y: number) => x !== y, '-lt': (x: number, y: number) => x < y,
      '-le': (x: number, y: number) => x <= y, '-gt': (x: number, y: number) => x > y, '-ge': (x: number, y: number) => x >= y } as Record<string, (x: number, y: number) => boolean>;
    if (!(op in ints)) return undefined;
    if (!/^-?\d+$/.test(a.trim()) || !/^-?\d+$/.test(b.trim())) return undefined;
    return ints[op](Number(a), Number(b));
  };
  const evaluate = async (a: string[]): Promise<boolean | undefined> => {
    if (a.length === 0) return false;
    if (a.length === 1) return a[0] !== '';
    if (a[0] === '!') { const r = await evaluate(a.slice(1)); return r === undefined ? undefined : !r; }
    if (a.length === 2) return unary(a[0], a[1]);
    if (a.length === 3) return binary(a[0], a[1], a[2]);
    return undefined;
  };
  const result = await evaluate(args);
  if (result === undefined) { err(c, `sh: ${bracket ? '[' : 'test'}: syntax error: ${args.join(' ')}`); return 2; }
  return result ? 0 : 1;
}

async function lsBuiltin(c: Call): Promise<number> {
  const all = c.args.some((a) => /^-[^-]*a/.test(a));
  const paths = c.args.filter((a) => !a.startsWith('-') || a === '-');
  if (paths.length === 0) paths.push('.');
  let status = 0;
  const sections: string[] = [];
  for (const p of paths) {
    const full = resolvePath(c.ctx, p);
    const kind = await c.fs.kind(full, c.self);
    if (kind === undefined) { err(c, `ls: ${p}: ${errText('ENOENT')}`); status = 1; continue; }
    if (kind === 'file') { sections.push(`${p}\n`); continue; }
    const names = await c.fs.list(full, c.self);
    if (isFsError(names)) { err(c, `ls: can't open '${p}': ${errText(names)}`); status = 1; continue; }
    const shown = names.filter((n) => all || !n.startsWith('.'));
    const body = shown.map((n) => `${n}\n`).join('');
    sections.push(paths.length > 1 ? `${p}:\n${body}` : body);
  }
  c.write('stdout', sections.join(paths.length > 1 ? '\n' : ''));
  return status;
}

async function grepBuiltin(c: Call): Promise<number> {
  let i = 0;
  const flags = new Set<string>();
  while (i < c.args.length && /^-[qvicFE]+$/.test(c.args[i])) { for (const f of c.args[i].slice(1)) flags.add(f); i++; }
  if (c.args[i] === '-e') i++;
  const pattern = c.args[i++];
  if (pattern === undefined) { err(c, 'grep: no pattern'); return 2; }
  let re: RegExp;
  try {
    const source = flags.has('F') ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pattern;
    re = new RegExp(source, flags.has('i') ? 'i' : '');
  } catch { err(c, `grep: bad regex '${pattern}'`); return 2; }
  const files = c.args.slice(i);
  const ins = await inputs(c, 'grep', files);
  if (!ins) return 2;
  let matched = 0;
  for (const { name, text } of ins) {
    let count = 0;
    for (const line of lines(text)) {
      if (re.test(line) === flags.has('v')) continue;
      count++;
      if (!flags.has('q') && !flags.has('c')) c.write('stdout', `${files.length > 1 ? `${name}:` : ''}${line}\n`);
    }
    if (flags.has('c') && !flags.has('q')) c.write('stdout', `${files.length > 1 ? `${name}:` : ''}${count}\n`);
    matched += count;
  }
  if ((ins as { failed?: boolean }).failed) return 2;
  return matched > 0 ? 0 : 1;
}

/** The lines of a text (a last line without its newline counts). */
function lines(text: string): string[] {
  if (text === '') return [];
  const l = text.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

async function wcBuiltin(c: Call): Promise<number> {
  const opts = c.args.filter((a) => a.startsWith('-') && a !== '-').join('').replace(/-/g, '');
  const show = opts === '' ? ['l', 'w', 'c'] : ['l', 'w', 'c'].filter((o) => opts.includes(o));
  const files = c.args.filter((a) => !a.startsWith('-') || a === '-');
  const ins = await inputs(c, 'wc', files);
  if (!ins) return 1;
  for (const { name, text } of ins) {
    const counts = { l: (text.match(/\n/g) ?? []).length, w: text.split(/\s+/).filter(Boolean).length, c: Buffer.byteLength(text) } as Record<string, number>;
    c.write('stdout', `${show.map((o) => counts[o]).join(' ')}${name ? ` ${name}` : ''}\n`);
  }
  return (ins as { failed?: boolean }).failed ? 1 : 0;
}

async function headBuiltin(c: Call): Promise<number> {
  let n = 10;
  const files: string[] = [];
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i];
    if (a === '-n') n = Number(c.args[++i]);
    else if (/^-n?\d+$/.test(a)) n = Number(a.replace(/^-n?/, ''));
    else files.push(a);
  }
  if (!Number.isInteger(n) || n < 0) { err(c, 'head: invalid number'); return 1; }
  const ins = await inputs(c, 'head', files);
  if (!ins) return 1;
  for (const { text } of ins) c.write('stdout', lines(text).slice(0, n).map((l) => `${l}\n`).join(''));
  return (ins as { failed?: boolean }).failed ? 1 : 0;
}

/** pgrep: the container's processes (PID 1 and running execs, pgrep itself left out) by name or command line. */
function pgrepBuiltin(c: Call): number {
  const flags = new Set(c.args.filter((a) => a.startsWith('-')).join('').replace(/-/g, ''));
  const pattern = c.args.find((a) => !a.startsWith('-'));
  if (pattern === undefined) { err(c, 'pgrep: no matching criteria specified'); return 2; }
  let re: RegExp;
  try { re = new RegExp(flags.has('x') ? `^(?:${pattern})$` : pattern); } catch { err(c, `pgrep: invalid pattern '${pattern}'`); return 2; }
  const view = c.ctx.view!;
  const procs: [number, string[]][] = [[1, view.argv], ...view.procs];
  const found = procs.filter(([, argv]) => {
    if (argv.length === 0 || posix.basename(argv[0]) === 'pgrep') return false;
    return re.test(flags.has('f') ? argv.join(' ') : posix.basename(argv[0]).slice(0, 15));
  }).sort((a, b) => a[0] - b[0]);
  c.write('stdout', found.map(([pid, argv]) => (flags.has('l') ? `${pid} ${posix.basename(argv[0])}\n` : `${pid}\n`)).join(''));
  return found.length > 0 ? 0 : 1;
}

/** Runs one built-in with its output streams already routed. Returns the status. */
async function builtin(name: string, c: Call): Promise<number> {
  const { ctx, write } = c;
  let args = c.args;
  switch (name) {
    case 'echo': {
      let newline = true;
      while (args[0] === '-n' || args[0] === '-e' || args[0] === '-E') { if (args[0] === '-n') newline = false; args = args.slice(1); }
      write('stdout', args.join(' ') + (newline ? '\n' : ''));
      return 0;
    }
    case 'sleep': {
      if (args.length === 0) { write('stderr', 'sleep: missing operand\n'); return 1; }
      let total = 0;
      for (const a of args) {
        const ms = parseDuration(a);
        if (ms === undefined) { write('stderr', `sleep: invalid number '${a}'\n`); return 1; }
        total += ms;
      }
      await sleep(total, ctx.signal);
      return 0;
    }
    case 'exit': {
      const code = args.length ? Number(args[0]) : ctx.lastStatus ?? 0;
      throw new ExitSignal(Number.isInteger(code) ? ((code % 256) + 256) % 256 : 2);
    }
    case 'exec': {
      // exec replaces the shell: the command's status is the script's.
      if (args.length === 0) return 0;
      try {
        throw new ExitSignal(await runArgv(args, ctx, c.input));
      } catch (e) {
        if (!(e instanceof UnknownProgramError)) throw e;
        err(c, `sh: exec: ${args[0]}: not found`);
        throw new ExitSignal(127);
      }
    }
    case 'true': case ':': return 0;
    case 'false': return 1;
    case 'cat': {
      const ins = await inputs(c, 'cat', args);
      for (const { text } of ins ?? []) write('stdout', text);
      return !ins || (ins as { failed?: boolean }).failed ? 1 : 0;
    }
    case 'hostname': write('stdout', `${ctx.hostname}\n`); return 0;
    case 'env': write('stdout', Object.entries(ctx.env).map(([k, v]) => `${k}=${v}\n`).join('')); return 0;
    case 'printenv': {
      if (args.length === 0) { write('stdout', Object.entries(ctx.env).map(([k, v]) => `${k}=${v}\n`).join('')); return 0; }
      let status = 0;
      for (const a of args) {
        if (a in ctx.env) write('stdout', `${ctx.env[a]}\n`); else status = 1;
      }
      return status;
    }
    case 'pwd': write('stdout', `${ctx.workingDir || '/'}\n`); return 0;
    case 'trap': {
      // `trap '' TERM` ignores SIGTERM; `trap - TERM` restores the default.
      const [action, ...signals] = args;
      if (signals.some((s) => s === 'TERM' || s === 'SIGTERM' || s === '15')) ctx.ignoreTerm = action === '';
      return 0;
    }
    case 'id': return idBuiltin(c);
    case 'ls': return lsBuiltin(c);
    case 'touch': {
      let status = 0;
      for (const f of args.filter((a) => !a.startsWith('-'))) {
        const e = await c.fs.write(resolvePath(ctx, f), '', true, c.self);
        if (e) { err(c, `touch: ${f}: ${errText(e)}`); status = 1; }
      }
      return status;
    }
    case 'mkdir': {
      const parents = args.includes('-p');
      let status = 0;
      for (const d of args.filter((a) => !a.startsWith('-'))) {
        const full = resolvePath(ctx, d);
        const chain = parents ? full.split('/').slice(1).map((_, i, a) => `/${a.slice(0, i + 1).join('/')}`) : [full];
        for (const p of chain) {
          if (parents && (await c.fs.kind(p, c.self)) === 'dir') continue;
          const e = await c.fs.mkdir(p, c.self);
          if (e) { err(c, `mkdir: can't create directory '${d}': ${errText(e === 'ENOTDIR' ? 'ENOTDIR' : e)}`); status = 1; break; }
        }
        if (!parents && status === 0 && (await c.fs.kind(full, c.self)) !== 'dir') status = 1;
      }
      return status;
    }
    case 'test': return testBuiltin(c, false);
    case '[': return testBuiltin(c, true);
    case 'grep': return grepBuiltin(c);
    case 'wc': return wcBuiltin(c);
    case 'head': return headBuiltin(c);
    case 'pgrep': return pgrepBuiltin(c);
    default: return 127;
  }
}

/** Runs a simple command: expands its words, routes its streams through the redirections, runs it. */
/** A word that starts with an unquoted `NAME=`: the name, and the rest as the value (never split). */
function assignment(w: Word): { name: string; value: Word } | undefined {
  const first = w.parts[0];
  if (!w.assigns || first?.kind !== 'lit') return undefined;
  const rest = first.text.slice(w.assigns.length + 1);
  return { name: w.assigns, value: { quoted: true, parts: [...(rest ? [{ kind: 'lit' as const, text: rest }] : []), ...w.parts.slice(1)] } };
}

async function runSimple(cmd: SimpleCommand, ctx: ShellContext, input: string): Promise<number> {
  // Leading NAME=value words: alone, they set shell variables; before a command, its environment only.
  let words = cmd.argv;
  const assigned: [string, string][] = [];
  for (let a = assignment(words[0]); a && words.length; a = words.length ? assignment(words[0]) : undefined) {
    ctx.lastStatus = 0;
    assigned.push([a.name, await expandWord(a.value, ctx)]);
    words = words.slice(1);
  }
  if (words.length === 0) {
    ctx.vars ??= new Map();
    for (const [k, v] of assigned) ctx.vars.set(k, v);
    return ctx.lastStatus ?? 0;
  }
  if (assigned.length) ctx = { ...ctx, env: { ...ctx.env, ...Object.fromEntries(assigned) } };
  const argv: string[] = [];
  for (const w of words) argv.push(await expandWord(w, ctx));
  const [prog, ...args] = argv;
  const name = posix.basename(prog);
  const fs = fsOf(ctx);
  const self: Reader = { pid: ctx.pid ?? 1, argv };
  // Route the two streams through the redirections, in order. Output for a file is collected and written
  // when the command ends (a file that cannot be created fails the command before it runs, as in a shell).
  type Sink = Stream | 'null' | { file: string; text: string };
  let stdout: Sink = 'stdout' as Sink;
  let stderr: Sink = 'stderr' as Sink;
  const fileSinks: { file: string; text: string }[] = [];
  for (const r of cmd.redirects) {
    const target = r.target ? await expandWord(r.target, ctx) : undefined;
    if (r.op === '<') {
      const content = await fs.read(resolvePath(ctx, target!), self);
      if (isFsError(content)) { ctx.out('stderr', `sh: can't open '${target}': ${errText(content)}\n`); return 1; }
      input = content;
      continue;
    }
    const fd = r.op.startsWith('2') ? 2 : 1;
    let sink: Sink;
    if (r.op.includes('&')) sink = r.op.endsWith('2') ? stderr : stdout;
    else if (target === '/dev/null') sink = 'null';
    else if (target === '/dev/stdout') sink = 'stdout';
    else if (target === '/dev/stderr') sink = 'stderr';
    else {
      const file = resolvePath(ctx, target!);
      const e = await fs.write(file, '', r.op.includes('>>'), self);
      if (e) { ctx.out('stderr', `sh: can't create ${target}: ${errText(e)}\n`); return 1; }
      sink = fileSinks.find((s) => s.file === file) ?? { file, text: '' };
      if (!fileSinks.includes(sink)) fileSinks.push(sink);
    }
    if (fd === 1) stdout = sink; else stderr = sink;
  }
  const write: Write = (s, text) => {
    const dest = s === 'stdout' ? stdout : stderr;
    if (dest === 'null') return;
    if (typeof dest === 'string') { ctx.out(dest, text); return; }
    dest.text += text;
  };
  const flush = async () => {
    for (const s of fileSinks) {
      const e = await fs.write(s.file, s.text, true, self);
      if (e) ctx.out('stderr', `sh: write error: ${errText(e)}\n`);
    }
  };
  if (!BUILTINS.has(name)) {
    if (ctx.unknown === 'block') {
      await sleep(Infinity, ctx.signal);
      return 0;
    }
    write('stderr', `sh: ${prog}: not found\n`);
    await flush();
    return 127;
  }
  try {
    return await builtin(name, { args, ctx, write, input, fs, self });
  } finally {
    await flush();
  }
}

async function runCommand(command: Compound, ctx: ShellContext, input: string): Promise<number> {
  if (command.kind === 'simple') return runSimple(command, ctx, input);
  if (command.kind === 'for') {
    // Unquoted expansions split on blanks (`for i in $(seq 3)`); quoted words stay whole.
    const values: string[] = [];
    for (const w of command.words) {
      const text = await expandWord(w, ctx);
      if (w.quoted) values.push(text); else values.push(...text.split(/\s+/).filter(Boolean));
    }
    let status = 0;
    for (const v of values) {
      (ctx.vars ??= new Map()).set(command.name, v);
      status = await runList(command.body, ctx, status);
      await new Promise((r) => setImmediate(r));
      if (ctx.signal.aborted) throw new Aborted();
    }
    return status;
  }
  // A loop with no sleeping body would spin: yield to the event loop each round.
  let status = 0;
  for (;;) {
    if ((await runList(command.cond, ctx, status)) !== 0) break;
    status = await runList(command.body, ctx, status);
    await new Promise((r) => setImmediate(r));
    if (ctx.signal.aborted) throw new Aborted();
  }
  return status;
}

/** A pipeline's stages one after the other, each reading the previous one's whole stdout; `exit` ends a stage only. */
async function runPipeline(p: Pipeline, ctx: ShellContext): Promise<number> {
  let input = '';
  let status = 0;
  for (const [i, stage] of p.stages.entries()) {
    const last = i === p.stages.length - 1;
    let captured = '';
    const stageCtx: ShellContext = last ? ctx : { ...ctx, out: (s, t) => { if (s === 'stdout') captured += t; else ctx.out(s, t); } };
    try {
      status = await runCommand(stage, stageCtx, input);
    } catch (err) {
      if (!(err instanceof ExitSignal)) throw err;
      status = err.code;
    }
    input = captured;
  }
  return status;
}

async function runList(list: CommandList, ctx: ShellContext, status: number): Promise<number> {
  for (const { join, command } of list) {
    if (join === '&&' && status !== 0) continue;
    if (join === '||' && status === 0) continue;
    if (ctx.signal.aborted) throw new Aborted();
    try {
      status = command.kind === 'pipeline' ? await runPipeline(command, ctx) : await runCommand(command, ctx, '');
    } catch (err) {
      if (err instanceof SyntaxError) { ctx.out('stderr', `sh: ${err.message}\n`); status = 2; } else throw err;
    }
    ctx.lastStatus = status;
  }
  return status;
}

/** Parses a script for `sh -c`; throws SyntaxError for what the interpreter does not understand. */
export function parseScript(script: string): CommandList {
  return new Parser(tokenize(script)).parse();
}

/**
 * Runs an argv (a built-in, a shell with -c, or an unknown program) and resolves its exit status. Rejects
 * with the Aborted error when the context's signal fires before it ends, and with UnknownProgramError for
 * an unknown direct program when `ctx.unknown` is 'notfound'. `input` is its stdin.
 */
export async function runArgv(argv: string[], ctx: ShellContext, given?: string): Promise<number> {
  const input = given ?? '';
  try {
    // An open stdin (streaming exec, attach) is the program's only when no pipe gave it one.
    const readingStdin = given === undefined ? ctx.stdin?.run(argv, ctx) : undefined;
    if (readingStdin) return await readingStdin;
    if (argv.length === 0) {
      if (ctx.unknown === 'block') { await sleep(Infinity, ctx.signal); return 0; }
      throw new UnknownProgramError('');
    }
    if (isShell(argv)) {
      const c = argv.indexOf('-c');
      if (c < 0 || c + 1 >= argv.length) return 0; // a shell without a script reads an empty stdin
      let list: CommandList;
      try {
        list = parseScript(argv[c + 1]);
      } catch (err) {
        ctx.out('stderr', `sh: ${(err as Error).message}\n`);
        return 2;
      }
      return await runList(list, ctx, 0);
    }
    if (!isBuiltin(argv[0])) {
      if (ctx.unknown === 'block') { await sleep(Infinity, ctx.signal); return 0; }
      throw new UnknownProgramError(argv[0]);
    }
    const write = (s: Stream, text: string) => ctx.out(s, text);
    return await builtin(posix.basename(argv[0]), { args: argv.slice(1), ctx, write, input, fs: fsOf(ctx), self: { pid: ctx.pid ?? 1, argv } });
  } catch (err) {
    if (err instanceof ExitSignal) return err.code;
    throw err;
  }
}

/**
 * Runs one script as a shell reading its stdin runs each line it reads (mocks/cri/streaming/stdin.ts):
 * resolves the status and whether the script ran `exit` (the shell then ends with that status).
 */
export async function runScriptLine(script: string, ctx: ShellContext, status: number): Promise<{ status: number; exited: boolean }> {
  let list: CommandList;
  try {
    list = parseScript(script);
  } catch (err) {
    ctx.out('stderr', `sh: ${(err as Error).message}\n`);
    return { status: 2, exited: false };
  }
  try {
    return { status: await runList(list, ctx, status), exited: false };
  } catch (err) {
    if (err instanceof ExitSignal) return { status: err.code, exited: true };
    throw err;
  }
}

/**
 * A program the simulation does not have, in runc's words (Go's exec.LookPath): a name with a slash is
 * stat'ed, anything else is searched in $PATH.
 */
export class UnknownProgramError extends Error {
  constructor(readonly program: string) {
    super(`exec: ${JSON.stringify(program)}: ${program.includes('/') ? `stat ${program}: no such file or directory` : 'executable file not found in $PATH'}`);
  }
}

export function isAborted(err: unknown): boolean {
  return err instanceof Aborted;
}

// ---------------------------------------------------------------------------------------------
// A container's main process

let nextPid = 1000;

export class SimProcess {
  readonly pid = nextPid++;
  private readonly ac = new AbortController();
  private readonly ctx: ShellContext;
  private settled: ExitInfo | undefined;
  private resolveExit!: (e: ExitInfo) => void;
  private termTimer: NodeJS.Timeout | undefined;
  /** Who hears the process's output besides the log (attach, mocks/cri/streaming/attach.ts). */
  private readonly listeners = new Set<(stream: Stream, text: string) => void>();
  /** Resolves once, when the process has ended (by itself or killed). */
  readonly exited: Promise<ExitInfo>;

  constructor(private readonly argv: string[], host: Omit<ShellContext, 'signal' | 'unknown'>) {
    this.exited = new Promise((r) => { this.resolveExit = r; });
    const out = (stream: Stream, text: string) => {
      host.out(stream, text);
      for (const l of this.listeners) l(stream, text);
    };
    this.ctx = { ...host, out, pid: 1, signal: this.ac.signal, unknown: 'block' };
  }

  /** Hears what the process writes from now on, until the returned function is called. */
  onOutput(listener: (stream: Stream, text: string) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** The process's open stdin, when its container was created with stdin. */
  get stdin(): StdinReader | undefined { return this.ctx.stdin; }

  get running(): boolean { return this.settled === undefined; }
  /** The process ignores SIGTERM (its script ran `trap '' TERM`). */
  get ignoresTerm(): boolean { return this.ctx.ignoreTerm === true; }

  start(): void {
    runArgv(this.argv, this.ctx).then(
      (code) => this.finish({ exitCode: code, reason: reasonFor(code), message: '' }),
      (err) => {
        if (isAborted(err)) return; // killed: finish() already ran
        this.finish({ exitCode: 1, reason: 'Error', message: (err as Error).message });
      },
    );
  }

  /** SIGTERM, then SIGKILL after `graceSeconds` if the process ignores it. Resolves when it has ended. */
  terminate(graceSeconds: number): Promise<ExitInfo> {
    if (this.settled) return this.exited;
    if (graceSeconds <= 0) { this.kill(137); return this.exited; }
    if (!this.ignoresTerm) { this.kill(143); return this.exited; }
    if (!this.termTimer) this.termTimer = setTimeout(() => this.kill(137), timerDelay(graceSeconds * 1000));
    return this.exited;
  }

  /** Ends the process now with this code (SIGKILL: 137; a control "exit": any code). */
  kill(exitCode = 137, reason = reasonFor(exitCode), message = ''): void {
    if (this.settled) return;
    this.finish({ exitCode, reason, message });
  }

  private finish(e: ExitInfo): void {
    if (this.settled) return;
    this.settled = e;
    if (this.termTimer) clearTimeout(this.termTimer);
    this.ac.abort();
    this.resolveExit(e);
  }
}

// ---------------------------------------------------------------------------------------------
// ExecSync

export const EXEC_OUTPUT_CAP = 16 * 1024 * 1024;

export interface ExecResult { stdout: Buffer; stderr: Buffer; exitCode: number }

/**
 * Runs an ExecSync command in a container's context. Resolves the result, or rejects with the Aborted
 * error (see isAborted) when `signal` fires first, or UnknownProgramError.
 */
export async function execSync(argv: string[], host: Omit<ShellContext, 'signal' | 'unknown' | 'out'>, signal: AbortSignal): Promise<ExecResult> {
  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  const size = { stdout: 0, stderr: 0 };
  // While it runs, the exec is a process of the container (its /proc/<pid>, pgrep).
  const view = host.view;
  const pid = view ? view.nextPid++ : undefined;
  if (view && pid !== undefined) view.procs.set(pid, argv);
  const ctx: ShellContext = {
    ...host,
    pid,
    signal,
    unknown: 'notfound',
    out(stream, text) {
      if (size[stream] >= EXEC_OUTPUT_CAP) return; // the rest is discarded, the command goes on
      let b = Buffer.from(text);
      if (size[stream] + b.length > EXEC_OUTPUT_CAP) b = b.subarray(0, EXEC_OUTPUT_CAP - size[stream]);
      out[stream].push(b);
      size[stream] += b.length;
    },
  };
  try {
    const exitCode = await runArgv(argv, ctx);
    return { stdout: Buffer.concat(out.stdout), stderr: Buffer.concat(out.stderr), exitCode };
  } finally {
    if (view && pid !== undefined) view.procs.delete(pid);
  }
}

// ---------------------------------------------------------------------------------------------
// CRI log files

/** containerd splits longer lines into partial records. */
export const MAX_LOG_LINE = 16 * 1024;

/** One CRI log record. */
export function criLogLine(ns: bigint, stream: Stream, tag: 'F' | 'P', text: string): string {
  return `${rfc3339Nano(ns)} ${stream} ${tag} ${text}\n`;
}

/**
 * Appends a container's output to its log file in the CRI format. Writes are queued in order; a line
 * without its newline yet is kept until the newline comes (or the log is closed, when it is written as F).
 */
export class CriLogWriter {
  private fh: FileHandle | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly pending: Record<Stream, string> = { stdout: '', stderr: '' };
  private failed: Error | undefined;

  constructor(readonly path: string) {}

  /** Creates the directory (0755) and the file (0640), as containerd does. */
  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o755 });
    this.fh = await open(this.path, 'a', 0o640);
  }

  write(stream: Stream, text: string): void {
    const all = this.pending[stream] + text;
    const lines = all.split('\n');
    this.pending[stream] = lines.pop()!;
    if (lines.length === 0) return;
    const ns = nowNs();
    this.enqueue(lines.map((l) => records(ns, stream, l)).join(''));
  }

  /** Closes the current file and opens the path again (after the kubelet rotated it). */
  reopen(): Promise<void> {
    const next = this.chain.then(async () => {
      await this.fh?.close();
      this.fh = await open(this.path, 'a', 0o640);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Writes what is pending and closes the file; resolves when everything queued is on disk. */
  close(): Promise<void> {
    const ns = nowNs();
    for (const s of ['stdout', 'stderr'] as Stream[]) {
      if (this.pending[s] !== '') { this.enqueue(records(ns, s, this.pending[s])); this.pending[s] = ''; }
    }
    this.chain = this.chain.then(async () => { await this.fh?.close(); this.fh = undefined; }).catch(() => undefined);
    return this.chain;
  }

  /** Resolves when every queued write is done. */
  drain(): Promise<void> {
    return this.chain;
  }

  get error(): Error | undefined { return this.failed; }

  private enqueue(data: string): void {
    this.chain = this.chain.then(async () => {
      if (this.fh) await this.fh.write(data);
    }).catch((err) => { this.failed = err as Error; });
  }
}

function records(ns: bigint, stream: Stream, line: string): string {
  if (Buffer.byteLength(line) <= MAX_LOG_LINE) return criLogLine(ns, stream, 'F', line);
  const parts: string[] = [];
  let buf = Buffer.from(line);
  while (buf.length > MAX_LOG_LINE) {
    parts.push(criLogLine(ns, stream, 'P', buf.subarray(0, MAX_LOG_LINE).toString()));
    buf = buf.subarray(MAX_LOG_LINE);
  }
  parts.push(criLogLine(ns, stream, 'F', buf.toString()));
  return parts.join('');
}
