// A reproducer per failure: the `curl` command that sends a failed case's failing request again,
// computed from the recorded exchange and what the report knows of the target (its URLs and the
// run's --ca / --agent-ca / --insecure-skip-tls-verify), so an implementer replays it without the kit.
// Pure: reporters call it at render time (the JSON reporter stores it as `Exchange.reproducer`).
// Only HTTP exchanges are recorded (the mock CRI's gRPC control calls are not), so only curl is made.
import type { CaseResult, Exchange, RunReport } from '../runner/results.js';

/** What a reproducer needs of the run beyond the exchange: how the target's certificates were trusted. */
export interface ReproducerTarget {
  /** Origin (scheme://host:port) of the agent under test, whose certificate has its own CA (--agent-ca). */
  agentOrigin?: string;
  /** `run --ca`: the CA file the run trusted for the control plane (and the --metrics components). */
  caFile?: string;
  /** `run --agent-ca`: the CA file the run trusted for the agent; without it the run did not verify the agent. */
  agentCaFile?: string;
  /** `run --insecure-skip-tls-verify`: the run did not verify the control plane's certificate. */
  insecure: boolean;
  /** `run --kubeconfig`: the run may have authenticated with a client certificate, which no exchange records. */
  kubeconfig: boolean;
}

/** The value of `--flag value` or `--flag=value` in a recorded command line. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag && i + 1 < args.length) return args[i + 1];
    if (args[i]!.startsWith(`${flag}=`)) return args[i]!.slice(flag.length + 1);
  }
  return undefined;
}

/** True for `--flag`, `--flag=true` or `--flag true` (yargs' forms of a boolean). */
function flagSet(args: readonly string[], flag: string): boolean {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return false;
  const value = args[i] === flag ? args[i + 1] : args[i]!.slice(flag.length + 1);
  return value !== 'false';
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The target as the report knows it: the CA files come from the run's recorded command line (absent
 * for runs not started from it, and for a CA taken from a kubeconfig: the reproducer then says `"$CA"`).
 */
export function reproducerTarget(report: Pick<RunReport, 'target' | 'command'>): ReproducerTarget {
  const args = report.command ?? [];
  return {
    agentOrigin: originOf(report.target.agent?.url),
    caFile: flagValue(args, '--ca'),
    agentCaFile: flagValue(args, '--agent-ca'),
    insecure: flagSet(args, '--insecure-skip-tls-verify'),
    kubeconfig: args.some((a) => a === '--kubeconfig' || a.startsWith('--kubeconfig=')),
  };
}

/** A word for a POSIX shell: single-quoted unless it needs no quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_\-+=/.,:@%]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Headers curl sets itself from the command (or that describe one connection only). */
const OWN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);
/** Headers that carry credentials: never printed, a placeholder instead. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The runner's mark on a body it cut (runner/client.ts truncate). */
const CUT_BODY = /… \((\d+) more characters\)$/;

function isWatch(ex: Exchange): boolean {
  try {
    const u = new URL(ex.url);
    return ex.method === 'GET' && (/^(true|1)$/.test(u.searchParams.get('watch') ?? '') || /\/watch\//.test(u.pathname));
  } catch {
    return false;
  }
}

function tlsArgs(url: string, target: ReproducerTarget): string[] {
  if (!url.startsWith('https:')) return [];
  if (target.agentOrigin !== undefined && originOf(url) === target.agentOrigin) {
    // The run verifies the agent's certificate only with --agent-ca (as upstream's API server).
    return target.agentCaFile !== undefined ? ['--cacert', shellQuote(target.agentCaFile)] : ['-k'];
  }
  if (target.insecure) return ['-k'];
  return ['--cacert', target.caFile !== undefined ? shellQuote(target.caFile) : '"$CA"'];
}

/** A here-doc delimiter no line of the body equals. */
function delimiter(body: string): string {
  const lines = new Set(body.split('\n'));
  let d = 'EOF';
  for (let i = 1; lines.has(d); i++) d = `EOF_${i}`;
  return d;
}

/** The curl command of one exchange: lines to be joined with ` \` continuations, then the here-doc. */
function curlCommand(ex: Exchange, target: ReproducerTarget): { lines: string[]; notes: string[] } {
  const notes: string[] = [];
  const first = ['curl', '-sS', '-i'];
  if (isWatch(ex)) first.push('-N');
  if (ex.method === 'HEAD') first.push('--head');
  else if (ex.method !== 'GET' || ex.requestBody !== undefined) first.push('-X', shellQuote(ex.method));
  first.push(...tlsArgs(ex.url, target));
  const lines = [first.join(' ')];
  for (const [name, value] of Object.entries(ex.requestHeaders)) {
    const key = name.toLowerCase();
    if (OWN_HEADERS.has(key)) continue;
    if (key === 'authorization' && /^bearer\s/i.test(value)) {
      lines.push(`-H "${name}: Bearer \$TOKEN"`);
      notes.push('# TOKEN: the bearer token the run used (the report never keeps it)');
    } else if (SECRET_HEADERS.has(key)) {
      lines.push(`-H ${shellQuote(`${name}: <redacted: the credential the run sent>`)}`);
    } else {
      lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
    }
  }
  const cut = ex.requestBody !== undefined ? CUT_BODY.exec(ex.requestBody) : null;
  const body = cut ? ex.requestBody!.slice(0, cut.index) : ex.requestBody;
  if (cut) notes.push(`# the run recorded only the body's start (${cut[1]} characters were left out): this sends that start`);
  if (body === undefined) {
    lines.push(shellQuote(ex.url));
    return { lines, notes };
  }
  if (body === '') {
    lines.push(`--data-binary ''`, shellQuote(ex.url));
    return { lines, notes };
  }
  // The body from a quoted here-doc: sent as written, nothing expanded (a here-doc adds a final newline).
  const d = delimiter(body);
  lines.push('--data-binary @-', `${shellQuote(ex.url)} <<'${d}'\n${body}\n${d}`);
  return { lines, notes };
}

function render(cmd: { lines: string[] }): string {
  return cmd.lines.join(' \\\n  ');
}

/** A write: what a watch's event follows from. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The reproducer of exchange `index` of `exchanges`: its curl command (a watch with `-N`, followed
 * by the next write the case made after it, whose event the watch should carry).
 */
export function curlReproducer(exchanges: readonly Exchange[], index: number, target: ReproducerTarget): string {
  const ex = exchanges[index]!;
  const main = curlCommand(ex, target);
  const notes = new Set(main.notes);
  const out: string[] = [];
  if (tlsArgs(ex.url, target).includes('"$CA"')) {
    notes.add('# CA: the PEM file of the CA that signed the target\'s serving certificate');
  }
  if (target.kubeconfig && !Object.keys(ex.requestHeaders).some((k) => k.toLowerCase() === 'authorization')) {
    notes.add('# if the run authenticated with its kubeconfig\'s client certificate, add: --cert "$CERT" --key "$KEY"');
  }
  const parts = [render(main)];
  if (isWatch(ex)) {
    const write = exchanges.slice(index + 1).find((e) => WRITES.has(e.method));
    if (write) {
      const w = curlCommand(write, target);
      for (const n of w.notes) notes.add(n);
      parts.push(`# in a second shell, the write whose event the watch above should carry (the case saw ${write.status ?? 'no response'}):\n${render(w)}`);
    }
  }
  out.push(...notes, `# the run saw: ${ex.status !== undefined ? `HTTP ${ex.status}` : `no response (${ex.error ?? 'unknown error'})`}`, ...parts);
  return out.join('\n');
}

/** The exchange a failure is about: the one before the failed check, else the last one made. */
export function failingExchangeIndex(c: Pick<CaseResult, 'exchanges' | 'failedExchange'>): number | undefined {
  if (c.failedExchange !== undefined && c.exchanges[c.failedExchange]) return c.failedExchange;
  return c.exchanges.length ? c.exchanges.length - 1 : undefined;
}

/** Cases whose failing exchange gets a reproducer: those that failed, errored or warned (exchanges kept). */
export function needsReproducer(c: Pick<CaseResult, 'status'>): boolean {
  return c.status === 'failed' || c.status === 'errored' || c.status === 'warned';
}

/** A case's reproducer and the 1-based number of the exchange it replays, or undefined when it has none. */
export function caseReproducer(c: CaseResult, target: ReproducerTarget): { n: number; text: string } | undefined {
  if (!needsReproducer(c)) return undefined;
  const i = failingExchangeIndex(c);
  return i === undefined ? undefined : { n: i + 1, text: curlReproducer(c.exchanges, i, target) };
}

/**
 * Whether a reproducer fits a human-readable report that cuts bodies at `bodyLimit`: it carries a
 * request body whole (cutting it would break the command), so a long one is left to the JSON report.
 */
export function fitsBodyLimit(text: string, bodyLimit: number): boolean {
  return text.length <= 2 * bodyLimit + 1024;
}

/** What a report says where it leaves a reproducer out. */
export function reproducerLeftOutText(n: number): string {
  return `Reproducer (exchange ${n}): left out here, its request body being longer than this report shows; the JSON report has it (\`reproducer\` of the exchange)`;
}
