// The keys of what the event log's LevelDB holds besides the events (codec.ts's 8-byte
// sequence numbers): projection snapshots and the audit index's chunks, each under a 0xff
// byte and a name, so they sort after every event key and no read of events meets them.
import { decodeKey, encodeKey } from './codec.js';

/**
 * Snapshot keys sort after every event key: a 0xff byte, a name, the sequence number
 * covered. A large snapshot is written in pieces of SNAPSHOT_PIECE bytes: the first under
 * that key, the next ones under it plus a 4-byte piece number (1, 2, ...). LevelDB copes
 * badly with values of many megabytes (each read and compaction handles the value whole),
 * and reading one makes it allocate, and keep, several copies of it.
 */
export const SNAPSHOT_PREFIX = Buffer.from([0xff, ...Buffer.from('snapshot')]);
export const SNAPSHOT_END = Buffer.from([0xff, 0xff]);
export const SNAPSHOT_KEY_BYTES = SNAPSHOT_PREFIX.length + 8;
export const SNAPSHOT_PIECE = 1024 * 1024;
/**
 * The audit index's chunks (auditChunks.ts): a 0xff byte, a name, the chunk's window number.
 * After every event key and before the snapshots, so neither reads nor exports see them.
 */
export const AUDIT_PREFIX = Buffer.from([0xff, ...Buffer.from('audit')]);
export const AUDIT_KEY_BYTES = AUDIT_PREFIX.length + 8;
export const auditKey = (window: number): Buffer => Buffer.concat([AUDIT_PREFIX, encodeKey(window)], AUDIT_KEY_BYTES);
export type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };
export const snapshotKey = (seq: number, piece = 0): Buffer => {
  const key = Buffer.concat([SNAPSHOT_PREFIX, encodeKey(seq)], SNAPSHOT_KEY_BYTES + (piece > 0 ? 4 : 0));
  if (piece > 0) key.writeUInt32BE(piece, SNAPSHOT_KEY_BYTES);
  return key;
};
export const snapshotSeq = (key: Uint8Array) => decodeKey(key.subarray(SNAPSHOT_PREFIX.length, SNAPSHOT_KEY_BYTES));
export const snapshotPiece = (key: Uint8Array) => (key.length > SNAPSHOT_KEY_BYTES ? Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(SNAPSHOT_KEY_BYTES) : 0);

/** The puts that write a snapshot, in pieces. */
export function snapshotPuts(seq: number, snapshot: Uint8Array): BatchOp[] {
  const puts: BatchOp[] = [];
  for (let piece = 0, at = 0; piece === 0 || at < snapshot.length; piece += 1, at += SNAPSHOT_PIECE) {
    puts.push({ type: 'put', key: snapshotKey(seq, piece), value: snapshot.subarray(at, at + SNAPSHOT_PIECE) });
  }
  return puts;
}
