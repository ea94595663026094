// A pack: the stored bytes of several events (codec.ts's msgpack values, unchanged) in one
// LevelDB value, each with its own sequence number. Reading a million events one LevelDB
// entry each cost more in the binding (an array and two Buffers per entry, made on the main
// thread) than decoding them; a pack is one entry for a range of them, its events handed out
// as places in its bytes (decoded there, never copied). Pure: no I/O; logKeys.ts names the packs' keys, eventPacker.ts
// writes them.
import { UndecodableEvent } from './codec.js';

/** The first byte of a pack: its layout, so a later one can be told apart. */
export const PACK_FORMAT = 1;
/** Format byte, then each event: its sequence number (8 bytes, big-endian) and its bytes' length (4 bytes), then its bytes. */
const HEADER_BYTES = 1;
const ENTRY_HEAD_BYTES = 12;
const TWO_32 = 2 ** 32;

/**
 * Events as stored, oldest first: event i is `bytes[i]` from `starts[i]` to `ends[i]` (the
 * events of a pack share its bytes). Parallel arrays, so a read of a million events makes no
 * object, and no view, per event: msgpackr decodes each in place (codec.ts's decodeEventAt).
 */
export type StoredRun = { seqs: number[]; bytes: Uint8Array[]; starts: number[]; ends: number[] };

/** A run of events that are each a value of their own. */
export const runOf = (seqs: number[], values: Uint8Array[]): StoredRun => ({ seqs, bytes: values, starts: values.map(() => 0), ends: values.map((v) => v.length) });

/** Event i's stored bytes (a view, when it is in a pack). */
export function valueAt(run: StoredRun, i: number): Uint8Array {
  const bytes = run.bytes[i]!;
  const start = run.starts[i]!;
  const end = run.ends[i]!;
  return start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
}

/** The events `from` to `to` (indexes, `to` excluded) of `run`. */
export const sliced = (run: StoredRun, from: number, to: number): StoredRun => ({
  seqs: run.seqs.slice(from, to),
  bytes: run.bytes.slice(from, to),
  starts: run.starts.slice(from, to),
  ends: run.ends.slice(from, to),
});

/**
 * The most bytes a pack holds (an event larger than this is a pack of its own). A reader after
 * one event, a search's hit or a rewrite, reads its whole pack: a megabyte pack of a thousand
 * summaries made each hit cost milliseconds.
 */
export const PACK_BYTES = 64 * 1024;

/** The bytes event i of `run` takes in a pack: its head, then its stored bytes. */
const entryBytes = (run: StoredRun, i: number): number => ENTRY_HEAD_BYTES + run.ends[i]! - run.starts[i]!;

/** `run` (increasing sequence numbers) cut, in order, into the runs of its packs: each of at most `maxBytes`, unless a single event is larger. */
export function packRuns(run: StoredRun, maxBytes = PACK_BYTES): StoredRun[] {
  const runs: StoredRun[] = [];
  let start = 0;
  let size = HEADER_BYTES;
  for (let i = 0; i < run.seqs.length; i += 1) {
    const bytes = entryBytes(run, i);
    if (i > start && size + bytes > maxBytes) {
      runs.push(sliced(run, start, i));
      [start, size] = [i, HEADER_BYTES];
    }
    size += bytes;
  }
  if (run.seqs.length > start) runs.push(sliced(run, start, run.seqs.length));
  return runs;
}

/** The bytes of a pack of `run`'s events (increasing sequence numbers). */
export function encodePack(run: StoredRun): Buffer {
  let size = HEADER_BYTES;
  run.seqs.forEach((_, i) => (size += entryBytes(run, i)));
  const pack = Buffer.allocUnsafe(size);
  pack[0] = PACK_FORMAT;
  let at = HEADER_BYTES;
  run.seqs.forEach((seq, i) => {
    const value = valueAt(run, i);
    pack.writeUInt32BE(Math.floor(seq / TWO_32), at);
    pack.writeUInt32BE(seq % TWO_32, at + 4);
    pack.writeUInt32BE(value.length, at + 8);
    pack.set(value, at + ENTRY_HEAD_BYTES);
    at += ENTRY_HEAD_BYTES + value.length;
  });
  return pack;
}

/**
 * The events of the pack whose key says it holds `first` to `last`, each a place in `pack`
 * (no copy). Bytes that are not such a pack (cut short,
 * numbers out of order or outside the key's range) are an UndecodableEvent naming the range.
 */
export function decodePack(pack: Uint8Array, first: number, last: number): StoredRun {
  const into: StoredRun = { seqs: [], bytes: [], starts: [], ends: [] };
  const damaged = (reason: string) => new UndecodableEvent(first, `it is in the pack of events #${first} to #${last}, which cannot be read: ${reason}`);
  if (pack[0] !== PACK_FORMAT) throw damaged(`its format is ${pack[0] ?? 'missing'}, not ${PACK_FORMAT}`);
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  let previous = first - 1;
  let at = HEADER_BYTES;
  while (at < pack.length) {
    if (at + ENTRY_HEAD_BYTES > pack.length) throw damaged(`it ends inside the entry after #${previous}`);
    const seq = view.getUint32(at) * TWO_32 + view.getUint32(at + 4);
    const length = view.getUint32(at + 8);
    const start = at + ENTRY_HEAD_BYTES;
    if (seq <= previous || seq > last) throw damaged(`the entry after #${previous} says #${seq}`);
    if (start + length > pack.length) throw damaged(`event #${seq}'s bytes run past its end`);
    into.seqs.push(seq);
    into.bytes.push(pack);
    into.starts.push(start);
    into.ends.push(start + length);
    previous = seq;
    at = start + length;
  }
  if (previous !== last) throw damaged(`its last event is #${previous}`);
  return into;
}

/**
 * `run` with the events of `changes` (by sequence number) in place of those of the same
 * number; one whose number `run` lacks goes in at its place in the order.
 */
export function replaced(run: StoredRun, changes: ReadonlyMap<number, Uint8Array>): StoredRun {
  const merged = new Map<number, Uint8Array>();
  run.seqs.forEach((seq, i) => merged.set(seq, valueAt(run, i)));
  for (const [seq, value] of changes) merged.set(seq, value);
  const seqs = [...merged.keys()].sort((a, b) => a - b);
  return runOf(
    seqs,
    seqs.map((seq) => merged.get(seq)!),
  );
}
