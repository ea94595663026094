// The packs of events in the log's LevelDB (eventPacks.ts holds a pack's bytes): where the
// packs end, reading them in order, an event's pack, and the batch operations that pack a
// range of events or rewrite events inside packs. EventStore is the only caller: nothing
// else knows whether an event sits under a key of its own or in a pack.
import type { Level } from 'level';
import { decodeKey, encodeKey, MAX_SEQ } from './codec.js';
import { decodePack, encodePack, PACK_BYTES, packRuns, replaced, runOf, sliced, type StoredRun, valueAt } from './eventPacks.js';
import { type BatchOp, PACK_END, PACK_PREFIX, packKey, packRange } from './logKeys.js';

type Db = Level<Uint8Array, Uint8Array>;
export type LogSnapshot = ReturnType<Db['snapshot']>;
type From = { snapshot?: LogSnapshot };

/** Bytes of events read from LevelDB at a time, the next ones read meanwhile: of packs, in at most MOST_AHEAD of them (fewer when fewer events are wanted), and of events under keys of their own (EventStore). */
export const READ_AHEAD_BYTES = 1024 * 1024;
const MOST_AHEAD = 32;

/** The last sequence number in a pack; 0 when there is none. */
export async function packsEnd(db: Db, { snapshot }: From = {}): Promise<number> {
  const [key] = await db.keys({ gte: PACK_PREFIX, lt: PACK_END, reverse: true, limit: 1, ...(snapshot ? { snapshot } : {}) }).all();
  return key ? (packRange(key)?.last ?? 0) : 0;
}

/** The key of the pack that holds `seq`, if one does. */
async function packKeyOf(db: Db, seq: number, snapshot?: LogSnapshot): Promise<Uint8Array | undefined> {
  const [key] = await db.keys({ gte: PACK_PREFIX, lte: packKey(seq, MAX_SEQ), reverse: true, limit: 1, ...(snapshot ? { snapshot } : {}) }).all();
  const range = key && packRange(key);
  return range && range.last >= seq ? key : undefined;
}

/**
 * The packed events from `from` to `to`, in order, a pack at a time (the first is the one
 * holding `from`, cut to it), for a reader that wants `wanted` of them: the packs read ahead
 * are about as many as it still wants (a page of `recap export` reads no pack it will not use).
 */
export async function* packedRuns(db: Db, from: number, to: number, wanted: number, snapshot: LogSnapshot): AsyncGenerator<StoredRun> {
  const start = (await packKeyOf(db, from, snapshot)) ?? packKey(from, 0);
  const iterator = db.iterator({ gte: start, lt: PACK_END, snapshot, fillCache: false });
  let next: Promise<[Uint8Array, Uint8Array][]> | undefined = iterator.nextv(1);
  let left = wanted;
  try {
    for (let entries = await next; entries.length > 0; entries = await next) {
      // The next packs are read meanwhile: about as many as the events still wanted beyond
      // these (their keys say how many they hold, holes aside), none if these will do.
      // A log packed before PACK_BYTES has packs of a megabyte or more: the bytes read ahead are bounded, not the packs.
      let beyond = left;
      let span = 1;
      let bytes = 1;
      for (const [key, value] of entries) {
        const range = packRange(key);
        if (range) [beyond, span, bytes] = [beyond - (range.last - Math.max(range.first, from) + 1), range.last - range.first + 1, value.length];
      }
      next = beyond > 0 ? iterator.nextv(Math.max(1, Math.min(MOST_AHEAD, Math.floor(READ_AHEAD_BYTES / bytes), Math.ceil(beyond / span)))) : undefined;
      for (const [key, value] of entries) {
        const range = packRange(key);
        if (range === undefined || range.last < from) continue;
        if (range.first > to) return;
        const run = cut(decodePack(value, range.first, range.last), from, to);
        left -= run.seqs.length;
        yield run;
      }
      if (left <= 0) return;
      next ??= iterator.nextv(1);
    }
    next = undefined;
  } finally {
    // A read-ahead still in flight must settle before the iterator can close.
    if (next) await next.catch(() => undefined);
    await iterator.close();
  }
}

/** The events of `run` from `from` to `to`. */
function cut(run: StoredRun, from: number, to: number): StoredRun {
  const { seqs } = run;
  if (seqs[0]! >= from && seqs.at(-1)! <= to) return run;
  let start = 0;
  while (start < seqs.length && seqs[start]! < from) start += 1;
  let end = seqs.length;
  while (end > start && seqs[end - 1]! > to) end -= 1;
  return sliced(run, start, end);
}

/** The packed events at these sequence numbers, by number, as `snapshot` has them; a number no pack holds is left out. */
export async function packedEvents(db: Db, seqs: readonly number[], snapshot: LogSnapshot): Promise<Map<number, Uint8Array>> {
  const found = new Map<number, Uint8Array>();
  const wanted = new Set(seqs);
  /** The packs read so far: a number in one of them that was not found is in none (a hole). */
  const read: { first: number; last: number }[] = [];
  for (const seq of seqs) {
    if (found.has(seq) || read.some((r) => r.first <= seq && seq <= r.last)) continue;
    const key = await packKeyOf(db, seq, snapshot);
    const value = key && (await db.get(key, { fillCache: false, snapshot }));
    if (!key || !value) continue;
    const { first, last } = packRange(key)!;
    read.push({ first, last });
    const run = decodePack(value, first, last);
    run.seqs.forEach((s, i) => wanted.has(s) && found.set(s, valueAt(run, i)));
  }
  return found;
}

/**
 * The operations that pack the events with keys of their own from `from` to `to`, for one
 * atomic batch: the puts of their packs (as many as PACK_BYTES asks), then every event key's
 * delete; and the last event packed. No operations when there are no such events.
 */
export async function packOps(db: Db, from: number, to: number): Promise<{ ops: BatchOp[]; last: number }> {
  const entries = await db.iterator({ gte: encodeKey(from), lte: encodeKey(to), fillCache: false }).all();
  if (entries.length === 0) return { ops: [], last: 0 };
  const run = runOf(
    entries.map(([key]) => decodeKey(key)),
    entries.map(([, value]) => value),
  );
  const ops: BatchOp[] = packRuns(run).map((part) => ({ type: 'put', key: packKey(part.seqs[0]!, part.seqs.at(-1)!), value: encodePack(part) }));
  for (const [key] of entries) ops.push({ type: 'del', key });
  return { ops, last: run.seqs.at(-1)! };
}

/**
 * The operations that write `rewrites` (encoded events, by number) in their place: each
 * packed one by writing its pack again with it, the others under their own keys.
 */
export async function rewriteOps(db: Db, rewrites: ReadonlyMap<number, Uint8Array>, packedUpTo: number): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  const byPack = new Map<string, { key: Uint8Array; changes: Map<number, Uint8Array> }>();
  for (const [seq, value] of rewrites) {
    const key = seq <= packedUpTo ? await packKeyOf(db, seq) : undefined;
    if (!key) {
      ops.push({ type: 'put', key: encodeKey(seq), value });
      continue;
    }
    const id = Buffer.from(key).toString('hex');
    const pack = byPack.get(id) ?? { key, changes: new Map() };
    pack.changes.set(seq, value);
    byPack.set(id, pack);
  }
  for (const { key, changes } of byPack.values()) {
    const { first, last } = packRange(key)!;
    const value = await db.get(key, { fillCache: false });
    const run = replaced(value ? decodePack(value, first, last) : runOf([], []), changes);
    ops.push({ type: 'put', key, value: encodePack(run) });
  }
  return ops;
}

/**
 * The packs larger than PACK_BYTES (a recap from before that bound wrote packs of a thousand
 * events, a megabyte of summaries) among those holding events after `after`, as `snapshot`
 * has them: each one's key, the packs read a few at a time.
 */
export async function* oversizedPacks(db: Db, after: number, snapshot: LogSnapshot): AsyncGenerator<{ key: Uint8Array; last: number }> {
  const iterator = db.iterator({ gte: packKey(after + 1, 0), lt: PACK_END, snapshot, fillCache: false });
  try {
    for (let entries = await iterator.nextv(4); entries.length > 0; entries = await iterator.nextv(4)) {
      for (const [key, value] of entries) {
        const range = packRange(key);
        if (range && range.last > range.first && value.length > PACK_BYTES) yield { key, last: range.last };
      }
    }
  } finally {
    await iterator.close();
  }
}

/**
 * The operations that split the pack at `key` into packs of at most PACK_BYTES, for one
 * atomic batch: its delete, then their puts. None when the pack is gone, small enough, or
 * cannot be read: a damaged pack is left as it is, for `recap verify` to name.
 */
export async function splitOps(db: Db, key: Uint8Array): Promise<BatchOp[]> {
  const range = packRange(key);
  const value = range && (await db.get(key, { fillCache: false }));
  if (!range || !value || value.length <= PACK_BYTES) return [];
  let parts: StoredRun[];
  try {
    parts = packRuns(decodePack(value, range.first, range.last));
  } catch {
    return [];
  }
  if (parts.length < 2) return [];
  const ops: BatchOp[] = [{ type: 'del', key }];
  for (const part of parts) ops.push({ type: 'put', key: packKey(part.seqs[0]!, part.seqs.at(-1)!), value: encodePack(part) });
  return ops;
}
