// The projection snapshots the log holds (EventStore writes each in the batch of the events
// it follows): listed from their heads once, then kept track of as they are written, the
// older ones thinned so that `recap replay --at` any moment starts at most about two
// windows of events before it.
import type { Level } from 'level';
import * as keys from './logKeys.js';
import type { BatchOp, SnapshotInLog } from './logKeys.js';

/** The newest snapshots, always kept: start-up falls back to the one before if the newest does not decode. */
const SNAPSHOTS_KEPT = 2;

export class KeptSnapshots {
  /** The snapshots in the log, oldest first; listed from their heads when first needed. */
  private kept: SnapshotInLog[] | undefined;

  /** `spacing`: older snapshots are thinned to the first of each window of this many sequence numbers. */
  constructor(
    private readonly db: Level<Uint8Array, Uint8Array>,
    private readonly spacing: number,
  ) {}

  /** The operations that write the snapshot after event `seq` and delete the older ones it thins out. */
  async writeOps(seq: number, bytes: Uint8Array): Promise<BatchOp[]> {
    const ops = keys.snapshotPuts(seq, bytes);
    const kept = (this.kept ??= await this.list());
    kept.push({ seq, pieces: keys.piecesOf(bytes) });
    for (const old of this.thin(kept)) {
      for (let piece = 0; piece < old.pieces; piece += 1) ops.push({ type: 'del', key: keys.snapshotKey(old.seq, piece) });
      ops.push(keys.headOp(old, 'del'));
    }
    return ops;
  }

  /** After a write that failed, which snapshots are in the log is no longer sure: they are listed again when next needed. */
  forget(): void {
    this.kept = undefined;
  }

  /** After every snapshot was replaced by the one after event `seq` (EventStore.purge). */
  onlyOne(seq: number, bytes: Uint8Array): void {
    this.kept = [{ seq, pieces: keys.piecesOf(bytes) }];
  }

  /** The snapshots' sequence numbers, oldest first. */
  async seqs(): Promise<number[]> {
    const listed = this.kept ?? (await this.list());
    this.kept ??= listed; // a write meanwhile listed them too, and added its own
    return this.kept.map((s) => s.seq);
  }

  /**
   * Takes out of `kept` (oldest first) the snapshots to delete: of those older than the
   * newest SNAPSHOTS_KEPT, all but the first in each window of `spacing` sequence numbers.
   * Which survive depends only on their numbers, so the spacing holds across restarts.
   */
  private thin(kept: SnapshotInLog[]): SnapshotInLog[] {
    const dropped: SnapshotInLog[] = [];
    let window = -1;
    const survivors = kept.filter((snapshot, i) => {
      const mine = Math.floor(snapshot.seq / this.spacing);
      if (i >= kept.length - SNAPSHOTS_KEPT || mine !== window) {
        window = mine;
        return true;
      }
      dropped.push(snapshot);
      return false;
    });
    kept.splice(0, kept.length, ...survivors);
    return dropped;
  }

  /**
   * The snapshots from their heads. A log written before heads existed has none: its
   * snapshots' keys are scanned once (every snapshot's blocks read) and their heads written.
   */
  private async list(): Promise<SnapshotInLog[]> {
    const heads = (await this.db.iterator({ gte: keys.HEAD_PREFIX, lt: keys.HEAD_END }).all()).map(([key, value]) => keys.parseHead(key, value));
    if (heads.length > 0 && heads.every((head) => head !== undefined)) return heads;
    const listed = keys.snapshotsOfPieces(await this.db.keys({ gte: keys.SNAPSHOT_PREFIX, lt: keys.SNAPSHOT_END }).all());
    // The heads missing, or one not readable, are written from what the pieces say.
    if (listed.length > 0) await this.db.batch(listed.map((snapshot) => keys.headOp(snapshot, 'put')));
    return listed;
  }
}
