// The Unix socket server: frames in, the handler's answers out, any number of clients each
// pipelining as many requests as it likes. Bad frames get an error answer; a frame too
// large to read closes that connection only.
import { chmodSync, existsSync, mkdirSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_MAX_FRAME, encodeFrame, FrameReader } from '../common/frames.js';
import type { Handler } from './handler.js';
import type { Response } from './protocol.js';

export type Listen = { path: string } | { fd: number };

export type Limits = {
  maxFrame: number;
  /** A connection with nothing in flight for this long is closed. */
  idleMs: number;
  /** A frame begun and not finished within this long closes its connection. */
  partialFrameMs: number;
  maxConnections: number;
};

export const DEFAULT_LIMITS: Limits = { maxFrame: DEFAULT_MAX_FRAME, idleMs: 5 * 60_000, partialFrameMs: 10_000, maxConnections: 4096 };

export class SocketServer {
  /** Every listener: a deleted socket file gets a new one, the old keeps its connections. */
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Socket>();
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private closing = false;
  private watch: { timer: NodeJS.Timeout; watcher?: FSWatcher } | undefined;
  private relistening = false;

  constructor(
    private readonly handler: Handler,
    private readonly log: Logger,
    private readonly limits: Limits = DEFAULT_LIMITS,
  ) {}

  private newServer(): Server {
    const server = createServer((socket) => this.accept(socket));
    server.maxConnections = this.limits.maxConnections;
    this.servers.push(server);
    return server;
  }

  /** Listens on a path (folder created 0700, socket 0600) or on an inherited descriptor. */
  async listen(where: Listen): Promise<void> {
    if ('fd' in where) {
      const server = this.newServer();
      await new Promise<void>((resolve) => server.listen({ fd: where.fd }, resolve));
      return;
    }
    await this.listenOn(where.path);
    this.keepListening(where.path);
  }

  private async listenOn(path: string): Promise<void> {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const server = this.newServer();
    const previous = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(previous);
    }
    chmodSync(path, 0o600);
  }

  /** If the socket file is deleted (a cleanup script, a tmp cleaner), listen on it again. */
  private keepListening(path: string): void {
    const check = () => {
      if (this.closing || this.relistening || existsSync(path)) return;
      this.relistening = true;
      this.listenOn(path)
        .then(() => this.log.warn({ socket: path }, 'the socket file was deleted; listening on it again'))
        .catch((error: unknown) => this.log.error({ err: error, socket: path }, 'the socket file was deleted and could not be made again'))
        .finally(() => (this.relistening = false));
    };
    const timer = setInterval(check, 1000);
    timer.unref();
    let watcher: FSWatcher | undefined;
    try {
      watcher = fsWatch(dirname(path), check);
      watcher.on('error', () => undefined);
      watcher.unref();
    } catch {
      // The interval alone will notice.
    }
    this.watch = { timer, ...(watcher ? { watcher } : {}) };
  }

  /** Stops accepting, lets the requests in flight finish, then closes every connection. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.watch) {
      clearInterval(this.watch.timer);
      this.watch.watcher?.close();
    }
    const closed = Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    for (const socket of this.connections) socket.end();
    await closed;
  }

  private accept(socket: Socket): void {
    this.connections.add(socket);
    const reader = new FrameReader(this.limits.maxFrame);
    let partial: NodeJS.Timeout | undefined;
    socket.setTimeout(this.limits.idleMs, () => {
      this.log.debug('closing an idle connection');
      socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(partial);
      this.connections.delete(socket);
    });
    socket.on('error', (error) => this.log.debug({ err: error }, 'client connection error'));
    socket.on('data', (chunk) => {
      // A client that starts a frame and never finishes it holds a buffer: not for long.
      clearTimeout(partial);
      partial = undefined;
      const frames = reader.push(chunk);
      if (reader.pending > 0) {
        partial = setTimeout(() => {
          this.log.warn({ pending: reader.pending }, 'closing a connection that left a frame unfinished');
          socket.destroy();
        }, this.limits.partialFrameMs);
      }
      for (const frame of frames) {
        if (frame.kind === 'message') this.serve(socket, frame.value);
        else if (frame.kind === 'invalid') this.reply(socket, { id: null, error: { code: 'invalid_frame', message: frame.reason } });
        else {
          this.log.warn({ length: frame.length }, 'closing a connection that sent an oversized frame');
          const message = `frame of ${frame.length} bytes is over the limit of ${this.limits.maxFrame} bytes; the connection is closed`;
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

/** The limits, with RECAP_IDLE_TIMEOUT_MS and RECAP_FRAME_TIMEOUT_MS where they are set. */
export function limitsFrom(env: NodeJS.ProcessEnv): Limits {
  const ms = (value: string | undefined, fallback: number) => {
    const n = Number(value);
    return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback;
  };
  return {
    ...DEFAULT_LIMITS,
    idleMs: ms(env.RECAP_IDLE_TIMEOUT_MS, DEFAULT_LIMITS.idleMs),
    partialFrameMs: ms(env.RECAP_FRAME_TIMEOUT_MS, DEFAULT_LIMITS.partialFrameMs),
  };
}
