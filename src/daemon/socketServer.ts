// The Unix socket server: frames in, the handler's answers out, any number of clients each
// pipelining as many requests as it likes. Bad frames get an error answer; a frame too
// large to read closes that connection only. The answers a connection gets in one turn of
// the event loop go out in one write: a write is a system call, dearer than an answer.
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { DEFAULT_MAX_FRAME, describeBytes, FrameReader, framesOf, frameWrites, type FrameText } from '../common/frames.js';
import type { Handler } from './handler.js';
import type { ProgressFrame, Response } from '../protocol/protocol.js';
import { judgeCaller, type CallerVerdict } from '../events/caller.js';
import { AGENT_MARKS } from '../agents/marks.js';
import { peerChains, unknowable } from './peer.js';
import { SocketKeeper } from './socketKeeper.js';
import { EncodedEventsPage } from './eventsAnswer.js';

export type Listen = { path: string } | { fd: number };

export type Limits = {
  maxFrame: number;
  /** A connection with nothing in flight for this long is closed. */
  idleMs: number;
  /** A frame begun and not finished within this long closes its connection. */
  partialFrameMs: number;
  /** Past this many connections, the one idle longest is closed to make room for a new one. */
  maxConnections: number;
  /**
   * Bytes of unfinished frames held across all connections: frames may be 64 MiB each, and
   * many at once must not exhaust the daemon's memory. The connection that would go past it
   * is told the daemon is busy and closed.
   */
  maxPendingBytes: number;
};

export const DEFAULT_LIMITS: Limits = {
  maxFrame: DEFAULT_MAX_FRAME,
  idleMs: 60_000,
  partialFrameMs: 10_000,
  maxConnections: 4096,
  maxPendingBytes: 2 * DEFAULT_MAX_FRAME + 32 * 1024 * 1024,
};
/**
 * Audit ops that read the whole log: one at a time, so a burst of them cannot crowd out
 * the checks and hooks an agent is waiting on (those never queue behind them).
 */
const BULK_OPS = new Set(['events', 'replay', 'verify', 'report']);
/** Connections the kernel may queue before they are accepted (Node's default is 511); clients try again on EAGAIN. */
const BACKLOG = 4096;

export class SocketServer {
  /** Every listener: a deleted socket file gets a new one, the old keeps its connections. */
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private closing = false;
  /** Keeps the socket path the daemon's (not with a socket systemd handed in). */
  private keeper: SocketKeeper | undefined;
  /** Bytes of unfinished frames across all connections. */
  private pendingBytes = 0;
  /** The bulk op running now, which the next one waits for. */
  private bulk: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly handler: Handler,
    private readonly log: Logger,
    private readonly limits: Limits = DEFAULT_LIMITS,
    /** Told when another process's socket was found in place of the daemon's. */
    private readonly takenOver: (path: string) => void = () => undefined,
  ) {}

  private newServer(): Server {
    const server = createServer((socket) => this.accept(socket));
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
    this.keeper = new SocketKeeper(where.path, (path) => this.listenOn(path), this.log, 'the socket file', this.takenOver);
    await this.keeper.start();
  }

  /** Listens on a new server at `path`: the keeper binds it beside the real path, then renames it into place. */
  private async listenOn(path: string): Promise<void> {
    const server = this.newServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, backlog: BACKLOG }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  /** Stops accepting, lets the requests in flight finish, then closes every connection. */
  async close(): Promise<void> {
    this.closing = true;
    this.keeper?.close();
    const closed = Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    for (const connection of this.connections) connection.end();
    await closed;
  }

  /**
   * Room for one more connection: at the limit the connection idle longest (nothing in
   * flight, nothing half sent) goes, so thousands of idle clients cannot keep a hook out.
   * False when every connection is busy.
   */
  private makeRoom(): boolean {
    if (this.connections.size < this.limits.maxConnections) return true;
    let oldest: Connection | undefined;
    for (const connection of this.connections) {
      if (connection.idle() && (oldest === undefined || connection.lastActive < oldest.lastActive)) oldest = connection;
    }
    if (oldest === undefined) return false;
    this.log.debug('closing the connection idle longest to make room');
    oldest.destroy();
    this.connections.delete(oldest);
    return true;
  }

  private accept(socket: Socket): void {
    if (!this.makeRoom()) {
      this.log.warn({ connections: this.connections.size }, 'refusing a connection: every connection is busy');
      socket.destroy();
      return;
    }
    const connection = new Connection(socket, (failed, error) => this.answered(connection, failed, error));
    this.connections.add(connection);
    const reader = new FrameReader(this.limits.maxFrame);
    let partial: NodeJS.Timeout | undefined;
    let held = 0;
    /** Told it is over the limit: what it still sends is read and dropped until it goes. */
    let refused = false;
    const hold = (bytes: number) => {
      this.pendingBytes += bytes - held;
      held = bytes;
    };
    socket.setTimeout(this.limits.idleMs, () => {
      if (!connection.idle()) return;
      this.log.debug('closing an idle connection');
      socket.destroy();
    });
    socket.on('close', () => {
      clearTimeout(partial);
      hold(0);
      this.connections.delete(connection);
    });
    socket.on('error', (error) => this.log.debug({ err: error }, 'client connection error'));
    socket.on('data', (chunk) => {
      if (refused) return;
      connection.lastActive = Date.now();
      // A client that starts a frame and never finishes it holds a buffer: not for long.
      clearTimeout(partial);
      partial = undefined;
      const frames = reader.push(chunk);
      hold(reader.pending);
      connection.partial = reader.pending > 0;
      if (this.pendingBytes > this.limits.maxPendingBytes && reader.pending > 0) {
        const message =
          `the recap daemon is holding ${describeBytes(this.pendingBytes)} of unfinished requests, over its limit of ` +
          `${describeBytes(this.limits.maxPendingBytes)}; this connection is closed, try again in a moment`;
        this.log.warn({ pending: this.pendingBytes }, 'closing a connection: too many bytes of unfinished requests');
        hold(0);
        refused = true;
        // Not destroyed at once: that could drop the answer before it leaves.
        connection.end({ id: null, error: { code: 'busy', message } });
        setTimeout(() => socket.destroy(), 1000).unref();
        return;
      }
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
    connection.inFlight += 1;
    const progress = known !== undefined ? (done: number) => connection.send({ id: known, progress: { done } }) : undefined;
    const op = (request as { op?: unknown } | null)?.op;
    let answered: Response | Promise<Response>;
    if (typeof op === 'string' && BULK_OPS.has(op)) {
      const run = () => this.handler.answer(request, progress, connection.callerOf);
      const queued = this.bulk.then(run, run);
      this.bulk = queued.catch(() => undefined);
      answered = queued;
    } else answered = this.handler.answer(request, progress, connection.callerOf);
    // An answer decided in this turn is sent as it is; else one reaction, by the connection's
    // own two functions: no promise or closure made per request (every check comes here).
    if (answered instanceof Promise) void answered.then(connection.reply, connection.failed);
    else connection.reply(answered);
  }

  /** A request of the connection's answered; `failed`: its handler failed, or its answer could not be sent. */
  private answered(connection: Connection, failed: boolean, error: unknown): void {
    if (failed) this.log.error({ err: error }, 'handler failed');
    this.inFlight -= 1;
    connection.inFlight -= 1;
    connection.lastActive = Date.now();
    if (this.inFlight === 0) this.drained?.();
  }
}

/** A client's connection: its answers wait for the end of the turn and leave in one write. */
class Connection {
  /**
   * The answers' JSON, made as each comes (one that cannot be made fails alone): the turn's
   * first, and any after it. One answer a turn, the hooks' shape, makes no array to grow.
   */
  private first: FrameText | undefined;
  private more: FrameText[] | undefined;
  inFlight = 0;
  /** A frame begun and not finished. */
  partial = false;
  lastActive = Date.now();
  constructor(
    private readonly socket: Socket,
    /** Told of each request answered, and of the error if its handler failed or its answer could not be made. */
    private readonly answered: (failed: boolean, error?: unknown) => void,
  ) {}

  /** Sends a request's answer: made once per connection, not a closure per request. */
  readonly reply = (response: Response): void => {
    try {
      this.send(response);
    } catch (error) {
      this.answered(true, error);
      return;
    }
    this.answered(false);
  };

  /** A request whose handler failed. */
  readonly failed = (error: unknown): void => this.answered(true, error);

  /** Who holds the other end, asked of the kernel for each user's command (the holders of a socket can change). */
  readonly callerOf = (): Promise<CallerVerdict> =>
    peerChains(this.socket).then(
      (chains) => judgeCaller(chains, AGENT_MARKS),
      (error: unknown): CallerVerdict => {
        const why = `recap could not tell which process sent it (${(error as Error).message})`;
        // A system with no means to tell is not a failure to tell: the handler may ask the user.
        return unknowable(error) ? { user: false, why, unknowable: true } : { user: false, why };
      },
    );

  /** Nothing asked and unanswered, nothing half sent: closing it loses nothing. */
  idle(): boolean {
    return this.inFlight === 0 && !this.partial;
  }

  destroy(): void {
    this.socket.destroy();
  }

  send(message: Response | ProgressFrame): void {
    const text = answerText(message);
    // A tick scheduled from the handlers' promises runs once they have all settled.
    if (this.first === undefined) process.nextTick(this.flushQueued);
    this.queue(text);
  }

  /** Sends what is queued and `last`, then closes. */
  end(last?: Response): void {
    if (last) this.queue(answerText(last));
    this.flush();
    this.socket.end();
  }

  private queue(text: FrameText): void {
    if (this.first === undefined) this.first = text;
    else (this.more ??= []).push(text);
  }

  /** flush, made once per connection for process.nextTick: not a closure per answer. */
  private readonly flushQueued = (): void => this.flush();

  private flush(): void {
    const { first, more } = this;
    if (first === undefined) return;
    this.first = undefined;
    this.more = undefined;
    if (this.socket.destroyed || this.socket.writableEnded) return;
    if (more === undefined && !Array.isArray(first)) {
      this.socket.write(framesOf([first]));
      return;
    }
    const writes = frameWrites(more === undefined ? [first] : [first, ...more]);
    // A page of events is among them: its megabytes go as they are, in one writev, not copied into one buffer.
    this.socket.cork();
    for (const part of writes) this.socket.write(part);
    this.socket.uncork();
  }
}

/** A message's JSON; a page of events already in JSON (storedLines.ts) is not written again, nor copied. */
function answerText(message: Response | ProgressFrame): FrameText {
  if ('result' in message && message.result instanceof EncodedEventsPage) return message.result.answerParts(message.id);
  return JSON.stringify(message);
}

/** The limits, with RECAP_IDLE_TIMEOUT_MS, RECAP_FRAME_TIMEOUT_MS and RECAP_MAX_CONNECTIONS where they are set. */
export function limitsFrom(env: NodeJS.ProcessEnv): Limits {
  const ms = (value: string | undefined, fallback: number) => {
    const n = Number(value);
    return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback;
  };
  return {
    ...DEFAULT_LIMITS,
    idleMs: ms(env.RECAP_IDLE_TIMEOUT_MS, DEFAULT_LIMITS.idleMs),
    partialFrameMs: ms(env.RECAP_FRAME_TIMEOUT_MS, DEFAULT_LIMITS.partialFrameMs),
    maxConnections: ms(env.RECAP_MAX_CONNECTIONS, DEFAULT_LIMITS.maxConnections),
  };
}
