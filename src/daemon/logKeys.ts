// The keys of what the event log's LevelDB holds besides the events (codec.ts's 8-byte
// sequence numbers): packs of events, the log's format, projection snapshots, their heads and the audit index's chunks, each under a 0xff
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
 * A snapshot's head: a small key of its own (a 0xff byte, another name, the sequence number;
 * its value the number of pieces), written and deleted in the same batch as the pieces. The
 * heads sit together, before the pieces, so listing the snapshots reads a few blocks instead
 * of every snapshot's megabytes (to read a key LevelDB reads its block whole, value and all,
 * through a memory map that stays in the daemon's RSS).
 */
export const HEAD_PREFIX = Buffer.from([0xff, ...Buffer.from('shead')]);
export const HEAD_END = Buffer.from([0xff, ...Buffer.from('shead'), 0xff]);
/**
 * The audit index's chunks (auditChunks.ts): a 0xff byte, a name, the chunk's window number.
 * After every event key and before the snapshots, so neither reads nor exports see them.
 */
export const AUDIT_PREFIX = Buffer.from([0xff, ...Buffer.from('audit')]);
export const AUDIT_KEY_BYTES = AUDIT_PREFIX.length + 8;
export const auditKey = (window: number): Buffer => Buffer.concat([AUDIT_PREFIX, encodeKey(window)], AUDIT_KEY_BYTES);
/**
 * Packs of events (eventPacks.ts): a 0xff byte, a name, the first and the last sequence
 * number the pack holds. Its key alone says which events it holds, so the pack of an event,
 * and where the packs end, are found from keys without reading a pack.
 */
export const PACK_PREFIX = Buffer.from([0xff, ...Buffer.from('pack')]);
export const PACK_END = Buffer.from([0xff, ...Buffer.from('pack'), 0xff]);
const PACK_KEY_BYTES = PACK_PREFIX.length + 16;
export const packKey = (first: number, last: number): Buffer => Buffer.concat([PACK_PREFIX, encodeKey(first), encodeKey(last)], PACK_KEY_BYTES);
/** The events a pack's key says it holds; undefined for a key that is not one recap writes. */
export function packRange(key: Uint8Array): { first: number; last: number } | undefined {
  if (key.length !== PACK_KEY_BYTES) return undefined;
  return { first: decodeKey(key.subarray(PACK_PREFIX.length)), last: decodeKey(key.subarray(PACK_PREFIX.length + 8)) };
}

/**
 * Where the packs are known to hold at most PACK_BYTES each, or a single event: the last
 * event of the packs checked (8 bytes). A recap from before that bound wrote larger packs;
 * the daemon checks the packs after this at its start and splits the larger ones
 * (packedLog.ts splitOps), then moves it to the packs' end.
 */
export const BOUNDED_KEY = Buffer.from([0xff, ...Buffer.from('bounded')]);
export const boundedPut = (seq: number): BatchOp => ({ type: 'put', key: BOUNDED_KEY, value: encodeKey(seq) });
/** The packs' checked end a BOUNDED_KEY value says; 0 (none checked) without one. */
export const boundedOf = (value: Uint8Array | undefined): number => (value?.length === 8 ? decodeKey(value) : 0);

/**
 * The log's format, a 4-byte number, written with its first pack: 1 (no key) when each
 * event is a key of its own, 2 once events may be in packs. A recap that finds a format
 * newer than it knows refuses to open the log rather than miss events.
 */
export const FORMAT_KEY = Buffer.from([0xff, ...Buffer.from('format')]);
export const LOG_FORMAT = 2;
export const formatPut = (): BatchOp => {
  const value = Buffer.alloc(4);
  value.writeUInt32BE(LOG_FORMAT);
  return { type: 'put', key: FORMAT_KEY, value };
};
/** The format a log's format key holds: 1 without one; undefined when it is not 4 bytes. */
export const formatOf = (value: Uint8Array | undefined): number | undefined =>
  value === undefined ? 1 : value.length === 4 ? Buffer.from(value.buffer, value.byteOffset, 4).readUInt32BE(0) : undefined;

export type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };
export const snapshotKey = (seq: number, piece = 0): Buffer => {
  const key = Buffer.concat([SNAPSHOT_PREFIX, encodeKey(seq)], SNAPSHOT_KEY_BYTES + (piece > 0 ? 4 : 0));
  if (piece > 0) key.writeUInt32BE(piece, SNAPSHOT_KEY_BYTES);
  return key;
};
export const snapshotSeq = (key: Uint8Array) => decodeKey(key.subarray(SNAPSHOT_PREFIX.length, SNAPSHOT_KEY_BYTES));
export const snapshotPiece = (key: Uint8Array) => (key.length > SNAPSHOT_KEY_BYTES ? Buffer.from(key.buffer, key.byteOffset, key.byteLength).readUInt32BE(SNAPSHOT_KEY_BYTES) : 0);

export const piecesOf = (snapshot: Uint8Array) => Math.max(1, Math.ceil(snapshot.length / SNAPSHOT_PIECE));

/** A snapshot in the log: its sequence number and how many pieces it has. */
export type SnapshotInLog = { seq: number; pieces: number };

const headKey = (seq: number): Buffer => Buffer.concat([HEAD_PREFIX, encodeKey(seq)]);

/** The put or delete of a snapshot's head. */
export function headOp({ seq, pieces }: SnapshotInLog, type: 'put' | 'del'): BatchOp {
  if (type === 'del') return { type, key: headKey(seq) };
  const value = Buffer.alloc(4);
  value.writeUInt32BE(pieces);
  return { type, key: headKey(seq), value };
}

/** A head read back; undefined when its key or value is not one recap writes. */
export function parseHead(key: Uint8Array, value: Uint8Array): SnapshotInLog | undefined {
  if (key.length !== HEAD_PREFIX.length + 8 || value.length !== 4) return undefined;
  const pieces = Buffer.from(value.buffer, value.byteOffset, 4).readUInt32BE(0);
  return pieces > 0 ? { seq: decodeKey(key.subarray(HEAD_PREFIX.length)), pieces } : undefined;
}

/** The snapshots whose pieces' keys are `pieceKeys`, oldest first. */
export function snapshotsOfPieces(pieceKeys: Uint8Array[]): SnapshotInLog[] {
  const found = new Map<number, SnapshotInLog>();
  for (const key of pieceKeys) {
    const seq = snapshotSeq(key);
    const known = found.get(seq) ?? { seq, pieces: 0 };
    known.pieces = Math.max(known.pieces, snapshotPiece(key) + 1);
    found.set(seq, known);
  }
  return [...found.values()];
}

/** The puts that write a snapshot: its pieces and its head. */
export function snapshotPuts(seq: number, snapshot: Uint8Array): BatchOp[] {
  const puts: BatchOp[] = [];
  for (let piece = 0, at = 0; piece === 0 || at < snapshot.length; piece += 1, at += SNAPSHOT_PIECE) {
    puts.push({ type: 'put', key: snapshotKey(seq, piece), value: snapshot.subarray(at, at + SNAPSHOT_PIECE) });
  }
  puts.push(headOp({ seq, pieces: puts.length }, 'put'));
  return puts;
}
