// The pages of the `events` op as `recap log` and `recap export` read them: asked for ahead
// on a connection of their own, and cut out of each answer's bytes without parsing them, so
// a log of a million events streams out at the speed of the socket.
import { connect, type Socket } from 'node:net';
import { encodeFrame, MAX_ANSWER_FRAME } from '../common/frames.js';
import { socketPath } from '../common/paths.js';
import { eventLinesOf, type EventLine } from '../protocol/answers.js';
import type { RequestFields, ResponseOf } from '../protocol/protocol.js';
import { connectOrStart } from './autostart.js';
import { RemoteError } from './socketClient.js';
import { UserError } from '../common/errors.js';

/** What `recap log` and `recap export` ask for; the pages' bounds are the reader's. */
export type EventQuery = Omit<RequestFields<'events'>, 'fromSeq' | 'limit' | 'wait'>;

/**
 * Events per page: about two megabytes of JSON, a few milliseconds of the daemon's time. Three
 * of the daemon's packs of 1,024 events (RECAP_PACK_EVENTS), so a page starts where a pack does
 * and reads none twice.
 */
const PAGE = 3072;
/** How long the daemon may take to answer a page once the client waits for it. */
export const PAGE_TIMEOUT_MS = 30_000;

/**
 * A page of the `events` op. `lines()` is its events as JSON Lines, each exactly as
 * JSON.stringify writes it: the bytes the daemon sent, cut out of the frame without being
 * parsed and written again (JSON.stringify's output reads back and writes out unchanged);
 * when `stored` (asked for, and answered so by a daemon that knows it), the daemon's records
 * of the events as stored (storedRecords.ts).
 * Its bytes are the reader's until it asks for the next page: they are then reused.
 */
export type EventPage = { next: number | null; lastSeq: number; stored: boolean; lines(): Buffer; events(): EventLine[] };

/**
 * Every matching event, page by page: a million events never sit in memory at once.
 *
 * The daemon is asked for pages ahead, so it is not idle while a page travels or is written
 * out. Where the next page starts is known for sure only from the page before it; without
 * a filter every page holds exactly PAGE events, so the pages after it are asked for on
 * that guess, and if a page says otherwise (a hole in the log) the guesses are dropped and
 * the page it names is asked for. With a filter the next page is asked for as soon as a
 * page arrives.
 */
export async function* eventPages(query: EventQuery, onPage?: (done: number) => void): AsyncGenerator<EventPage> {
  const unfiltered = Object.keys(query).every((key) => key === 'raw' || key === 'stored');
  const stream = await FrameStream.open();
  let id = 0;
  /** Requests sent and not yet answered or dropped, in order. */
  let inFlight: { id: number; fromSeq: number }[] = [];
  const ask = (fromSeq: number) => {
    id += 1;
    inFlight.push({ id, fromSeq });
    stream.send({ ...query, fromSeq, limit: PAGE, lines: true, id, op: 'events' });
  };
  try {
    ask(1);
    for (;;) {
      const wanted = inFlight.shift()!;
      const body = await stream.answer(wanted.id);
      const page = readPage(body, wanted.id);
      if (page.next !== null) {
        if (inFlight[0]?.fromSeq !== page.next) {
          stream.drop(inFlight.map((r) => r.id));
          inFlight = [];
          ask(page.next);
        }
        if (unfiltered) while (inFlight.length < AHEAD) ask(inFlight.at(-1)!.fromSeq + PAGE);
      }
      yield page;
      stream.reuse(body);
      onPage?.(page.next ?? page.lastSeq);
      if (page.next === null) return;
    }
  } finally {
    stream.close();
  }
}

/** Pages asked for ahead of the one being written out, without a filter. */
const AHEAD = 2;

/**
 * A connection to the daemon that hands out whole answers, undecoded. The socket reads into
 * one buffer, reused (a million events' export is 400 MB of reads, and a new Buffer for each
 * was a tenth of the CLI's time in the garbage collector), and each frame's bytes are copied
 * from it once, into a buffer of the frame's size made when its length is read.
 */
class FrameStream {
  /** Answers received and not yet taken, by request id (-1: one without a usable id). */
  private readonly answers = new Map<number, Buffer>();
  /** Requests whose answers are of no use (made on a guess that proved wrong). */
  private readonly dropped = new Set<number>();
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  /** The frame being received: its length's bytes, then its body. */
  private readonly head = Buffer.alloc(4);
  private headHave = 0;
  private body: Buffer | undefined;
  private bodyHave = 0;
  private socket: Socket | undefined;
  /** Bodies the reader is done with, for the frames to come. */
  private readonly spares: Buffer[] = [];

  static async open(): Promise<FrameStream> {
    // Starts the daemon if none answers, as every command does.
    (await connectOrStart()).close();
    const path = socketPath();
    const stream = new FrameStream();
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    const socket = connect({ path, onread: { buffer, callback: (n) => stream.take(buffer, n) } });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error) => reject(new Error(`cannot connect to the recap daemon on ${path}: ${error.message}`)));
    });
    socket.on('error', (error) => stream.fail(error));
    // A daemon that stops or restarts ends the stream (recap log -f waits on it): said as that, not as a fault.
    socket.on('close', () => stream.fail(new UserError('the recap daemon closed the connection (it stopped or restarted); run the command again')));
    stream.socket = socket;
    return stream;
  }

  send(request: RequestFields<'events'> & { id: number; op: 'events' }): void {
    this.socket!.write(encodeFrame(request));
  }

  drop(ids: number[]): void {
    for (const id of ids) {
      if (!this.answers.delete(id)) this.dropped.add(id);
    }
  }

  /** The body of the answer to request `id`; an error when none comes within PAGE_TIMEOUT_MS. */
  async answer(id: number): Promise<Buffer> {
    const deadline = Date.now() + PAGE_TIMEOUT_MS;
    for (;;) {
      const key = this.answers.has(id) ? id : this.answers.has(-1) ? -1 : undefined;
      if (key !== undefined) {
        const body = this.answers.get(key)!;
        this.answers.delete(key);
        return body;
      }
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`the recap daemon did not answer events within ${PAGE_TIMEOUT_MS} ms`);
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }

  close(): void {
    this.socket?.end();
  }

  /**
   * A frame's body the reader is done with, kept for a frame to come: a page is megabytes,
   * and a new buffer for each made the garbage collector a quarter of the CLI's time in an
   * export (V8 collects as the memory held outside its heap grows).
   */
  reuse(body: Buffer): void {
    // A buffer made for one frame has its memory to itself (Node pools only small ones).
    if (body.byteOffset !== 0 || body.buffer.byteLength < SPARE_MIN || this.spares.length >= SPARES) return;
    this.spares.push(Buffer.from(body.buffer));
  }

  /** A buffer of `length` bytes: a spare when one is large enough. */
  private bufferOf(length: number): Buffer {
    const at = this.spares.findIndex((spare) => spare.length >= length);
    if (at < 0) return Buffer.allocUnsafe(length);
    return this.spares.splice(at, 1)[0]!.subarray(0, length);
  }

  /** The `n` bytes the socket read into `buffer` (which it reuses): copied into the frames they belong to. */
  private take(buffer: Buffer, n: number): boolean {
    if (this.failure) return false;
    let at = 0;
    while (at < n) {
      if (this.body === undefined) {
        const copied = buffer.copy(this.head, this.headHave, at, Math.min(n, at + 4 - this.headHave));
        this.headHave += copied;
        at += copied;
        if (this.headHave < 4) break;
        const length = this.head.readUInt32BE(0);
        if (length > MAX_ANSWER_FRAME) {
          this.fail(new Error(`the recap daemon sent a page of ${length} bytes, over the ${MAX_ANSWER_FRAME} bytes recap reads`));
          this.socket?.destroy();
          return false;
        }
        this.body = this.bufferOf(length);
        this.bodyHave = 0;
      }
      const copied = buffer.copy(this.body, this.bodyHave, at, Math.min(n, at + this.body.length - this.bodyHave));
      this.bodyHave += copied;
      at += copied;
      if (this.bodyHave === this.body.length) this.received(this.body);
    }
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
    return true;
  }

  /** A whole frame: kept as the answer to its request, unless that request was dropped. */
  private received(body: Buffer): void {
    this.body = undefined;
    this.headHave = 0;
    const id = answerId(body) ?? -1;
    if (!this.dropped.delete(id)) this.answers.set(id, body);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** The buffer the socket reads into. */
const READ_BYTES = 256 * 1024;
/** Bodies kept for reuse, and the least size worth keeping. */
const SPARES = 4;
const SPARE_MIN = 64 * 1024;

/** The id a frame answers, from its first bytes (`{"id":N,`), if it has one. */
function answerId(body: Buffer): number | undefined {
  const match = /^\{"id":(\d+),/.exec(body.toString('latin1', 0, 24));
  return match ? Number(match[1]) : undefined;
}

/**
 * Reads an answer to the `events` request `id`: its JSON Lines taken as they came (a JSON
 * head, a newline, the lines: see the daemon's eventsAnswer.ts); from a daemon that answers
 * in the usual form, the events' JSON is cut out, not parsed.
 */
function readPage(body: Buffer, id: number): EventPage {
  const lines = linesOf(body, id);
  if (lines) return lines;
  const head = Buffer.from(`{"id":${id},"result":{"events":[`);
  if (body.length > head.length && body.subarray(0, head.length).equals(head)) {
    const open = head.length - 1;
    const elements = arrayElements(body, open);
    const tail = elements && tailOf(body, elements.end);
    if (elements && tail) {
      let lines: Buffer | undefined;
      return {
        ...tail,
        stored: false,
        lines: () => (lines ??= joinLines(body, elements.bounds)),
        // The lines may have been made in the answer's own bytes: then they are read.
        events: () => (lines ? eventLinesOf(lines.toString('utf8')) : (JSON.parse(body.toString('utf8', open, elements.end)) as EventLine[])),
      };
    }
  }
  // Any other shape (an error, say): parsed as a whole.
  const answer = JSON.parse(body.toString('utf8')) as {
    id?: unknown;
    result?: ResponseOf<'events'>;
    error?: { code: string; message: string };
  };
  if (answer.error) throw new RemoteError(answer.error.code, answer.error.message);
  if (answer.id !== id || !answer.result) throw new Error('the recap daemon sent an answer to another request');
  const { events, next, lastSeq } = answer.result;
  return {
    next,
    lastSeq,
    stored: false,
    lines: () => Buffer.from(events.length > 0 ? `${events.map((l) => JSON.stringify(l)).join('\n')}\n` : ''),
    events: () => events,
  };
}

/** The longest head of an answer in lines: `{"id":N,"result":{"next":N,"lastSeq":N,"bytes":N,"stored":true}}`. */
const LINES_HEAD = 160;

/** A page answered in lines, if `body` is one: its head names request `id` and the lines' length. */
function linesOf(body: Buffer, id: number): EventPage | undefined {
  const newline = body.subarray(0, LINES_HEAD).indexOf(0x0a);
  if (newline < 0) return undefined;
  let head: { id?: unknown; result?: { next?: unknown; lastSeq?: unknown; bytes?: unknown; stored?: unknown } };
  try {
    head = JSON.parse(body.toString('utf8', 0, newline)) as typeof head;
  } catch {
    return undefined;
  }
  const { next, lastSeq, bytes, stored } = head.result ?? {};
  if (head.id !== id || (next !== null && typeof next !== 'number') || typeof lastSeq !== 'number' || bytes !== body.length - newline - 1) return undefined;
  const lines = body.subarray(newline + 1);
  return {
    next,
    lastSeq,
    stored: stored === true,
    lines: () => lines,
    events: () => {
      if (stored === true) throw new Error('a page of events as stored holds records, not lines: read it with lines()');
      return eventLinesOf(lines.toString('utf8'));
    },
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where each element of the JSON array opening at `open` starts and ends, and where the
 * array ends; undefined unless every element is an object. Strings are skipped with
 * indexOf: a quote inside one is always escaped (and UTF-8 never puts a quote or a
 * backslash byte inside a multi-byte character).
 */
function arrayElements(body: Buffer, open: number): { bounds: number[]; end: number } | undefined {
  const bounds: number[] = [];
  let depth = 0;
  for (let i = open; i < body.length; i += 1) {
    const c = body[i]!;
    if (c === QUOTE) {
      let close = i;
      do {
        close = body.indexOf(QUOTE, close + 1);
        if (close < 0) return undefined;
      } while (escaped(body, close));
      i = close;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth === 2) {
        if (c !== 0x7b) return undefined;
        bounds.push(i);
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
      if (depth === 1) bounds.push(i + 1);
      if (depth === 0) return { bounds, end: i + 1 };
    }
  }
  return undefined;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(body: Buffer, at: number): boolean {
  let backslashes = 0;
  while (body[at - 1 - backslashes] === BACKSLASH) backslashes += 1;
  return backslashes % 2 === 1;
}

/** `next` and `lastSeq`, from what follows the events: `,"next":...,"lastSeq":...}}`. */
function tailOf(body: Buffer, end: number): { next: number | null; lastSeq: number } | undefined {
  const rest = body.toString('utf8', end);
  if (!rest.endsWith('}}')) return undefined;
  try {
    const tail = JSON.parse(`{"events":[]${rest.slice(0, -1)}`) as { next?: unknown; lastSeq?: unknown };
    const keys = Object.keys(tail);
    if (keys.length !== 3 || (tail.next !== null && typeof tail.next !== 'number') || typeof tail.lastSeq !== 'number') return undefined;
    return { next: tail.next, lastSeq: tail.lastSeq };
  } catch {
    return undefined;
  }
}

/**
 * The elements between `bounds` (start, end, start, end, ...) as lines, each ended by a
 * newline. JSON.stringify puts one comma between elements and the array's bracket after the
 * last: those bytes become the newlines, in the answer's own bytes, with no copy of a page
 * of megabytes (a fresh buffer that size costs its page faults too); any other spacing is copied.
 */
function joinLines(body: Buffer, bounds: number[]): Buffer {
  if (bounds.length === 0) return Buffer.alloc(0);
  let inPlace = body[bounds.at(-1)!] === 0x5d;
  for (let i = 1; inPlace && i < bounds.length - 1; i += 2) inPlace = bounds[i + 1] === bounds[i]! + 1 && body[bounds[i]!] === 0x2c;
  if (inPlace) {
    for (let i = 1; i < bounds.length; i += 2) body[bounds[i]!] = 0x0a;
    return body.subarray(bounds[0], bounds.at(-1)! + 1);
  }
  let size = 0;
  for (let i = 0; i < bounds.length; i += 2) size += bounds[i + 1]! - bounds[i]! + 1;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < bounds.length; i += 2) {
    at += body.copy(out, at, bounds[i]!, bounds[i + 1]!);
    out[at++] = 0x0a;
  }
  return out;
}
