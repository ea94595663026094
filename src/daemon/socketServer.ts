// The Unix socket server: frames in, the handler's answers out, any number of clients each
// pipelining as many requests as it likes. Bad frames get an error answer; a frame too
// large to read closes that connection only. The answers a connection gets in one turn of
// the event loop go out in one write: a write is a system call, dearer than an answer.
import { chmodSync, existsSync, mkdirSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { DEFAULT_MAX_FRAME, FrameReader, framesOf } from '../common/frames.js';
import type { Handler } from './handler.js';
import type { ProgressFrame, Response } from './protocol.js';

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
/** Connections the kernel may queue before they are accepted (Node's default is 511); clients try again on EAGAIN. */
const BACKLOG = 4096;

export class SocketServer {
  /** Every listener: a deleted socket file gets a new one, the old keeps its connections. */
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
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
        server.listen({ path, backlog: BACKLOG }, () => {
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
    for (const connection of this.connections) connection.end();
    await closed;
  }

  private accept(socket: Socket): void {
    const connection = new Connection(socket);
    this.connections.add(connection);
    const reader = new FrameReader(this.limits.maxFrame);
    let partial: NodeJS.Timeout | undefined;
    socket.setTimeout(this.limits.idleMs, () => {
      this.log.debug('closing an idle connection');
      socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(partial);
      this.connections.delete(connection);
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
        if (frame.kind === 'message') this.serve(connection, frame.value);
        else if (frame.kind === 'invalid') connection.send({ id: null, error: { code: 'invalid_frame', message: frame.reason } });
        else {
          this.log.warn({ length: frame.length }, 'closing a connection that sent an oversized frame');
          const message = `frame of ${frame.length} bytes is over the limit of ${this.limits.maxFrame} bytes; the connection is closed`;
          connection.end({ id: null, error: { code: 'frame_too_large', message } });
        }
      }
    });
  }

  private serve(connection: Connection, request: unknown): void {
    const id = (request as { id?: unknown } | null)?.id;
    const known = typeof id === 'string' || typeof id === 'number' ? id : undefined;
    if (this.closing) {
      const message = 'the recap daemon is shutting down; try again in a moment';
      connection.send({ id: known ?? null, error: { code: 'shutting_down', message } });
      return;
    }
    this.inFlight += 1;
    const progress = known !== undefined ? (done: number) => connection.send({ id: known, progress: { done } }) : undefined;
    this.handler
      .handle(request, progress)
      .then((response) => connection.send(response))
      .catch((error: unknown) => this.log.error({ err: error }, 'handler failed'))
      .finally(() => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.drained?.();
      });
  }
}

/** A client's connection: its answers wait for the end of the turn and leave in one write. */
class Connection {
  /** The answers' JSON, made as each comes: one that cannot be made fails alone. */
  private queued: string[] = [];

  constructor(private readonly socket: Socket) {}

  send(message: Response | ProgressFrame): void {
    const text = JSON.stringify(message);
    // A tick scheduled from the handlers' promises runs once they have all settled.
    if (this.queued.length === 0) process.nextTick(() => this.flush());
    this.queued.push(text);
  }

  /** Sends what is queued and `last`, then closes. */
  end(last?: Response): void {
    if (last) this.queued.push(JSON.stringify(last));
    this.flush();
    this.socket.end();
  }

  private flush(): void {
    const texts = this.queued;
    this.queued = [];
    if (texts.length > 0 && !this.socket.destroyed && !this.socket.writableEnded) this.socket.write(framesOf(texts));
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
