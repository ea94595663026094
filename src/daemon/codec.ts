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
 * made strings of every text only for the collector. What this reader does not know (an
 * extension type, a key that is not a string) is decoded by decodeEvent instead.
 */
export function decodeEventWithoutTexts(seq: number, value: Uint8Array): StoredEvent {
  let decoded: unknown;
  try {
    decoded = new Skim(value).value();
  } catch {
    // NotSkimmed, or bytes cut short: msgpackr reads it, or says why it cannot.
    return withoutTexts(decodeEvent(seq, value));
  }
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

/** Something Skim leaves to msgpackr. */
class NotSkimmed extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A msgpack reader for what codec.ts's packer writes (maps with string keys, no extensions but undefined). */
class Skim {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  value(): unknown {
    const { bytes, view } = this;
    if (this.at >= bytes.length) throw new NotSkimmed();
    const c = bytes[this.at++]!;
    if (c < 0x80) return c;
    if (c < 0x90) return this.map(c & 0x0f);
    if (c < 0xa0) return this.array(c & 0x0f);
    if (c < 0xc0) return this.string(c & 0x1f);
    if (c >= 0xe0) return c - 0x100;
    const at = this.at;
    switch (c) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xca:
        this.at += 4;
        return view.getFloat32(at);
      case 0xcb:
        this.at += 8;
        return view.getFloat64(at);
      case 0xcc:
        this.at += 1;
        return view.getUint8(at);
      case 0xcd:
        this.at += 2;
        return view.getUint16(at);
      case 0xce:
        this.at += 4;
        return view.getUint32(at);
      case 0xcf:
        this.at += 8;
        return Number(view.getBigUint64(at));
      case 0xd0:
        this.at += 1;
        return view.getInt8(at);
      case 0xd1:
        this.at += 2;
        return view.getInt16(at);
      case 0xd2:
        this.at += 4;
        return view.getInt32(at);
      case 0xd3:
        this.at += 8;
        return Number(view.getBigInt64(at));
      case 0xd4:
        // msgpackr's undefined: fixext 1 of type 0, data 0.
        if (view.getUint16(at) !== 0) throw new NotSkimmed();
        this.at += 2;
        return undefined;
      case 0xd9:
        this.at += 1;
        return this.string(view.getUint8(at));
      case 0xda:
        this.at += 2;
        return this.string(view.getUint16(at));
      case 0xdb:
        this.at += 4;
        return this.string(view.getUint32(at));
      case 0xdc:
        this.at += 2;
        return this.array(view.getUint16(at));
      case 0xdd:
        this.at += 4;
        return this.array(view.getUint32(at));
      case 0xde:
        this.at += 2;
        return this.map(view.getUint16(at));
      case 0xdf:
        this.at += 4;
        return this.map(view.getUint32(at));
      default:
        throw new NotSkimmed();
    }
  }

  private string(length: number): string {
    const { bytes } = this;
    const start = this.at;
    const end = start + length;
    if (end > bytes.length) throw new NotSkimmed();
    this.at = end;
    // Keys and short values are mostly ASCII: no decoder call for them.
    if (length <= 24) {
      let ascii = '';
      for (let i = start; i < end; i += 1) {
        const b = bytes[i]!;
        if (b >= 0x80) return utf8.decode(bytes.subarray(start, end));
        ascii += String.fromCharCode(b);
      }
      return ascii;
    }
    return utf8.decode(bytes.subarray(start, end));
  }

  /** Steps over a string value without making it. */
  private skipString(): boolean {
    const { bytes, view } = this;
    const c = bytes[this.at];
    if (c === undefined) return false;
    let length: number;
    let header: number;
    if (c >= 0xa0 && c < 0xc0) [length, header] = [c & 0x1f, 1];
    else if (c === 0xd9) [length, header] = [view.getUint8(this.at + 1), 2];
    else if (c === 0xda) [length, header] = [view.getUint16(this.at + 1), 3];
    else if (c === 0xdb) [length, header] = [view.getUint32(this.at + 1), 5];
    else return false;
    if (this.at + header + length > bytes.length) throw new NotSkimmed();
    this.at += header + length;
    return true;
  }

  private array(length: number): unknown[] {
    const array = new Array<unknown>(length);
    for (let i = 0; i < length; i += 1) array[i] = this.value();
    return array;
  }

  private map(size: number): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    for (let i = 0; i < size; i += 1) {
      const key = this.value();
      if (typeof key !== 'string' || key === '__proto__') throw new NotSkimmed();
      if (key !== 'text') object[key] = this.value();
      else if (!this.skipString()) this.value();
    }
    return object;
  }
}
