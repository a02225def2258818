// Exec through the streaming server: the command runs in the simulated shell of the container (process.ts),
// as ExecSync does, with the client's stdin (stdin.ts: `cat`, a bare `sh`), stdout and stderr, and a TTY
// (tty.ts). The exit code goes back in the error channel as upstream encodes it (status.ts). The exec ends
// with the container (137, as ExecSync), when the client goes away (killed), or by ^C on a TTY (130).
import { randomBytes } from 'node:crypto';
import type { ExecRequestMsg } from './types.js';
import type { Runtime } from '../state.js';
import { isAborted, runArgv, UnknownProgramError, type ShellContext, type Stream } from '../process.js';
import { StdinPipe } from './stdin.js';
import { internalError, nonZeroExit, success } from './status.js';
import type { StartCommand } from './remotecommand.js';
import { ttyInput, ttyOutput } from './tty.js';

export function startExec(rt: Runtime, req: ExecRequestMsg): StartCommand {
  return (io) => {
    const c = rt.findContainer(req.container_id);
    // The container may have gone between Exec and the connection: containerd's words, as an internal error.
    if (!c || c.state !== 'CONTAINER_RUNNING' || !c.process) {
      io.finish(internalError(`failed to exec in container: ${c ? `container is in ${c.state} state` : `failed to find container ${JSON.stringify(req.container_id)}: not found`}`));
      return {};
    }
    const s = rt.sandboxes.get(c.sandboxId);
    const ac = new AbortController();
    let why: 'exited' | 'interrupted' | 'gone' | undefined;
    const stop = (w: typeof why) => { if (!why) { why = w; ac.abort(); } };
    io.signal.addEventListener('abort', () => stop('gone'), { once: true });
    void c.process.exited.then(() => stop('exited'));

    const toClient = (stream: Stream, text: string) => {
      if (ac.signal.aborted && why === 'gone') return;
      if (req.tty) { stream = 'stdout'; text = ttyOutput(text); }
      if (req[stream]) io.write(stream, Buffer.from(text));
    };
    const pipe = req.stdin ? new StdinPipe() : undefined;
    const ctx: ShellContext = {
      hostname: s?.hostname ?? '', env: c.env, workingDir: c.config.working_dir || '/', files: c.files,
      out: toClient, signal: ac.signal, unknown: 'notfound', stdin: pipe,
    };
    const done = (code: number) => io.finish(code === 0 ? success() : nonZeroExit(code, req.cmd));
    runArgv(req.cmd, ctx).then(done, (err) => {
      if (isAborted(err) || ac.signal.aborted) {
        if (why === 'gone') return; // nobody to tell
        done(why === 'interrupted' ? 130 : 137);
        return;
      }
      if (err instanceof UnknownProgramError) {
        // containerd: the exec process could not start.
        const execId = randomBytes(32).toString('hex');
        io.finish(internalError(`failed to exec in container: failed to start exec ${JSON.stringify(execId)}: OCI runtime exec failed: exec failed: unable to start container process: ${err.message}: unknown`));
        return;
      }
      io.finish(internalError((err as Error).message));
    });
    return {
      stdin: req.tty ? ttyInput(pipe, (t) => { if (req.stdout) io.write('stdout', Buffer.from(t)); }, () => stop('interrupted')) : pipe,
      resize() { /* accepted: the simulated programs do not draw */ },
    };
  };
}
