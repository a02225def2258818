// The server end of RFC 6455 WebSocket framing, as much as the port-forward tunnel needs
// (pod-streaming.ts): the handshake's accept key, frames to the client (never masked), and a reader
// of the client's frames (always masked) that hands over binary payloads and answers pings. The
// tunnel carries SPDY bytes in binary messages (upstream client-go portforward tunneling connection),
// so a message's frames are passed on as they come, without reassembling the message.
import { createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** Sec-WebSocket-Accept for the client's Sec-WebSocket-Key. */
export function acceptKey(key: string): string {
  return createHash('sha1').update(key + GUID).digest('base64');
}

/** One unmasked, final frame. */
export function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else if (n >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** A close frame with its status code. */
export function closeFrame(code: number, reason = ''): Buffer {
  const body = Buffer.alloc(2 + Buffer.byteLength(reason));
  body.writeUInt16BE(code, 0);
  body.write(reason, 2);
  return frame(OP.close, body);
}

export interface FrameSink {
  /** A binary (or continuation of binary) payload. */
  data(payload: Buffer): void;
  /** Control answers to write back (pong, close). */
  reply(frame: Buffer): void;
  /** The client closed, or broke the protocol (`code` is what was answered). */
  end(code: number): void;
}

/**
 * Parses the client's frames. Frames over `maxFrameBytes` and unmasked or text frames are protocol
 * errors (close 1009 / 1002 / 1003), after which nothing more is read.
 */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private done = false;

  constructor(private readonly sink: FrameSink, private readonly maxFrameBytes: number) {}

  feed(chunk: Buffer): void {
    if (this.done) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.buf.length < 2) return;
      const b0 = this.buf[0]!;
      const b1 = this.buf[1]!;
      const opcode = b0 & 0x0f;
      let len = b1 & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        const big = this.buf.readBigUInt64BE(2);
        if (big > BigInt(this.maxFrameBytes)) return this.fail(1009);
        len = Number(big);
        at = 10;
      }
      if (len > this.maxFrameBytes) return this.fail(1009);
      // Clients mask every frame (RFC 6455 §5.1).
      if ((b1 & 0x80) === 0) return this.fail(1002);
      if (this.buf.length < at + 4 + len) return;
      const mask = this.buf.subarray(at, at + 4);
      const payload = Buffer.from(this.buf.subarray(at + 4, at + 4 + len));
      for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
      this.buf = this.buf.subarray(at + 4 + len);
      if (opcode === OP.binary || opcode === OP.continuation) {
        if (payload.length) this.sink.data(payload);
      } else if (opcode === OP.ping) {
        this.sink.reply(frame(OP.pong, payload));
      } else if (opcode === OP.close) {
        this.done = true;
        this.sink.reply(closeFrame(1000));
        this.sink.end(1000);
        return;
      } else if (opcode !== OP.pong) {
        // Text frames have no place in a tunnel of binary SPDY bytes; unknown opcodes are errors.
        return this.fail(opcode === OP.text ? 1003 : 1002);
      }
    }
  }

  private fail(code: number): void {
    this.done = true;
    this.sink.reply(closeFrame(code));
    this.sink.end(code);
  }
}
