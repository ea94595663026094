// Reading the projection's snapshots back from their pieces (logKeys.ts names their keys),
// newest first: EventStore.snapshots.
import type { Level } from 'level';
import * as keys from './logKeys.js';

/** Pieces of a snapshot read from LevelDB at a time. */
const SNAPSHOT_READ_AHEAD = 4;

/** The snapshots in the log, newest first, each read whole when the caller gets to it; one with a piece missing is `value: undefined`. */
export async function* snapshotsNewestFirst(db: Level<Uint8Array, Uint8Array>): AsyncGenerator<{ seq: number; value: Uint8Array | undefined }> {
  // Backwards, a snapshot's pieces come last piece first and its first piece last.
  // The last piece read says how many come before it: they are asked for a few at a time
  // (fewer round trips to LevelDB's thread, without it holding many megabytes at once).
  const iterator = db.iterator({
    gte: keys.SNAPSHOT_PREFIX,
    lt: keys.SNAPSHOT_END,
    reverse: true,
    fillCache: false,
    highWaterMarkBytes: SNAPSHOT_READ_AHEAD * keys.SNAPSHOT_PIECE,
  });
  try {
    let seq: number | undefined; // the snapshot whose pieces are being gathered
    let pieces: Uint8Array[] = [];
    let next = 0; // the piece expected next
    let whole = true;
    const ahead: [Uint8Array, Uint8Array][] = [];
    for (;;) {
      if (ahead.length === 0) ahead.push(...(await iterator.nextv(seq === undefined ? 1 : Math.min(SNAPSHOT_READ_AHEAD, Math.max(1, next + 1)))).reverse());
      const entry = ahead.pop();
      if (seq !== undefined && (!entry || keys.snapshotSeq(entry[0]) !== seq)) {
        // Its first piece is missing.
        yield { seq, value: undefined };
        seq = undefined;
      }
      if (!entry) return;
      const [key, value] = entry;
      const piece = keys.snapshotPiece(key);
      if (seq === undefined) {
        seq = keys.snapshotSeq(key);
        pieces = [];
        whole = true;
      } else if (piece !== next) {
        whole = false;
      }
      next = piece - 1;
      pieces.push(value);
      if (piece > 0) continue;
      pieces.reverse();
      yield { seq, value: whole ? (pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)) : undefined };
      seq = undefined;
    }
  } finally {
    await iterator.close();
  }
}

/** The snapshot at `seq`, whole; undefined when it is not there or a piece is missing. */
export async function snapshotAt(db: Level<Uint8Array, Uint8Array>, seq: number): Promise<Uint8Array | undefined> {
  const entries = await db.iterator({ gte: keys.snapshotKey(seq), lt: keys.snapshotKey(seq + 1), fillCache: false }).all();
  if (entries.length === 0 || !entries.every(([key], i) => keys.snapshotPiece(key) === i)) return undefined;
  return entries.length === 1 ? entries[0]![1] : Buffer.concat(entries.map(([, value]) => value));
}
