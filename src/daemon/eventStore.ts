// The append-only event log on LevelDB. Sequence numbers are handed out at once, so the
// caller can fold its events into the projection without waiting; the write itself joins
// the next synced batch (group commit): every command that arrives while a batch is being
// synced is written, and acknowledged, together in the batch after it.
import { EventEmitter } from 'eventemitter3';
import { Level } from 'level';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../events/events.js';
import { decodeEvent, decodeKey, encodeEvent, encodeKey, MAX_SEQ } from './codec.js';

type Waiting = { events: StoredEvent[]; resolve: () => void; reject: (error: Error) => void };

export class LogLocked extends Error {
  constructor(readonly path: string) {
    super(`another recap daemon is using ${path}`);
  }
}

export type Appended = { stored: StoredEvent[]; durable: Promise<void> };

export class EventStore extends EventEmitter<{ failed: [error: Error] }> {
  private queue: Waiting[] = [];
  private flushing = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: (() => void) | undefined;
  /** Synced batches written, for the group-commit figures. */
  syncs = 0;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    private nextSeq: number,
  ) {
    super();
  }

  static async open(path: string): Promise<EventStore> {
    const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED') throw new LogLocked(path);
      throw error;
    }
    return new EventStore(db, (await lastSeq(db)) + 1);
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Numbers the events now; `durable` settles when their batch is synced to disk. */
  append(events: RecapEvent[]): Appended {
    if (events.length === 0) return { stored: [], durable: Promise.resolve() };
    const stored = events.map((e) => ({ ...e, seq: this.nextSeq++, version: CURRENT_VERSION[e.type] }) as StoredEvent);
    const durable = new Promise<void>((resolve, reject) => this.queue.push({ events: stored, resolve, reject }));
    if (!this.flushing) this.startFlushing();
    return { stored, durable };
  }

  /** Settles when everything appended so far has been written or has failed. */
  flushed(): Promise<void> {
    return this.idle;
  }

  private startFlushing(): void {
    this.flushing = true;
    this.idle = new Promise((resolve) => (this.markIdle = resolve));
    // Let the commands that arrived in this turn of the event loop join the first batch.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      const ops = batch.flatMap((w) =>
        w.events.map((e) => ({ type: 'put' as const, key: encodeKey(e.seq), value: encodeEvent(e) })),
      );
      try {
        await this.db.batch(ops, { sync: true });
        this.syncs += 1;
        for (const w of batch) w.resolve();
      } catch (error) {
        // Later commands were decided on top of these events: they fail with them, and the
        // numbering restarts after the last event that is really in the log.
        const failed = [...batch, ...this.queue.splice(0)];
        this.nextSeq = (await lastSeq(this.db).catch(() => this.nextSeq - 1)) + 1;
        for (const w of failed) w.reject(error as Error);
        this.emit('failed', error as Error);
      }
    }
    this.flushing = false;
    this.markIdle?.();
  }

  /** Every stored event from `fromSeq` on, in order, decoded one at a time. */
  async *read(fromSeq = 1, toSeq = MAX_SEQ): AsyncGenerator<StoredEvent> {
    for await (const [key, value] of this.db.iterator({ gte: encodeKey(fromSeq), lte: encodeKey(toSeq) })) {
      yield decodeEvent(decodeKey(key), value);
    }
  }

  async close(): Promise<void> {
    await this.flushed();
    await this.db.close();
  }
}

async function lastSeq(db: Level<Uint8Array, Uint8Array>): Promise<number> {
  const keys = await db.keys({ lte: encodeKey(MAX_SEQ), reverse: true, limit: 1 }).all();
  return keys[0] ? decodeKey(keys[0]) : 0;
}
