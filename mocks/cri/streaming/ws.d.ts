// The part of the `ws` package's API this project uses (the package ships no types and @types/ws is not a
// dependency): the server side of the streaming server, the client side of its tests.
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage, ClientRequest } from 'node:http';
  import type { Duplex } from 'node:stream';

  export class WebSocket extends EventEmitter {
    constructor(address: string | URL, protocols?: string | string[], options?: Record<string, unknown>);
    readonly CONNECTING: 0;
    readonly OPEN: 1;
    readonly CLOSING: 2;
    readonly CLOSED: 3;
    readonly readyState: 0 | 1 | 2 | 3;
    readonly protocol: string;
    readonly bufferedAmount: number;
    send(data: Buffer | string, options?: { binary?: boolean }, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    pause(): void;
    resume(): void;
    on(event: 'message', fn: (data: Buffer, isBinary: boolean) => void): this;
    on(event: 'close', fn: (code: number, reason: Buffer) => void): this;
    on(event: 'open', fn: () => void): this;
    on(event: 'error', fn: (err: Error) => void): this;
    on(event: 'unexpected-response', fn: (req: ClientRequest, res: IncomingMessage) => void): this;
    on(event: string, fn: (...args: any[]) => void): this;
  }

  export interface ServerOptions {
    noServer?: boolean;
    maxPayload?: number;
    perMessageDeflate?: boolean;
    handleProtocols?: (protocols: Set<string>, req: IncomingMessage) => string | false;
  }

  export class WebSocketServer extends EventEmitter {
    constructor(options: ServerOptions);
    readonly clients: Set<WebSocket>;
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, cb: (ws: WebSocket, req: IncomingMessage) => void): void;
    close(cb?: (err?: Error) => void): void;
  }

  export default WebSocket;
}
