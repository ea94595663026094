// How events sit in LevelDB: an 8-byte big-endian sequence number as the key (so keys sort
// numerically) and a msgpack map {type, version, data} as the value. Plain maps only, no
// shared record structures, so any msgpack reader can decode a stored event.
// msgpackr's pure-JS build: its native string extractor decodes recap's events slower
// (about 200k against 390k events/s, measured on the benchmark's log).
import { Packr } from 'msgpackr/pack';
import type { RecapEvent, StoredEvent } from '../events/events.js';
import { NOT_READ, readStored } from './storedReader.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

export const KEY_BYTES = 8;
/** The largest sequence number; keys above it are reserved for recap's own metadata. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

const TWO_32 = 2 ** 32;

export function encodeKey(seq: number): Buffer {
  const key = Buffer.allocUnsafe(KEY_BYTES);
  // Two 32-bit halves: the same bytes as writeBigUInt64BE, without a BigInt per key.
  key.writeUInt32BE(Math.floor(seq / TWO_32), 0);
  key.writeUInt32BE(seq % TWO_32, 4);
  return key;
}

export function decodeKey(key: Uint8Array): number {
  const high = ((key[0]! << 24) | (key[1]! << 16) | (key[2]! << 8) | key[3]!) >>> 0;
  const low = ((key[4]! << 24) | (key[5]! << 16) | (key[6]! << 8) | key[7]!) >>> 0;
  return high * TWO_32 + low;
}

export function encodeEvent(event: StoredEvent): Buffer {
  return packed(packr, { type: event.type, version: event.version, data: event.data });
}

/** Packed values larger than this leave msgpackr's shared buffer replaced by a new one of its first size. */
const LARGE_PACK = 64 * 1024;
const FIRST_PACK_BUFFER = 8192;
/** Room left over the expected size of a large value (a projection grows between snapshots). */
const EXPECTED_MARGIN = 1.25;

/**
 * `value` packed by `packer`. msgpackr packs into one buffer shared by all its packers, which
 * it grows to about four times the largest value packed, keeps, and replaces when used up by
 * another of the same size: after one projection snapshot of megabytes, every later event
 * was packed into a buffer of tens of megabytes, and the daemon's RSS grew by as much. After
 * a large value the shared buffer starts small again (the value keeps the large one only as
 * long as it is itself kept). `expectedBytes`: the size the value is likely to pack to (the
 * previous snapshot's).
 */
export function packed(packer: Packr, value: unknown, expectedBytes = 0): Buffer {
  // A value expected to be large goes into one buffer of about its size, not through every
  // doubling from 8 KB to four times its size.
  if (expectedBytes > LARGE_PACK) packer.useBuffer(Buffer.allocUnsafeSlow(Math.ceil(expectedBytes * EXPECTED_MARGIN)));
  const bytes = packer.pack(value);
  if (bytes.length > LARGE_PACK) packer.useBuffer(Buffer.allocUnsafeSlow(FIRST_PACK_BUFFER));
  return bytes;
}

export class UndecodableEvent extends Error {
  constructor(
    readonly seq: number,
    reason: string,
  ) {
    super(`event #${seq} cannot be decoded: ${reason}`);
  }
}

export function decodeEvent(seq: number, value: Uint8Array): StoredEvent {
  return decodeEventAt(seq, value, 0, value.length);
}

/** msgpackr's bounds for a value inside larger bytes: one object, reused (msgpackr reads them as it starts). */
const within = { start: 0, end: 0 };

/**
 * The event stored in `bytes` from `start` to `end` (a pack's events, eventPacks.ts): decoded
 * in place, with no view made of it. msgpackr keeps a DataView on the bytes it decodes, made
 * once for all of a pack's events, where a view per event would each get one of its own.
 */
export function decodeEventAt(seq: number, bytes: Uint8Array, start: number, end: number): StoredEvent {
  let decoded: unknown;
  try {
    if (end <= start) throw new Error('no bytes');
    decoded = readStored(bytes, start, end);
    if (decoded === NOT_READ) {
      within.start = start;
      within.end = end;
      decoded = packr.unpack(bytes, within);
    }
  } catch (error) {
    throw new UndecodableEvent(seq, (error as Error).message);
  }
  const record = decoded as { type?: unknown; version?: unknown; data?: unknown };
  if (typeof record?.type !== 'string' || typeof record.version !== 'number' || typeof record.data !== 'object' || record.data === null) {
    throw new UndecodableEvent(seq, 'not a {type, version, data} map');
  }
  return { seq, type: record.type, version: record.version, data: record.data } as StoredEvent;
}

export type { RecapEvent };

/**
 * A stored event as decodeEvent gives it, but with no `text` field at any depth: those values
 * are stepped over, never made into strings. For a fold that never reads them (the audit
 * index), over a log whose bytes are mostly prompt and tool texts: reading a million events
 * made strings of every text only for the collector. What storedReader.ts leaves to msgpackr
 * is decoded whole, its texts then taken out.
 */
export function decodeEventWithoutTexts(seq: number, bytes: Uint8Array, start = 0, end = bytes.length): StoredEvent {
  const decoded = end > start ? readStored(bytes, start, end, true) : NOT_READ;
  if (decoded === NOT_READ) return withoutTexts(decodeEventAt(seq, bytes, start, end));
  const record = decoded as { type?: unknown; version?: unknown; data?: unknown };
  if (typeof record?.type !== 'string' || typeof record.version !== 'number' || typeof record.data !== 'object' || record.data === null) {
    throw new UndecodableEvent(seq, 'not a {type, version, data} map');
  }
  return { seq, type: record.type, version: record.version, data: record.data } as StoredEvent;
}

/** The `text` fields taken out of a decoded value, at any depth. */
function withoutTexts<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutTexts) as T;
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (key !== 'text') copy[key] = withoutTexts(inner);
  return copy as T;
}
