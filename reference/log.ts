// The reference components' log: one line per event, `[component] message: error`, never a stack
// trace or an error object dumped over many lines. A watch that keeps restarting on a corrupt object
// (which the conformance run plants on purpose) would otherwise fill standard error with pages of
// traces that say nothing a reader can act on.

/** How a component reports an event: what happened, and the error behind it if any. */
export type Log = (message: string, err?: unknown) => void;

/** Where a component's formatted log lines go (one call per line, without the newline). */
export type LogSink = (line: string) => void;

/** Standard error, one line per call: the default sink, as upstream's components log there. */
export const stderrSink: LogSink = (line) => { process.stderr.write(`${line}\n`); };

/** A sink that drops every line: an embedded run without `--verbose`. */
export const silentSink: LogSink = () => undefined;

/** Past this many characters a line is cut: an error may carry a whole response body. */
const MAX_LINE = 1000;

/** `[component] message: error`, on one line, control characters escaped, bounded. */
export function logLine(component: string, message: string, err?: unknown): string {
  const line = `[${component}] ${message}${err === undefined ? '' : `: ${errorText(err)}`}`;
  // A corrupt object's bytes (NUL among them) would make the log binary to grep and terminals.
  const flat = line.replace(/\s*[\r\n]+\s*/g, ' ').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE)}…` : flat;
}

/** The error's own words: its name when that says more than "Error", and its message. */
function errorText(err: unknown): string {
  if (err instanceof Error) return err.name && err.name !== 'Error' && !err.message.startsWith(err.name) ? `${err.name}: ${err.message}` : err.message;
  return typeof err === 'string' ? err : String(err);
}

/** A component's Log writing one line per event to `sink` (default standard error). */
export function componentLog(component: string, sink: LogSink = stderrSink): Log {
  return (message, err) => sink(logLine(component, message, err));
}
