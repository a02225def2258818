// Simulated container processes, the ExecSync interpreter and the CRI log writer of the mock runtime.
//
// COMMAND CONVENTION (what a container "runs" is decided by its command + args, joined as the argv):
//   ["sleep", "N"]                runs N seconds (fractions allowed, "infinity" = forever), exits 0
//   ["sh", "-c", "<script>"]      (also /bin/sh, bash, ash) runs a small script, see below; a shell
//                                 without -c reads its (empty) stdin and exits 0 at once
//   ["echo", ...], ["true"], ["false"], ["cat", ...], ["hostname"], ["env"], ["printenv", ...], ["pwd"]
//                                 run that one built-in and exit with its status
//   anything else, or empty       a long-running program: runs until stopped or killed (with both
//                                 command and args empty the image's default is not run: it runs until stopped)
// Scripts are lists of statements separated by `;`, newlines, `&&` and `||`, with `while true; do ...; done`
// (or `while :`) loops. Built-ins: echo [-n] ..., sleep N, exit [N], true, false, :, cat FILE..., hostname,
// env, printenv [NAME], pwd, and `trap '' TERM` (the process then ignores SIGTERM, see stopping). Output
// redirections `> FILE`, `>> FILE` (an in-memory file of the container, readable later with `cat`, also from
// ExecSync), `>&2`, `1>&2`, `2>&1`, `>/dev/null`, `2>/dev/null`. `$NAME`, `${NAME}` and `$?` expand from
// the container's env (plus HOSTNAME) outside single quotes, once, when the script is parsed (`$?` is 0). In a container's own script a command that is
// not a built-in is a long-running program: the script blocks there until the container is stopped.
// A script ends with the status of its last statement, or with `exit N`.
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
// enforces it with the AbortSignal it passes).
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { nowNs, rfc3339Nano } from './clock.js';

export type Stream = 'stdout' | 'stderr';

export interface ExitInfo { exitCode: number; reason: string; message: string }

export function reasonFor(exitCode: number): string {
  return exitCode === 0 ? 'Completed' : 'Error';
}

// ---------------------------------------------------------------------------------------------
// Shell-ish parsing

interface Word { text: string; quoted: boolean }
type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: string };

/** Tokenises a script: words (with $-expansion done), operators ; && || newline and redirections. */
function tokenize(script: string, env: (name: string) => string | undefined): Token[] {
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
    let text = '';
    let quoted = false;
    while (i < n) {
      const c = script[i];
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === ';' || c === '&' || c === '|' || c === '<' || c === '>' || c === '(' || c === ')') break;
      if (c === "'") {
        quoted = true;
        const end = script.indexOf("'", i + 1);
        if (end < 0) throw new SyntaxError('unterminated quoted string');
        text += script.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        quoted = true;
        i++;
        while (i < n && script[i] !== '"') {
          if (script[i] === '\\' && i + 1 < n && '"\\$`'.includes(script[i + 1])) { text += script[i + 1]; i += 2; continue; }
          if (script[i] === '$') { const [value, next] = expand(script, i, env); text += value; i = next; continue; }
          text += script[i++];
        }
        if (i >= n) throw new SyntaxError('unterminated quoted string');
        i++;
      } else if (c === '\\' && i + 1 < n) {
        text += script[i + 1];
        i += 2;
      } else if (c === '$') {
        const [value, next] = expand(script, i, env);
        text += value;
        i = next;
      } else {
        text += c;
        i++;
      }
    }
    tokens.push({ kind: 'word', word: { text, quoted } });
  }
  return tokens;
}

function expand(s: string, i: number, env: (name: string) => string | undefined): [string, number] {
  const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(s.slice(i));
  if (braced) return [env(braced[1]) ?? '', i + braced[0].length];
  const plain = /^\$([A-Za-z_][A-Za-z0-9_]*|\?)/.exec(s.slice(i));
  if (plain) return [env(plain[1]) ?? '', i + plain[0].length];
  return ['$', i + 1];
}

interface Redirect { op: string; target?: string }
interface SimpleCommand { kind: 'simple'; argv: string[]; redirects: Redirect[] }
interface WhileLoop { kind: 'while'; cond: CommandList; body: CommandList }
type Command = SimpleCommand | WhileLoop;
/** Commands joined by `;` (always run), `&&` (run on success), `||` (run on failure). */
type CommandList = { join: ';' | '&&' | '||'; command: Command }[];

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
    return t && t.kind === 'word' && !t.word.quoted ? t.word.text : undefined;
  }

  private list(stop: Set<string>): CommandList {
    const out: CommandList = [];
    let join: ';' | '&&' | '||' = ';';
    for (;;) {
      while (this.tokens[this.pos]?.kind === 'op' && (this.tokens[this.pos] as { op: string }).op === ';') this.pos++;
      const word = this.peekWord();
      if (this.pos >= this.tokens.length || (word !== undefined && stop.has(word))) break;
      out.push({ join, command: this.command() });
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

  private command(): Command {
    if (this.peekWord() === 'while') {
      this.pos++;
      const cond = this.list(new Set(['do']));
      this.expect('do');
      const body = this.list(new Set(['done']));
      this.expect('done');
      return { kind: 'while', cond, body };
    }
    const argv: string[] = [];
    const redirects: Redirect[] = [];
    while (this.pos < this.tokens.length) {
      const t = this.tokens[this.pos];
      if (t.kind === 'word') { argv.push(t.word.text); this.pos++; continue; }
      if (/>/.test(t.op)) {
        this.pos++;
        if (t.op.includes('&')) { redirects.push({ op: t.op }); continue; }
        const target = this.tokens[this.pos];
        if (!target || target.kind !== 'word') throw new SyntaxError(`syntax error: ${t.op} without a file`);
        redirects.push({ op: t.op, target: target.word.text });
        this.pos++;
        continue;
      }
      if (t.op === ';' || t.op === '&&' || t.op === '||') break;
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
  return t.kind === 'op' ? JSON.stringify(t.op) : JSON.stringify(t.word.text);
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
  out(stream: Stream, text: string): void;
  signal: AbortSignal;
  /** A command that is not a built-in: a long-running program ('block') or a shell error ('notfound'). */
  unknown: 'block' | 'notfound';
  /** `trap '' TERM` was run (the process ignores SIGTERM). */
  ignoreTerm?: boolean;
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

const BUILTINS = new Set(['echo', 'sleep', 'exit', 'true', 'false', ':', 'cat', 'hostname', 'env', 'printenv', 'pwd', 'trap']);

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
    const timer = Number.isFinite(ms) ? setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, Math.min(ms, 2 ** 31 - 1)) : undefined;
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

/** Runs one built-in with its output streams already routed. Returns the status. */
async function builtin(name: string, args: string[], ctx: ShellContext, write: (s: Stream, text: string) => void): Promise<number> {
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
      const code = args.length ? Number(args[0]) : 0;
      throw new ExitSignal(Number.isInteger(code) ? ((code % 256) + 256) % 256 : 2);
    }
    case 'true': case ':': return 0;
    case 'false': return 1;
    case 'cat': {
      let status = 0;
      for (const f of args) {
        const content = ctx.files.get(resolvePath(ctx, f));
        if (content === undefined) { write('stderr', `cat: can't open '${f}': No such file or directory\n`); status = 1; continue; }
        write('stdout', content);
      }
      return status;
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
    default: return 127;
  }
}

async function runSimple(cmd: SimpleCommand, ctx: ShellContext): Promise<number> {
  const [prog, ...args] = cmd.argv;
  const name = posix.basename(prog);
  // Route the two streams through the redirections, in order.
  type Sink = Stream | 'null' | { file: string };
  let stdout: Sink = 'stdout' as Sink;
  let stderr: Sink = 'stderr' as Sink;
  for (const r of cmd.redirects) {
    const fd = r.op.startsWith('2') ? 2 : 1;
    let target: Sink;
    if (r.op.includes('&')) target = r.op.endsWith('2') ? stderr : stdout;
    else if (r.target === '/dev/null') target = 'null';
    else if (r.target === '/dev/stdout') target = 'stdout';
    else if (r.target === '/dev/stderr') target = 'stderr';
    else {
      const file = resolvePath(ctx, r.target!);
      const append = r.op.includes('>>');
      if (!append) ctx.files.set(file, '');
      else if (!ctx.files.has(file)) ctx.files.set(file, '');
      target = { file };
    }
    if (fd === 1) stdout = target; else stderr = target;
  }
  const write = (s: Stream, text: string) => {
    const dest = s === 'stdout' ? stdout : stderr;
    if (dest === 'null') return;
    if (typeof dest === 'string') { ctx.out(dest, text); return; }
    ctx.files.set(dest.file, (ctx.files.get(dest.file) ?? '') + text);
  };
  if (!BUILTINS.has(name)) {
    if (ctx.unknown === 'block') {
      await sleep(Infinity, ctx.signal);
      return 0;
    }
    write('stderr', `sh: ${prog}: not found\n`);
    return 127;
  }
  return builtin(name, args, ctx, write);
}

async function runList(list: CommandList, ctx: ShellContext, status: number): Promise<number> {
  for (const { join, command } of list) {
    if (join === '&&' && status !== 0) continue;
    if (join === '||' && status === 0) continue;
    if (ctx.signal.aborted) throw new Aborted();
    if (command.kind === 'simple') {
      status = await runSimple(command, ctx);
    } else {
      // A loop with no sleeping body would spin: yield to the event loop each round.
      for (;;) {
        if ((await runList(command.cond, ctx, status)) !== 0) break;
        status = await runList(command.body, ctx, status);
        await new Promise((r) => setImmediate(r));
        if (ctx.signal.aborted) throw new Aborted();
      }
    }
  }
  return status;
}

/**
 * Parses a script for `sh -c`; throws SyntaxError for what the interpreter does not understand. Expansion
 * happens here, once for the whole script (so `$?` is always 0: the interpreter has no real variables).
 */
export function parseScript(script: string, ctx: Pick<ShellContext, 'env' | 'hostname'>): CommandList {
  const lookup = (name: string) => (name === '?' ? '0' : name === 'HOSTNAME' ? ctx.env.HOSTNAME ?? ctx.hostname : ctx.env[name]);
  return new Parser(tokenize(script, lookup)).parse();
}

/**
 * Runs an argv (a built-in, a shell with -c, or an unknown program) and resolves its exit status. Rejects
 * with the Aborted error when the context's signal fires before it ends, and with UnknownProgramError for
 * an unknown direct program when `ctx.unknown` is 'notfound'.
 */
export async function runArgv(argv: string[], ctx: ShellContext): Promise<number> {
  try {
    const readingStdin = ctx.stdin?.run(argv, ctx);
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
        list = parseScript(argv[c + 1], ctx);
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
    return await builtin(posix.basename(argv[0]), argv.slice(1), ctx, write);
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
    list = parseScript(script, ctx);
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

export class UnknownProgramError extends Error {
  constructor(readonly program: string) {
    super(`exec: ${JSON.stringify(program)}: executable file not found in $PATH`);
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
    this.ctx = { ...host, out, signal: this.ac.signal, unknown: 'block' };
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
    if (!this.termTimer) this.termTimer = setTimeout(() => this.kill(137), Math.min(graceSeconds * 1000, 2 ** 31 - 1));
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
  const ctx: ShellContext = {
    ...host,
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
  const exitCode = await runArgv(argv, ctx);
  return { stdout: Buffer.concat(out.stdout), stderr: Buffer.concat(out.stderr), exitCode };
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
