// How events sit in LevelDB: an 8-byte big-endian sequence number as the key (so keys sort
// numerically) and a msgpack map {type, version, data} as the value. Plain maps only, no
// shared record structures, so any msgpack reader can decode a stored event.
// msgpackr's pure-JS build: its native string extractor decodes recap's events slower
// (about 200k against 390k events/s, measured on the benchmark's log).
import { Packr } from 'msgpackr/pack';
import type { RecapEvent, StoredEvent } from '../events/events.js';

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
  return packr.pack({ type: event.type, version: event.version, data: event.data });
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
  let decoded: unknown;
  try {
    decoded = packr.unpack(value);
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
