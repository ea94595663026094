// The Unix socket server: frames in, the handler's answers out, any number of clients each
// pipelining as many requests as it likes. Bad frames get an error answer; a frame too
// large to read closes that connection only.
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_MAX_FRAME, encodeFrame, FrameReader } from '../common/frames.js';
import type { Handler } from './handler.js';
import type { Response } from './protocol.js';

export type Listen = { path: string } | { fd: number };

export class SocketServer {
  private readonly server: Server;
  private readonly connections = new Set<Socket>();
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private closing = false;

  constructor(
    private readonly handler: Handler,
    private readonly log: Logger,
    private readonly maxFrame = DEFAULT_MAX_FRAME,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on a path (folder created 0700, socket 0600) or on an inherited descriptor. */
  async listen(where: Listen): Promise<void> {
    if ('path' in where) {
      mkdirSync(dirname(where.path), { recursive: true, mode: 0o700 });
      const previous = process.umask(0o177);
      try {
        await new Promise<void>((resolve, reject) => {
          this.server.once('error', reject);
          this.server.listen(where.path, () => {
            this.server.off('error', reject);
            resolve();
          });
        });
      } finally {
        process.umask(previous);
      }
      chmodSync(where.path, 0o600);
    } else {
      await new Promise<void>((resolve) => this.server.listen({ fd: where.fd }, resolve));
    }
  }

  /** Stops accepting, lets the requests in flight finish, then closes every connection. */
  async close(): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    for (const socket of this.connections) socket.end();
    await closed;
  }

  private accept(socket: Socket): void {
    this.connections.add(socket);
    const reader = new FrameReader(this.maxFrame);
    socket.on('close', () => this.connections.delete(socket));
    socket.on('error', (error) => this.log.debug({ err: error }, 'client connection error'));
    socket.on('data', (chunk) => {
      for (const frame of reader.push(chunk)) {
        if (frame.kind === 'message') this.serve(socket, frame.value);
        else if (frame.kind === 'invalid') this.reply(socket, { id: null, error: { code: 'invalid_frame', message: frame.reason } });
        else {
          this.log.warn({ length: frame.length }, 'closing a connection that sent an oversized frame');
          const message = `frame of ${frame.length} bytes is over the limit of ${this.maxFrame} bytes; the connection is closed`;
          socket.end(encodeFrame({ id: null, error: { code: 'frame_too_large', message } }));
        }
      }
    });
  }

  private serve(socket: Socket, request: unknown): void {
    if (this.closing) {
      const id = (request as { id?: unknown } | null)?.id;
      const message = 'the recap daemon is shutting down; try again in a moment';
      this.reply(socket, { id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code: 'shutting_down', message } });
      return;
    }
    this.inFlight += 1;
    const id = (request as { id?: unknown } | null)?.id;
    const progress =
      typeof id === 'string' || typeof id === 'number'
        ? (done: number) => {
            if (!socket.destroyed) socket.write(encodeFrame({ id, progress: { done } }));
          }
        : undefined;
    this.handler
      .handle(request, progress)
      .then((response) => this.reply(socket, response))
      .catch((error: unknown) => this.log.error({ err: error }, 'handler failed'))
      .finally(() => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.drained?.();
      });
  }

  private reply(socket: Socket, response: Response): void {
    if (!socket.destroyed) socket.write(encodeFrame(response));
  }
}
