// The append-only event log on LevelDB. Sequence numbers are handed out at once, so the
// caller can fold its events into the projection without waiting; the write itself joins
// the next synced batch (group commit): every command that arrives while a batch is being
// synced is written, and acknowledged, together in the batch after it.
import { mkdirSync } from 'node:fs';
import { EventEmitter } from 'eventemitter3';
import { Level } from 'level';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../events/events.js';
import { upcast } from '../events/upcast.js';
import { decodeEvent, decodeEventAt, decodeEventWithoutTexts, decodeKey, encodeEvent, encodeKey, MAX_SEQ } from './codec.js';
import { runOf, sliced, type StoredRun } from './eventPacks.js';
import { LogLocked, LogTooNew, LogUnreadable, StorageFailed } from './logErrors.js';
import * as keys from './logKeys.js';
import type { BatchOp } from './logKeys.js';
import { type LogSnapshot, oversizedPacks, packedEvents, packedRuns, packOps, packsEnd, READ_AHEAD_BYTES, rewriteOps, splitOps } from './packedLog.js';
import { snapshotAt, snapshotsNewestFirst } from './snapshotPieces.js';
import { KeptSnapshots } from './snapshotsKept.js';

export { snapshotKey } from './logKeys.js';
export { LogLocked, LogTooNew, LogUnreadable, StorageFailed } from './logErrors.js';

/** `rewrites`: events already in the log, written again in their place (a redaction's copies without their text); `upkeep`: work on the log's layout, after the rest. */
type Waiting = { events: StoredEvent[]; rewrites?: StoredEvent[]; snapshot?: { seq: number; bytes: Uint8Array }; upkeep?: Upkeep } & Settles;
/**
 * Work on how the events are kept, not what they are (packing, splitting an older recap's large packs): its operations, made
 * in the write queue so no write races them, go in a batch of their own, unsynced (lost in a crash, the log is as it was).
 */
type Upkeep = () => Promise<{ ops: BatchOp[]; written?: () => void }>;
type Settles = { resolve: () => void; reject: (error: Error) => void };
/** How readBatches reads: at most `limit` events, with or without their `text` fields. */
type ReadOptions = { limit?: number; withoutTexts?: boolean };

/**
 * Older snapshots are thinned to the first of each window of this many sequence numbers, so
 * `recap replay --at` any moment starts at most about two windows before it.
 */
export const DEFAULT_SNAPSHOT_SPACING = 20_000;
/** Events per read batch; LevelDB stops gathering one at READ_AHEAD_BYTES too. */
const READ_BATCH = 1000;

export type Appended = { stored: StoredEvent[]; durable: Promise<void> };

/**
 * `appended`: events numbered and folded, told as soon as they are (before they are on disk,
 * which `durable` tells), for those who follow the log live: the audit page and telemetry.
 */
export class EventStore extends EventEmitter<{ failed: [error: Error]; appended: [stored: StoredEvent[], durable: Promise<void>] }> {
  private queue: Waiting[] = [];
  private flushing = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: (() => void) | undefined;
  /** The snapshots in the log, thinned as they are written. */
  private readonly kept: KeptSnapshots;
  /** Synced batches written, for the group-commit figures. */
  syncs = 0;

  private constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    private nextSeq: number,
    snapshotSpacing: number,
    /** The last event in a pack (0: none); every event up to it is in one, or missing. */
    private packedThrough: number,
    /** The last event of the packs known to be within PACK_BYTES (logKeys.ts BOUNDED_KEY). */
    private boundedThrough: number,
  ) {
    super();
    this.kept = new KeptSnapshots(db, snapshotSpacing);
  }

  static async open(path: string, { snapshotSpacing = DEFAULT_SNAPSHOT_SPACING } = {}): Promise<EventStore> {
    // recap's folders are 0700 whoever makes them first (the daemon, or recap import):
    // LevelDB would make the folder with the umask's mode.
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new LogUnreadable(path, (error as Error).message);
    }
    const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    try {
      await db.open();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED') throw new LogLocked(path);
      throw new LogUnreadable(path, (error as { cause?: Error }).cause?.message ?? (error as Error).message);
    }
    const format = keys.formatOf(await db.get(keys.FORMAT_KEY).catch(() => undefined));
    if (format === undefined || format > keys.LOG_FORMAT) {
      await db.close();
      throw new LogTooNew(path, format);
    }
    return new EventStore(db, (await lastSeq(db)) + 1, snapshotSpacing, await packsEnd(db), keys.boundedOf(await db.get(keys.BOUNDED_KEY)));
  }

  /** The last event in a pack; 0 when none is. */
  get packedUpTo(): number {
    return this.packedThrough;
  }

  /**
   * Puts the events from `from` to `to` that have keys of their own in one pack (eventPacks.ts),
   * through the write queue (after every write before it), in a batch of its own; resolves to
   * the last event packed so far.
   */
  async pack(from: number, to: number): Promise<number> {
    await this.upkeep(async () => {
      const { ops, last } = await packOps(this.db, from, to);
      if (ops.length === 0) return { ops };
      // The log's format is written with its first pack; packs after bounded ones are bounded too.
      if (this.packedThrough === 0) ops.push(keys.formatPut());
      const bounded = this.boundedThrough >= this.packedThrough;
      if (bounded) ops.push(keys.boundedPut(last));
      const written = () => {
        this.packedThrough = Math.max(this.packedThrough, last);
        if (bounded) this.boundedThrough = last;
      };
      return { ops, written };
    });
    return this.packedThrough;
  }

  /**
   * Splits the packs larger than PACK_BYTES that a recap from before that bound wrote, among
   * those not yet checked, a pack at a time through the write queue, until `stopped`; then
   * says they are checked through the packs' end. Resolves to how many were split.
   */
  async boundPacks(stopped: () => boolean): Promise<number> {
    if (this.boundedThrough >= this.packedThrough) return 0;
    const snapshot = this.db.snapshot();
    let splits = 0;
    try {
      for await (const { key, last } of oversizedPacks(this.db, this.boundedThrough, snapshot)) {
        if (stopped()) return splits;
        await this.upkeep(async () => {
          const ops = await splitOps(this.db, key);
          if (ops.length > 0) splits += 1;
          return { ops: [...ops, keys.boundedPut(last)], written: () => (this.boundedThrough = last) };
        });
      }
    } finally {
      await snapshot.close();
    }
    // The packs written since the snapshot are this recap's, within the bound.
    if (!stopped()) await this.upkeep(async () => ({ ops: [keys.boundedPut(this.packedThrough)], written: () => (this.boundedThrough = this.packedThrough) }));
    return splits;
  }

  private upkeep(work: Upkeep): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ events: [], upkeep: work, resolve, reject });
      if (!this.flushing) this.startFlushing();
    });
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /**
   * Numbers the events now and hands them to `fold` at once (before anything else can be
   * appended); a snapshot `fold` returns is written in the same batch as the events.
   * `durable` settles when that batch is synced to disk.
   */
  append(events: RecapEvent[], fold?: (stored: StoredEvent[]) => Uint8Array | undefined, rewrites?: StoredEvent[]): Appended {
    if (events.length === 0) return { stored: [], durable: Promise.resolve() };
    const stored = events.map((e) => ({ ...e, seq: this.nextSeq++, version: CURRENT_VERSION[e.type] }) as StoredEvent);
    const snapshot = fold?.(stored);
    const durable = this.enqueue(stored, snapshot ? { seq: stored.at(-1)!.seq, bytes: snapshot } : undefined, rewrites);
    this.emit('appended', stored, durable);
    return { stored, durable };
  }

  /**
   * Writes a snapshot of the projection as it is after event `seq` (already appended), in
   * a batch of its own; the oldest snapshots are dropped as usual.
   */
  writeSnapshot(seq: number, snapshot: Uint8Array): Promise<void> {
    return this.enqueue([], { seq, bytes: snapshot });
  }

  private enqueue(events: StoredEvent[], snapshot: Waiting['snapshot'], rewrites?: StoredEvent[]): Promise<void> {
    const durable = new Promise<void>((resolve, reject) => this.queue.push({ events, ...(snapshot ? { snapshot } : {}), ...(rewrites ? { rewrites } : {}), resolve, reject }));
    if (!this.flushing) this.startFlushing();
    return durable;
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
      try {
        const rewritten = new Map(batch.flatMap((w) => w.rewrites ?? []).map((e) => [e.seq, encodeEvent(e)]));
        const ops: BatchOp[] = rewritten.size > 0 ? await rewriteOps(this.db, rewritten, this.packedThrough) : [];
        for (const w of batch) for (const e of w.events) ops.push({ type: 'put', key: encodeKey(e.seq), value: encodeEvent(e) });
        const snapshots = batch.filter((w) => w.snapshot !== undefined);
        const newest = snapshots.at(-1);
        if (newest?.snapshot) ops.push(...(await this.kept.writeOps(newest.snapshot.seq, newest.snapshot.bytes)));
        if (batch.some((w) => w.upkeep === undefined)) {
          await this.db.batch(ops, { sync: true });
          this.syncs += 1;
        }
        for (const w of batch) {
          const done = w.upkeep && (await w.upkeep());
          if (!done || done.ops.length === 0) continue;
          await this.db.batch(done.ops);
          done.written?.();
        }
        for (const w of batch) w.resolve();
      } catch (error) {
        // Later commands were decided on top of these events: they fail with them, and the
        // numbering restarts after the last event that is really in the log.
        const failed = [...batch, ...this.queue.splice(0)];
        this.kept.forget();
        this.nextSeq = (await lastSeq(this.db).catch(() => this.nextSeq - 1)) + 1;
        const failure = new StorageFailed(error as Error);
        for (const w of failed) w.reject(failure);
        this.emit('failed', failure);
      }
    }
    this.flushing = false;
    this.markIdle?.();
  }

  /** Every stored event from `fromSeq` on, in order, in today's shape. */
  async *read(fromSeq = 1, toSeq = MAX_SEQ): AsyncGenerator<StoredEvent> {
    for await (const batch of this.readBatches(fromSeq, toSeq)) yield* batch;
  }

  /** The events from `fromSeq` on in today's shape, a batch (an await) at a time, read as `options` say. */
  async *readBatches(fromSeq = 1, toSeq = MAX_SEQ, options: ReadOptions = {}): AsyncGenerator<StoredEvent[]> {
    for await (const { events } of this.readRuns(fromSeq, toSeq, options)) yield events;
  }

  /** readBatches' batches, each with the stored run it was decoded from: event i from run entry i (`recap verify` hands summaries' bytes to a worker). */
  async *readRuns(fromSeq = 1, toSeq = MAX_SEQ, { limit = Infinity, withoutTexts = false }: ReadOptions = {}): AsyncGenerator<{ events: StoredEvent[]; run: StoredRun }> {
    const decode = withoutTexts ? decodeEventWithoutTexts : decodeEventAt;
    for await (const run of this.storedBatches(fromSeq, toSeq, limit)) {
      const { seqs, bytes, starts, ends } = run;
      const events: StoredEvent[] = [];
      try {
        for (let i = 0; i < seqs.length; i += 1) events.push(upcast(decode(seqs[i]!, bytes[i]!, starts[i]!, ends[i]!)));
      } catch (error) {
        // The events before the one that cannot be read are handed out first.
        if (events.length > 0) yield { events, run };
        throw error;
      }
      yield { events, run };
    }
  }

  /**
   * The stored events from `fromSeq` on, undecoded (recap export writes from them), a batch at
   * a time, at most `limit`: the packed ones a pack at a time (each value a view into its
   * pack), then those with keys of their own; LevelDB reads the next batch (on libuv's pool)
   * meanwhile. All from one snapshot of the log, so packing meanwhile hides no event.
   */
  async *storedBatches(fromSeq = 1, toSeq = MAX_SEQ, limit = Infinity): AsyncGenerator<StoredRun> {
    const snapshot = this.db.snapshot();
    let left = limit;
    try {
      const packed = fromSeq <= this.packedThrough ? await packsEnd(this.db, { snapshot }) : 0;
      if (fromSeq <= packed) {
        for await (const run of packedRuns(this.db, fromSeq, toSeq, left, snapshot)) {
          if (run.seqs.length === 0) continue;
          const kept = run.seqs.length <= left ? run : sliced(run, 0, left);
          left -= kept.seqs.length;
          yield kept;
          if (left <= 0) return;
        }
      }
      const from = Math.max(fromSeq, packed + 1);
      if (from <= toSeq) yield* this.ownKeys(from, toSeq, left, snapshot);
    } finally {
      await snapshot.close();
    }
  }

  /** The events with keys of their own from..to, at most `limit`, a read batch at a time. */
  private async *ownKeys(fromSeq: number, toSeq: number, limit: number, snapshot: LogSnapshot): AsyncGenerator<StoredRun> {
    // At most `limit` events: nothing is read ahead that the caller will not use.
    const bounds = { gte: encodeKey(fromSeq), lte: encodeKey(toSeq), ...(Number.isFinite(limit) ? { limit } : {}) };
    const iterator = this.db.iterator({ ...bounds, highWaterMarkBytes: READ_AHEAD_BYTES, fillCache: false, snapshot });
    let next: Promise<[Uint8Array, Uint8Array][]> | undefined = iterator.nextv(READ_BATCH);
    try {
      for (let entries = await next; entries.length > 0; entries = await next) {
        next = iterator.nextv(READ_BATCH);
        yield runOf(
          entries.map(([key]) => decodeKey(key)),
          entries.map(([, value]) => value),
        );
      }
      next = undefined;
    } finally {
      // A read-ahead still in flight must settle before the iterator can close.
      if (next) await next.catch(() => undefined);
      await iterator.close();
    }
  }

  /** The events at these sequence numbers, in today's shape; a number without one is left out. */
  async get(seqs: readonly number[]): Promise<StoredEvent[]> {
    // One snapshot: an event packed, or a pack split, between two reads is still found.
    const snapshot = this.db.snapshot();
    try {
      const values = await this.db.getMany(seqs.map(encodeKey), { fillCache: false, snapshot });
      const missing = seqs.filter((seq, i) => !values[i] && seq <= this.packedThrough);
      const packed = missing.length > 0 ? await packedEvents(this.db, missing, snapshot) : undefined;
      return seqs.flatMap((seq, i) => {
        const value = values[i] ?? packed?.get(seq);
        return value ? [upcast(decodeEvent(seq, value))] : [];
      });
    } finally {
      await snapshot.close();
    }
  }

  /**
   * The snapshots in the log, newest first, each read whole when the caller gets to it
   * (start-up usually needs only the newest). A snapshot with a piece missing is handed out
   * as `value: undefined`.
   */
  snapshots(): AsyncGenerator<{ seq: number; value: Uint8Array | undefined }> {
    return snapshotsNewestFirst(this.db);
  }

  /** The snapshots' sequence numbers, oldest first: listed once (from their heads), then kept as they are written. */
  snapshotSeqs(): Promise<number[]> {
    return this.kept.seqs();
  }

  /** The snapshot at `seq`, whole; undefined when it is not there or a piece is missing. */
  snapshotAt(seq: number): Promise<Uint8Array | undefined> {
    return snapshotAt(this.db, seq);
  }

  /**
   * After a redaction rewrote events in place: every snapshot (each may hold the texts) is
   * replaced by `snapshot`, of the projection after it, and the whole key range compacted:
   * LevelDB writes its in-memory table to a table file, drops the old write-ahead log, and
   * merges every level keeping each key's newest value, so the old values leave its files
   * (a crash between the clear and the put leaves no snapshot: start-up replays the log). */
  async purge(seq: number, snapshot: Uint8Array): Promise<void> {
    await this.flushed();
    await this.db.clear({ gte: keys.HEAD_PREFIX, lt: keys.HEAD_END });
    await this.db.clear({ gte: keys.SNAPSHOT_PREFIX, lt: keys.SNAPSHOT_END });
    await this.db.batch(keys.snapshotPuts(seq, snapshot), { sync: true });
    this.kept.onlyOne(seq, snapshot);
    // `level`'s types leave compactRange out; its Node build (classic-level) has it.
    await (this.db as unknown as { compactRange(start: Uint8Array, end: Uint8Array): Promise<void> }).compactRange(encodeKey(0), keys.SNAPSHOT_END);
  }

  /** Writes the audit index's chunk of `window` (not synced: a chunk lost in a crash is folded again). */
  putAuditChunk(window: number, bytes: Uint8Array): Promise<void> {
    return this.db.put(keys.auditKey(window), bytes);
  }

  /** The audit index's chunks, by window number, oldest first (newest first with `reverse`), each read when the caller gets to it. */
  async *auditChunks({ reverse = false } = {}): AsyncGenerator<{ window: number; value: Uint8Array }> {
    const iterator = this.db.iterator({ gt: keys.AUDIT_PREFIX, lt: keys.auditKey(MAX_SEQ), reverse, fillCache: false });
    try {
      for (let entry = await iterator.next(); entry !== undefined; entry = await iterator.next()) {
        const [key, value] = entry;
        if (key.length === keys.AUDIT_KEY_BYTES) yield { window: decodeKey(key.subarray(keys.AUDIT_PREFIX.length)), value };
      }
    } finally {
      await iterator.close();
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

/** The last event's number: after the packs, or the last of them. */
async function lastSeq(db: Level<Uint8Array, Uint8Array>): Promise<number> {
  const keys = await db.keys({ lte: encodeKey(MAX_SEQ), reverse: true, limit: 1 }).all();
  return Math.max(keys[0] ? decodeKey(keys[0]) : 0, await packsEnd(db));
}
