// The append-only event log on LevelDB. Sequence numbers are handed out at once, so the
// caller can fold its events into the projection without waiting; the write itself joins
// the next synced batch (group commit): every command that arrives while a batch is being
// synced is written, and acknowledged, together in the batch after it.
import { EventEmitter } from 'eventemitter3';
import { Level } from 'level';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../events/events.js';
import { upcast } from '../events/upcast.js';
import { decodeEvent, decodeKey, encodeEvent, encodeKey, MAX_SEQ } from './codec.js';

type Waiting = { events: StoredEvent[]; snapshot?: Uint8Array; resolve: () => void; reject: (error: Error) => void };

/** Snapshot keys sort after every event key: a 0xff byte, a name, the sequence number covered. */
const SNAPSHOT_PREFIX = Buffer.from([0xff, ...Buffer.from('snapshot')]);
const SNAPSHOTS_KEPT = 2;
type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };
export const snapshotKey = (seq: number) => Buffer.concat([SNAPSHOT_PREFIX, encodeKey(seq)]);
const snapshotSeq = (key: Uint8Array) => decodeKey(key.subarray(SNAPSHOT_PREFIX.length));

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
    /** Sequence numbers of the snapshots in the log, oldest first. */
    private readonly snapshotSeqs: number[],
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
    const snapshots = (await db.keys({ gte: SNAPSHOT_PREFIX, lt: Buffer.from([0xff, 0xff]) }).all()).map(snapshotSeq);
    return new EventStore(db, (await lastSeq(db)) + 1, snapshots);
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /**
   * Numbers the events now and hands them to `fold` at once (before anything else can be
   * appended); a snapshot `fold` returns is written in the same batch as the events.
   * `durable` settles when that batch is synced to disk.
   */
  append(events: RecapEvent[], fold?: (stored: StoredEvent[]) => Uint8Array | undefined): Appended {
    if (events.length === 0) return { stored: [], durable: Promise.resolve() };
    const stored = events.map((e) => ({ ...e, seq: this.nextSeq++, version: CURRENT_VERSION[e.type] }) as StoredEvent);
    const snapshot = fold?.(stored);
    const durable = new Promise<void>((resolve, reject) =>
      this.queue.push({ events: stored, ...(snapshot ? { snapshot } : {}), resolve, reject }),
    );
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
      const ops: BatchOp[] = batch.flatMap((w) => w.events.map((e): BatchOp => ({ type: 'put', key: encodeKey(e.seq), value: encodeEvent(e) })));
      const snapshots = batch.filter((w) => w.snapshot !== undefined);
      const newest = snapshots.at(-1);
      if (newest?.snapshot) {
        const seq = newest.events.at(-1)!.seq;
        ops.push({ type: 'put', key: snapshotKey(seq), value: newest.snapshot });
        this.snapshotSeqs.push(seq);
        for (const old of this.snapshotSeqs.splice(0, Math.max(0, this.snapshotSeqs.length - SNAPSHOTS_KEPT))) {
          ops.push({ type: 'del', key: snapshotKey(old) });
        }
      }
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

  /** Every stored event from `fromSeq` on, in order, decoded one at a time, in today's shape. */
  async *read(fromSeq = 1, toSeq = MAX_SEQ): AsyncGenerator<StoredEvent> {
    for await (const event of this.readStored(fromSeq, toSeq)) yield upcast(event);
  }

  /** The events exactly as stored, older schema versions included (export). */
  async *readStored(fromSeq = 1, toSeq = MAX_SEQ): AsyncGenerator<StoredEvent> {
    for await (const [key, value] of this.db.iterator({ gte: encodeKey(fromSeq), lte: encodeKey(toSeq) })) {
      yield decodeEvent(decodeKey(key), value);
    }
  }

  /** The snapshots in the log, newest first. */
  async *snapshots(): AsyncGenerator<{ seq: number; value: Uint8Array }> {
    for await (const [key, value] of this.db.iterator({ gte: SNAPSHOT_PREFIX, lt: Buffer.from([0xff, 0xff]), reverse: true })) {
      yield { seq: snapshotSeq(key), value };
    }
  }

  /** Writes events as they are, with their own sequence numbers (import into an empty log). */
  async writeStored(events: StoredEvent[]): Promise<void> {
    await this.db.batch(
      events.map((e) => ({ type: 'put' as const, key: encodeKey(e.seq), value: encodeEvent(e) })),
      { sync: true },
    );
    const last = events.at(-1);
    if (last && last.seq >= this.nextSeq) this.nextSeq = last.seq + 1;
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
