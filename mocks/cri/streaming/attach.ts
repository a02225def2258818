// Attach through the streaming server: what the container's process writes from now on (a tee of its log,
// SimProcess.onOutput), and, when the container was created with stdin, the client's stdin delivered to it
// (its StdinPipe: a container running `cat` or `sh` reads it). With stdin_once the container's stdin closes
// when the first attached client closes its stdin, as the CRI says; otherwise it stays open for the next
// attach. The attach ends with Success when the container exits (upstream's ServeAttach).
import type { AttachRequestMsg } from './types.js';
import type { Runtime } from '../state.js';
import type { Stream } from '../process.js';
import { StdinPipe } from './stdin.js';
import { attachError, success } from './status.js';
import type { StartCommand, StdinSink } from './remotecommand.js';
import { ttyInput, ttyOutput } from './tty.js';

export function startAttach(rt: Runtime, req: AttachRequestMsg): StartCommand {
  return (io) => {
    const c = rt.findContainer(req.container_id);
    const p = c?.process;
    if (!c || c.state !== 'CONTAINER_RUNNING' || !p) {
      io.finish(attachError(c ? `container is in ${c.state} state` : `failed to find container ${JSON.stringify(req.container_id)}: not found`));
      return {};
    }
    const toClient = (stream: Stream, text: string) => {
      if (req.tty) { stream = 'stdout'; text = ttyOutput(text); }
      if (req[stream]) io.write(stream, Buffer.from(text));
    };
    const unsubscribe = p.onOutput(toClient);
    io.signal.addEventListener('abort', unsubscribe, { once: true });
    void p.exited.then(() => { unsubscribe(); if (!io.signal.aborted) io.finish(success()); });

    // A container without stdin ignores what an attached client sends, as containerd does.
    const pipe = p.stdin instanceof StdinPipe ? p.stdin : undefined;
    const sink: StdinSink | undefined = pipe && req.stdin ? {
      write: (d) => pipe.write(d),
      end: () => { if (c.config.stdin_once) pipe.end(); },
      onDrain: (fn) => pipe.onDrain(fn),
    } : undefined;
    return {
      stdin: req.tty ? ttyInput(sink, (t) => { if (req.stdout) io.write('stdout', Buffer.from(t)); }, () => p.kill(130)) : sink,
      resize() { /* accepted */ },
    };
  };
}
