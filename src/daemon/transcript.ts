// An agent's transcript (JSON Lines) read as it grows: the model's token use per
// message, and the agent's context use, as the agent's adapter reads a line. Only the new bytes are read on each hook; a
// half-written last line waits for the next read. The agent can write to this file, so
// nothing in it may change a verdict: only a regular file is opened (never a FIFO, a
// device, a directory or a symlink, which could block a read or never end), a read is
// bounded in size and time, and a line that is not a usable object is skipped.
import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import type { UsageEntry } from '../events/commands.js';
import { parseJson } from '../common/json.js';
import type { LineUsage, MachineTurn } from '../agents/adapter.js';

export type { MachineTurn };

/** On a first read of a long transcript only its tail is read: its newest turns matter most. */
const FIRST_READ_MAX = 4 * 1024 * 1024;
/** The most one read takes; a line longer than this is skipped whole. */
const READ_MAX = 8 * 1024 * 1024;
/** A read that takes longer (a stalled file system) is given up: the call goes on without it. */
const READ_DEADLINE_MS = 1000;
const MAX_TRANSCRIPTS = 10_000;
const NEWLINE = 0x0a;

export type TranscriptNews = {
  usage: UsageEntry[];
  /** The main agent's context use at its last response, and the model that gave it. */
  contextTokens?: number;
  model?: string;
  machine: MachineTurn[];
};

/** Where a transcript's next read starts, and what it last said. */
type Place = { offset: number; context?: number; model?: string; dev: number; ino: number; skipping: boolean };

const NOTHING_NEW: TranscriptNews = { usage: [], machine: [] };

export class TranscriptReader {
  private readonly places = new Map<string, Place>();

  constructor(private readonly usageOf: LineUsage) {}

  /**
   * The news since the last read; nothing (never an error) when the file cannot be used or
   * does not answer in time (a read left behind closes its file when it ends).
   */
  read(path: string): Promise<TranscriptNews> {
    return withDeadline(this.readNow(path), READ_DEADLINE_MS, NOTHING_NEW);
  }

  private async readNow(path: string): Promise<TranscriptNews> {
    const handle = await openRegular(path);
    if (handle === undefined) return NOTHING_NEW;
    try {
      return await this.readFrom(path, handle.file, handle.stats);
    } catch {
      return NOTHING_NEW;
    } finally {
      void handle.file.close().catch(() => undefined);
    }
  }

  private async readFrom(path: string, file: FileHandle, stats: Stats): Promise<TranscriptNews> {
    let known = this.places.get(path);
    // Another file under the same name, or one cut shorter: start over.
    if (known !== undefined && (known.dev !== stats.dev || known.ino !== stats.ino || known.offset > stats.size)) known = undefined;
    const from = known?.offset ?? Math.max(0, stats.size - FIRST_READ_MAX);
    const length = Math.min(stats.size - from, READ_MAX);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = length > 0 ? await file.read(buffer, 0, length, from) : { bytesRead: 0 };
    const bytes = buffer.subarray(0, bytesRead);
    // A line cut by the read's start (a tail read, or the rest of a skipped long line) is dropped.
    const cut = (known === undefined && from > 0) || known?.skipping === true;
    const firstNewline = bytes.indexOf(NEWLINE);
    const start = cut ? firstNewline + 1 : 0;
    const end = bytes.lastIndexOf(NEWLINE);
    let consumed: number;
    let skipping = false;
    if (cut && firstNewline === -1) {
      consumed = bytesRead; // still inside the cut line
      skipping = true;
    } else if (end === -1 || end < start) {
      // No complete line: wait for the rest, unless the line is already longer than a read.
      skipping = start === 0 && bytesRead === READ_MAX;
      consumed = skipping ? bytesRead : start;
    } else {
      consumed = end + 1;
    }
    const usage: UsageEntry[] = [];
    const machine: MachineTurn[] = [];
    let { context, model } = known ?? {};
    if (end >= start && end !== -1) {
      for (const line of bytes.subarray(start, end).toString('utf8').split('\n')) {
        const found = this.usageOfLine(line);
        if (!found) continue;
        if (found.usage !== undefined) usage.push(found.usage);
        if (found.machine !== undefined) machine.push(found.machine);
        if (found.context !== undefined) ({ context, model } = found);
      }
    }
    const said = { ...(context !== undefined ? { context } : {}), ...(model !== undefined ? { model } : {}) };
    this.remember(path, { offset: from + consumed, ...said, dev: stats.dev, ino: stats.ino, skipping });
    return { usage, machine, ...(context !== undefined ? { contextTokens: context } : {}), ...(model !== undefined ? { model } : {}) };
  }

  private usageOfLine(line: string): ReturnType<LineUsage> {
    if (line.trim() === '') return undefined;
    try {
      return this.usageOf(parseJson(line));
    } catch {
      return undefined;
    }
  }

  private remember(path: string, place: Place): void {
    if (!this.places.has(path) && this.places.size >= MAX_TRANSCRIPTS) this.places.clear();
    this.places.set(path, place);
  }
}

/**
 * The file opened for reading if it is a regular file, else undefined. lstat first, so a
 * FIFO, a device or a symlink is never opened; then opened without following a symlink
 * and without waiting (O_NONBLOCK), and checked again: it may have been swapped between.
 */
async function openRegular(path: string): Promise<{ file: FileHandle; stats: Stats } | undefined> {
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stats = await file.stat().catch(() => undefined);
    if (stats?.isFile()) return { file, stats };
    void file.close().catch(() => undefined);
    return undefined;
  } catch {
    return undefined;
  }
}

/** The promise's value, or `fallback` once `ms` have passed. */
function withDeadline<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
