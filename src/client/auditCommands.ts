// The audit commands: recap log (and log -f), show, jobs, replay, verify, export and import.
import { closeSync, openSync, writeSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { Argv } from 'yargs';
import { UserError } from '../common/errors.js';
import { encodeFrame } from '../common/frames.js';
import { eventLogDir, socketPath } from '../common/paths.js';
import { connectOrStart } from './autostart.js';
import { RemoteError } from './socketClient.js';
import { progress } from './progress.js';
import { eventGist } from './eventGist.js';
import { EVENT_TYPES } from '../events/events.js';
import type { JobRow } from '../protocol/protocol.js';
import { nearNames } from '../common/nearNames.js';
import { localIso, localTime, timeFlag } from './time.js';

type Line = { seq: number; type: string; version: number; time: string | null; data: Record<string, unknown> };
type Common = { json: boolean; job?: string | undefined };

/** The job a read command is about: --job, else RECAP_JOB; none means every job. */
export function jobOf(argv: Common): { job?: string } {
  const job = argv.job ?? (process.env.RECAP_JOB || undefined);
  return job !== undefined ? { job } : {};
}

/** How long the daemon holds a `recap log -f` page that finds nothing new, and the events per page. */
const FOLLOW_WAIT_MS = 10_000;
const FOLLOW_PAGE = 500;

/** Events per page: about a megabyte and a half of JSON, a few milliseconds of the daemon's time. */
const PAGE = 2500;
/** How long the daemon may take to answer a page once the client waits for it. */
const PAGE_TIMEOUT_MS = 30_000;
const MAX_FRAME = 64 * 1024 * 1024;

/**
 * A page of the `events` op. `lines()` is its events as JSON Lines, each exactly as
 * JSON.stringify writes it: the bytes the daemon sent, cut out of the frame without being
 * parsed and written again (JSON.stringify's output reads back and writes out unchanged).
 */
type EventPage = { next: number | null; lastSeq: number; lines(): Buffer; events(): Line[] };

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
async function* eventPages(query: Record<string, unknown>, onPage?: (done: number) => void): AsyncGenerator<EventPage> {
  const unfiltered = Object.keys(query).every((key) => key === 'raw');
  const stream = await FrameStream.open();
  let id = 0;
  /** Requests sent and not yet answered or dropped, in order. */
  let inFlight: { id: number; fromSeq: number }[] = [];
  const ask = (fromSeq: number) => {
    id += 1;
    inFlight.push({ id, fromSeq });
    stream.send({ ...query, fromSeq, limit: PAGE, id, op: 'events' });
  };
  try {
    ask(1);
    for (;;) {
      const wanted = inFlight.shift()!;
      const page = readPage(await stream.answer(wanted.id), wanted.id);
      if (page.next !== null) {
        if (inFlight[0]?.fromSeq !== page.next) {
          stream.drop(inFlight.map((r) => r.id));
          inFlight = [];
          ask(page.next);
        }
        if (unfiltered) while (inFlight.length < AHEAD) ask(inFlight.at(-1)!.fromSeq + PAGE);
      }
      yield page;
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
 * A connection to the daemon that hands out whole answers, undecoded. Chunks are gathered
 * in a list and joined once per frame, so a frame of megabytes costs its size, not its
 * square.
 */
class FrameStream {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Answers received and not yet taken, by request id (-1: one without a usable id). */
  private readonly answers = new Map<number, Buffer>();
  /** Requests whose answers are of no use (made on a guess that proved wrong). */
  private readonly dropped = new Set<number>();
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.size += chunk.length;
      this.split();
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the recap daemon closed the connection')));
  }

  static async open(): Promise<FrameStream> {
    // Starts the daemon if none answers, as every command does.
    (await connectOrStart()).close();
    const path = socketPath();
    const socket = connect(path);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', (error) => reject(new Error(`cannot connect to the recap daemon on ${path}: ${error.message}`)));
    });
    return new FrameStream(socket);
  }

  send(request: Record<string, unknown>): void {
    this.socket.write(encodeFrame(request));
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
    this.socket.end();
  }

  private split(): void {
    while (this.size >= 4) {
      if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks, this.size)];
      const length = this.chunks[0]!.readUInt32BE(0);
      if (length > MAX_FRAME) {
        this.fail(new Error(`the recap daemon sent a frame of ${length} bytes, over the limit of ${MAX_FRAME}`));
        this.socket.destroy();
        return;
      }
      if (this.size < 4 + length) break;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
      const body = all.subarray(4, 4 + length);
      const id = answerId(body) ?? -1;
      if (!this.dropped.delete(id)) this.answers.set(id, body);
      const rest = all.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.size = rest.length;
    }
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** The id a frame answers, from its first bytes (`{"id":N,`), if it has one. */
function answerId(body: Buffer): number | undefined {
  const match = /^\{"id":(\d+),/.exec(body.toString('latin1', 0, 24));
  return match ? Number(match[1]) : undefined;
}

/** Reads an answer to the `events` request `id`: the events' JSON is cut out, not parsed. */
function readPage(body: Buffer, id: number): EventPage {
  const head = Buffer.from(`{"id":${id},"result":{"events":[`);
  if (body.length > head.length && body.subarray(0, head.length).equals(head)) {
    const open = head.length - 1;
    const elements = arrayElements(body, open);
    const tail = elements && tailOf(body, elements.end);
    if (elements && tail) {
      return {
        ...tail,
        lines: () => joinLines(body, elements.bounds),
        events: () => JSON.parse(body.toString('utf8', open, elements.end)) as Line[],
      };
    }
  }
  // Any other shape (an error, say): parsed as a whole.
  const answer = JSON.parse(body.toString('utf8')) as {
    id?: unknown;
    result?: { events: Line[]; next: number | null; lastSeq: number };
    error?: { code: string; message: string };
  };
  if (answer.error) throw new RemoteError(answer.error.code, answer.error.message);
  if (answer.id !== id || !answer.result) throw new Error('the recap daemon sent an answer to another request');
  const { events, next, lastSeq } = answer.result;
  return {
    next,
    lastSeq,
    lines: () => Buffer.from(events.length > 0 ? `${events.map((l) => JSON.stringify(l)).join('\n')}\n` : ''),
    events: () => events,
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

/** The elements between `bounds` (start, end, start, end, ...) as lines, each ended by a newline. */
function joinLines(body: Buffer, bounds: number[]): Buffer {
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

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `bytes`. Standard output may be a non-blocking pipe: a write may take only
 * part, or nothing (EAGAIN) while the reader is behind; the rest is written when it has
 * caught up. A reader that stopped (recap log | head) ends the command quietly.
 */
function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length;) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') process.exit(process.exitCode ?? 0);
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
}

const write = (fd: number, text: string) => writeAll(fd, Buffer.from(text));

/** One line of `recap log`: local time with its offset, sequence, job, type, gist. */
const logLine = (l: Line) => `${localIso(l.time)}  #${l.seq}  ${String(l.data.job ?? '-')}  ${l.type}  ${eventGist(l.type, l.data)}`;

/**
 * `recap log -f`: every matching event, then each new one as it is stored. The daemon holds
 * a page that finds nothing new until an event comes (or FOLLOW_WAIT_MS pass), so the
 * client never polls on a timer; it ends with the daemon or Ctrl-C.
 */
async function follow(query: Record<string, unknown>, print: (events: Line[]) => void): Promise<void> {
  const client = await connectOrStart();
  try {
    for (let from = 1; ;) {
      const page = await client.request<{ events: Line[]; next: number | null }>(
        'events',
        { ...query, fromSeq: from, limit: FOLLOW_PAGE, wait: FOLLOW_WAIT_MS },
        FOLLOW_WAIT_MS + PAGE_TIMEOUT_MS,
      );
      print(page.events);
      if (page.next === null) return;
      from = page.next;
    }
  } finally {
    client.close();
  }
}

/** `recap show N`: the event's fields one a line, long texts (a prompt, a summary) whole below. */
function printEvent(line: Line): void {
  write(1, `event #${line.seq}: ${line.type} (version ${line.version})\n`);
  write(1, `time: ${localIso(line.time)}\n`);
  const blocks: [string, string][] = [];
  for (const [key, value] of Object.entries(line.data)) {
    if (key === 'time') continue;
    if (typeof value === 'string' && (value.includes('\n') || key === 'text')) blocks.push([key, value]);
    else write(1, `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }
  for (const [key, value] of blocks) write(1, `${key}:\n${value.endsWith('\n') ? value : `${value}\n`}`);
}

const SORTS = {
  activity: (a: JobRow, b: JobRow) => (b.lastActivity ?? 0) - (a.lastActivity ?? 0),
  name: (a: JobRow, b: JobRow) => a.job.localeCompare(b.job),
  tokens: (a: JobRow, b: JobRow) => b.unsummarizedTokens - a.unsummarizedTokens,
  summaries: (a: JobRow, b: JobRow) => b.summaries - a.summaries,
} as const;

function printJobs(jobs: JobRow[]): void {
  if (jobs.length === 0) return void write(1, 'no jobs yet: recap counts a job from its first event\n');
  const head = ['job', 'gate', 'unsummarized', 'summaries', 'last activity', 'agents'];
  const rows = jobs.map((j) => [
    j.job,
    j.tripped ? `TRIPPED (${j.reason ?? 'threshold'})` : 'open',
    `${j.unsummarizedTokens} tokens`,
    String(j.summaries),
    j.lastActivity === null ? '-' : localTime(j.lastActivity),
    j.agents.length > 0 ? j.agents.join(', ') : '-',
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [head, ...rows]) write(1, `${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}\n`);
}

export function auditCommands(y: Argv<Common>): Argv<Common> {
  return y
    .command(
      'log',
      'the event timeline, oldest first; -f follows it',
      (a) =>
        a
          .option('type', { type: 'string', array: true, choices: EVENT_TYPES, describe: 'only these event types' })
          .option('since', { type: 'string', describe: 'from this time (HH:MM, ISO 8601, or 10m/2h/3d ago)' })
          .option('until', { type: 'string', describe: 'up to this time' })
          .option('follow', { type: 'boolean', alias: 'f', default: false, describe: 'then print new events as they come' }),
      async (argv) => {
        const query = {
          ...jobOf(argv),
          ...(argv.type ? { types: argv.type } : {}),
          ...(argv.since !== undefined ? { since: timeFlag(argv.since, '--since', argv.json) } : {}),
          ...(argv.until !== undefined ? { until: timeFlag(argv.until, '--until', argv.json) } : {}),
        };
        if (argv.follow) {
          return follow(query, (events) => {
            const text = events.map((l) => (argv.json ? JSON.stringify(l) : logLine(l))).join('\n');
            if (text) write(1, `${text}\n`);
          });
        }
        for await (const page of eventPages(query)) {
          if (argv.json) {
            writeAll(1, page.lines());
            continue;
          }
          const text = page.events().map(logLine).join('\n');
          if (text) write(1, `${text}\n`);
        }
      },
    )
    .command(
      'show <seq>',
      'one event whole (a summary with its text)',
      (a) => a.positional('seq', { type: 'string', demandOption: true, describe: 'the sequence number (#N or N), as recap log shows it' }),
      async (argv) => {
        if (!/^#?\d+$/.test(argv.seq) || Number(argv.seq.replace('#', '')) < 1)
          throw new UserError(`recap show takes a sequence number such as 12 or #12, not ${JSON.stringify(argv.seq)}`);
        const seq = Number(argv.seq.replace('#', ''));
        const client = await connectOrStart();
        try {
          const page = await client.request<{ events: Line[]; lastSeq: number }>('events', { fromSeq: seq, limit: 1 });
          const line = page.events[0];
          if (line?.seq !== seq) throw new UserError(`there is no event #${seq}: the log holds events #1 to #${page.lastSeq}`);
          const { job } = jobOf(argv);
          if (job !== undefined && line.data.job !== job) throw new UserError(`event #${seq} is not of job ${job} (it is of ${String(line.data.job ?? 'no job')})`);
          if (argv.json) write(1, `${JSON.stringify(line, null, 2)}\n`);
          else printEvent(line);
        } finally {
          client.close();
        }
      },
    )
    .command(
      'jobs',
      'every job: gate, tokens, summaries, activity, agents',
      (a) => a.option('sort', { choices: Object.keys(SORTS) as (keyof typeof SORTS)[], default: 'activity' as const, describe: 'order (activity: newest first)' }),
      async (argv) => {
        const client = await connectOrStart();
        try {
          const all = (await client.request<{ jobs: JobRow[] }>('jobs', {})).jobs;
          const { job } = jobOf(argv);
          // With --job, that job's row alone (as every command reads --job).
          const jobs = job === undefined ? all : all.filter((j) => j.job === job);
          if (job !== undefined && jobs.length === 0) {
            const near = nearNames(
              job,
              all.map((j) => j.job),
            );
            throw new UserError(`job ${JSON.stringify(job)} has no events${near.length > 0 ? `; jobs with near names: ${near.join(', ')}` : ''}`);
          }
          jobs.sort(SORTS[argv.sort]);
          if (argv.json) {
            const utc = jobs.map((j) => ({ ...j, lastActivity: j.lastActivity === null ? null : new Date(j.lastActivity).toISOString() }));
            write(1, `${JSON.stringify({ jobs: utc }, null, 2)}\n`);
          } else printJobs(jobs);
        } finally {
          client.close();
        }
      },
    )
    .command(
      'replay',
      'the gates and chains as they were at a moment',
      (a) => a.option('at', { type: 'string', demandOption: true, describe: 'a sequence number (#N or N) or a time (ISO, HH:MM, 10m ago)' }),
      async (argv) => {
        const at = /^#?\d+$/.test(argv.at) ? { atSeq: Number(argv.at.replace('#', '')) } : { atTime: timeFlag(argv.at, '--at', argv.json) };
        const shown = progress('replay');
        const client = await connectOrStart();
        try {
          const result = await client.request<{ seq: number; jobs: Record<string, unknown>[] }>('replay', { ...at, ...jobOf(argv) }, 60_000, shown.update);
          shown.done();
          if (argv.json) return void write(1, `${JSON.stringify(result, null, 2)}\n`);
          write(1, `at #${result.seq}${at.atTime !== undefined ? ` (${localTime(at.atTime)})` : ''}\n`);
          if (result.jobs.length === 0) write(1, 'no job had any event yet\n');
          for (const j of result.jobs) {
            write(1, `job ${j.job}: gate ${j.tripped ? `TRIPPED since ${localIso(j.since as string)}: ${j.cause}` : 'open'}\n`);
            write(
              1,
              `  unsummarized: ${j.unsummarizedTokens} tokens, ${j.unsummarizedInteractions} interactions; ${j.summaries} summaries; ${j.denials} tool calls denied; ${j.rejections} summaries rejected\n`,
            );
          }
        } finally {
          client.close();
        }
      },
    )
    .command(
      'verify',
      'check every hash and link, and a full replay',
      (a) => a,
      async (argv) => {
        const job = jobOf(argv);
        const shown = progress('verify');
        const client = await connectOrStart();
        try {
          const result = await client.request<{ ok: boolean; events: number; summaries: number; jobs: number; problems: { seq?: number; job?: string; what: string }[] }>(
            'verify',
            job,
            60_000,
            shown.update,
          );
          shown.done();
          if (argv.json) write(1, `${JSON.stringify(result, null, 2)}\n`);
          else if (result.ok) write(1, `intact: ${result.events} events, ${result.summaries} summaries in ${job.job !== undefined ? `job ${job.job}` : `${result.jobs} jobs`}\n`);
          else {
            write(1, `BROKEN: ${result.problems.length} problems in ${result.events} events\n`);
            for (const p of result.problems) write(2, `${p.job ? `job ${p.job}, ` : ''}${p.seq !== undefined ? `#${p.seq}: ` : ''}${p.what}\n`);
          }
          if (!result.ok) process.exitCode = 2;
        } finally {
          client.close();
        }
      },
    )
    .command(
      'export',
      'every event as JSON Lines (format in the README)',
      (a) => a.option('out', { type: 'string', describe: 'write to this file instead of stdout' }),
      async (argv) => {
        const fd = argv.out !== undefined ? openSync(argv.out, 'w', 0o600) : 1;
        const shown = progress('export');
        try {
          const { exportHeader } = await import('../protocol/exportFormat.js');
          write(fd, `${exportHeader()}\n`);
          const query = { raw: true, ...jobOf(argv) };
          for await (const page of eventPages(query, shown.update)) writeAll(fd, page.lines());
        } finally {
          shown.done();
          if (fd !== 1) closeSync(fd);
        }
      },
    )
    .command(
      'import <file>',
      'rebuild a log from an export (daemon stopped)',
      // No job: --job is left out of its --help (and refused, see JOBLESS_COMMANDS in cli.ts).
      (a) => a.hide('job').positional('file', { type: 'string', demandOption: true }),
      async (argv) => {
        const { importLog } = await import('../daemon/importLog.js');
        const shown = progress('import');
        const count = await importLog(argv.file, eventLogDir(), shown.update);
        shown.done();
        write(1, argv.json ? `${JSON.stringify({ imported: count })}\n` : `imported ${count} events into ${eventLogDir()}\n`);
      },
    );
}
