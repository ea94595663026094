// How events sit in LevelDB: an 8-byte big-endian sequence number as the key (so keys sort
// numerically) and a msgpack map {type, version, data} as the value. Plain maps only, no
// shared record structures, so any msgpack reader can decode a stored event.
import { Packr } from 'msgpackr';
import type { RecapEvent, StoredEvent } from '../events/events.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

export const KEY_BYTES = 8;
/** The largest sequence number; keys above it are reserved for recap's own metadata. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

export function encodeKey(seq: number): Buffer {
  const key = Buffer.allocUnsafe(KEY_BYTES);
  key.writeBigUInt64BE(BigInt(seq), 0);
  return key;
}

export function decodeKey(key: Uint8Array): number {
  return Number(Buffer.from(key.buffer, key.byteOffset, key.byteLength).readBigUInt64BE(0));
}

export function encodeEvent(event: StoredEvent): Buffer {
  return packr.pack({ type: event.type, version: event.version, data: event.data });
}

export class UndecodableEvent extends Error {
  constructor(readonly seq: number, reason: string) {
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
