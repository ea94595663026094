// A client of the daemon's socket: frames requests, matches answers by id, and gives up
// after a deadline. Node built-ins only, so the hook client can use it.
import { connect, type Socket } from 'node:net';
import { UserError } from '../common/errors.js';
import { DEFAULT_MAX_FRAME, describeBytes, encodeFrame, FrameReader, MAX_ANSWER_FRAME } from '../common/frames.js';
import type { Op, RequestFields, ResponseOf } from '../protocol/protocol.js';

/** No daemon is listening (no socket file, or nobody answers on it). */
export class DaemonUnavailable extends Error {}

/**
 * A daemon is there but accepted no connection in time (its queue stayed full): not a
 * reason to start another one.
 */
export class DaemonBusy extends UserError {}

/** A request over the daemon's frame limit: refused here, the daemon never sees it. */
export class RequestTooLarge extends UserError {}

/** The daemon took a request and gave no answer in time (stopped, stuck, flooded). */
export class NoAnswer extends Error {}

/** The daemon answered with an error. */
export class RemoteError extends UserError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; progress: (done: number) => void };

export class Client {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly reader = new FrameReader(MAX_ANSWER_FRAME);

  private constructor(private readonly socket: Socket) {
    const failAll = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    socket.on('data', (chunk) => {
      for (const frame of this.reader.push(chunk)) {
        // An answer too large to read is an error for every request waiting, never a silence
        // that ends in a timeout.
        if (frame.kind === 'oversized') {
          failAll(
            new Error(
              `the recap daemon sent an answer of ${describeBytes(frame.length)}, over the ${describeBytes(MAX_ANSWER_FRAME)} recap reads; ask for less (a smaller --limit, one event at a time)`,
            ),
          );
          socket.destroy();
          return;
        }
        if (frame.kind !== 'message') continue;
        const { id, result, error, progress } = frame.value as {
          id?: number;
          result?: unknown;
          error?: { code: string; message: string };
          progress?: { done: number };
        };
        // An error for no request in particular (a frame over the limit, too many bytes
        // pending) ends every request on this connection with the daemon's own words.
        if (id === null && error) {
          failAll(new RemoteError(error.code, error.message));
          continue;
        }
        const waiting = typeof id === 'number' ? this.pending.get(id) : undefined;
        if (!waiting) continue;
        if (progress) {
          waiting.progress(progress.done);
          continue;
        }
        this.pending.delete(id as number);
        if (error) waiting.reject(new RemoteError(error.code, error.message));
        else waiting.resolve(result);
      }
    });
    socket.on('error', failAll);
    // A daemon that stops or restarts closes its connections: said as that, not as a fault.
    socket.on('close', () => failAll(new UserError('the recap daemon closed the connection (it stopped or restarted); run the command again')));
  }

  /**
   * Connects within `timeoutMs`. A full accept queue (EAGAIN: the daemon is taking a burst
   * of connections) is tried again after a short pause, until the time is up.
   */
  static async connect(path: string, timeoutMs = 2000): Promise<Client> {
    const deadline = Date.now() + timeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      try {
        return await Client.connectOnce(path, Math.max(1, deadline - Date.now()));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (Date.now() + pause >= deadline) throw new DaemonBusy(`the recap daemon on ${path} accepted no connection within ${timeoutMs} ms (its queue is full); try again`);
        await new Promise((resume) => setTimeout(resume, pause));
      }
    }
  }

  private static connectOnce(path: string, timeoutMs: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonUnavailable(`no answer on ${path} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new Client(socket));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') reject(new DaemonUnavailable(`no recap daemon is listening on ${path}`));
        else if (error.code === 'EACCES') reject(new Error(`permission denied on ${path}: the socket belongs to another user`));
        else reject(error);
      });
    });
  }

  /**
   * Sends a request; `onProgress` hears a long op's progress, each report restarting the
   * deadline. The answer is typed by the op (protocol.ts's Responses): the daemon's answers
   * are trusted as its own, as every frame on this socket is.
   */
  request<O extends Op>(op: O, fields: RequestFields<O>, timeoutMs?: number, onProgress?: (done: number) => void): Promise<ResponseOf<O>>;
  request(op: Op, fields: Record<string, unknown>, timeoutMs = 30_000, onProgress?: (done: number) => void): Promise<unknown> {
    const id = this.nextId++;
    const frame = encodeFrame({ ...fields, id, op });
    if (frame.length - 4 > DEFAULT_MAX_FRAME) {
      const message = `the ${op} request is ${describeBytes(frame.length - 4)}, over the ${describeBytes(DEFAULT_MAX_FRAME)} a recap request may be; send less (the daemon was not asked)`;
      return Promise.reject(new RequestTooLarge(message));
    }
    return new Promise((resolve, reject) => {
      const expire = () => {
        this.pending.delete(id);
        reject(new NoAnswer(`the recap daemon did not answer ${op} within ${timeoutMs} ms`));
      };
      let timer = setTimeout(expire, timeoutMs);
      this.pending.set(id, {
        progress: (done) => {
          clearTimeout(timer);
          timer = setTimeout(expire, timeoutMs);
          onProgress?.(done);
        },
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(frame);
    });
  }

  close(): void {
    this.socket.end();
  }
}
