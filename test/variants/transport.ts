// Freedoms of the transport: connections closed after every response, slow answers, watch events
// split across several chunks (a client reads a stream, not writes).
import { sleep, type LegalVariant } from '../helpers/variant-target.js';

/** Split points that differ from line to line but are the same on every run. */
function splitPieces(text: string): string[] {
  if (text.length < 3) return [text];
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  const a = 1 + (h % (text.length - 1));
  const b = a + 1 + ((h >>> 8) % Math.max(1, text.length - a - 1));
  return [text.slice(0, a), text.slice(a, b), text.slice(b)].filter((p) => p);
}

export const transportVariants: LegalVariant[] = [
  {
    name: 'connection-close-split-watch',
    freedom: 'HTTP: `Connection: close` on every response; a watch event written in several pieces',
    hooks: () => ({
      response(_req, res) {
        res.headers['connection'] = 'close';
      },
      watchHead(_req, head) {
        head.headers['connection'] = 'close';
      },
      watchSplit: (_req, text) => splitPieces(text),
    }),
  },
  {
    name: 'slow-100ms',
    freedom: 'HTTP: every response 100 ms later than the reference gives it',
    parallel: 64,
    hooks: () => ({
      async request() {
        await sleep(100);
      },
      // Says so, as servers do (and so that the delay shows as a change the variant made).
      response(_req, res) {
        res.headers['server-timing'] = 'variant-delay;dur=100';
      },
      watchHead(_req, head) {
        head.headers['server-timing'] = 'variant-delay;dur=100';
      },
    }),
  },
];
