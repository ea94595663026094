// Stored events as the lines `recap export` writes, made from their stored bytes: the
// msgpack value (codec.ts) is written out as JSON as it is read, with no objects built and
// no JSON.stringify of them. The bytes are those JSON.stringify(eventLine(decodeEvent(...)))
// makes (audit.ts): an event holding anything this reader does not handle the same way (an
// extension, a 64-bit integer, a 32-bit float, a key that is not a plain string, text that
// is not well-formed UTF-8) is written by that slower path instead.
import { decodeEventAt } from './codec.js';
import { eventLine, isoTime } from './eventLine.js';
import { JsonBytes, TimeBytes } from './jsonBytes.js';
import { isPlain, PlainRuns } from './plainRuns.js';

/** Thrown inside the reader at anything it does not handle as JSON.stringify would: the event takes the slow path. */
const UNUSUAL = new Error('unusual');

const QUOTE = 0x22;
/** Whole numbers up to this are written digit by digit; JSON.stringify writes larger ones with an exponent. */
const MAX_DIGITS = Number.MAX_SAFE_INTEGER;
/** How a string's byte is written: as it is, escaped (ESCAPES), or by decoding the string (a byte of a multi-byte character). */
const PLAIN = 0;
const ESCAPE = 1;
const MULTI_BYTE = 2;
/** A run of plain bytes longer than this is copied by one call, not byte by byte. */
const BULK = 32;
const ESCAPED = new Uint8Array(256).map((_, c) => (c >= 0x80 ? MULTI_BYTE : isPlain(c) ? PLAIN : ESCAPE));
/** JSON.stringify's own escape of each ASCII byte that has one (\n, \", \u0001, ...). */
const ESCAPES = Array.from({ length: 0x80 }, (_, c) => (ESCAPED[c] === ESCAPE ? Buffer.from(JSON.stringify(String.fromCharCode(c)).slice(1, -1), 'latin1') : undefined));
/** "time", whose value at the top of `data` is the line's time. */
const TIME = Buffer.from('time');

/**
 * Reads msgpack values from `src`, writing each to `out` as JSON: `value` returns where the
 * value read ends. `top`: the value is an event's `data`, whose number under "time" is kept.
 */
class Transcoder {
  src: Uint8Array = new Uint8Array(0);
  /** Where the event's bytes end in `src` (a pack holds others after it). */
  private limit = 0;
  /** The number under "time" in the event's data, when it has one. */
  time: number | undefined;
  /** Where the keys of the maps being read are: start and size of each, for maps within maps, up to `keysEnd`. */
  private readonly keys: number[] = [];
  private keysEnd = 0;
  private readonly runs = new PlainRuns();

  constructor(readonly out: JsonBytes) {}

  reset(src: Uint8Array, limit: number): void {
    this.src = src;
    this.limit = limit;
    this.time = undefined;
    this.keysEnd = 0;
  }

  value(at: number, top = false): number {
    // Never past the event's end: the bytes after it are the next event's.
    if (at >= this.limit) throw UNUSUAL;
    const src = this.src;
    const token = src[at]!;
    if (token < 0x80) {
      this.out.digits(token);
      return at + 1;
    }
    if (token < 0x90) return this.map(token - 0x80, at + 1, top);
    if (token < 0xa0) return this.array(token - 0x90, at + 1);
    if (token < 0xc0) return this.string(at + 1, token - 0xa0);
    if (token >= 0xe0) return this.number(token - 0x100, at + 1);
    switch (token) {
      case 0xc0:
        this.out.ascii('null');
        return at + 1;
      case 0xc2:
        this.out.ascii('false');
        return at + 1;
      case 0xc3:
        this.out.ascii('true');
        return at + 1;
      case 0xcb:
        return this.number(f64(src, at + 1), at + 9);
      case 0xcc:
        return this.number(src[at + 1]!, at + 2);
      case 0xcd:
        return this.number(u16(src, at + 1), at + 3);
      case 0xce:
        return this.number(u32(src, at + 1), at + 5);
      case 0xd0:
        return this.number((u8(src, at + 1) << 24) >> 24, at + 2);
      case 0xd1:
        return this.number((u16(src, at + 1) << 16) >> 16, at + 3);
      case 0xd2:
        return this.number(u32(src, at + 1) | 0, at + 5);
      case 0xd9:
        return this.string(at + 2, src[at + 1]!);
      case 0xda:
        return this.string(at + 3, u16(src, at + 1));
      case 0xdb:
        return this.string(at + 5, u32(src, at + 1));
      case 0xdc:
        return this.array(u16(src, at + 1), at + 3);
      case 0xdd:
        return this.array(u32(src, at + 1), at + 5);
      case 0xde:
        return this.map(u16(src, at + 1), at + 3, top);
      case 0xdf:
        return this.map(u32(src, at + 1), at + 5, top);
      default:
        throw UNUSUAL;
    }
  }

  private number(n: number, end: number): number {
    if (n >= 0 && n <= MAX_DIGITS && Math.floor(n) === n) this.out.digits(n);
    // JSON.stringify's own form for the rest: NaN and the infinities as null, -0 as 0.
    else this.out.ascii(JSON.stringify(n));
    return end;
  }

  private array(length: number, at: number): number {
    this.out.byte(0x5b);
    for (let i = 0; i < length; i += 1) {
      if (i > 0) this.out.byte(0x2c);
      at = this.value(at);
    }
    this.out.byte(0x5d);
    return at;
  }

  private map(length: number, at: number, top: boolean): number {
    const src = this.src;
    const out = this.out;
    out.byte(0x7b);
    /** Where each key's bytes are, to refuse a key that comes twice (the decoder keeps the last). */
    const keys = this.keys;
    const first = this.keysEnd;
    for (let i = 0; i < length; i += 1) {
      const token = src[at]!;
      let start: number;
      let size: number;
      if (token >= 0xa0 && token < 0xc0) {
        start = at + 1;
        size = token - 0xa0;
      } else if (token === 0xd9) {
        start = at + 2;
        size = src[at + 1]!;
      } else throw UNUSUAL;
      // A key of digits would come first in the decoded object whatever its place; "__proto__" the decoder renames.
      if ((size > 0 && src[start]! >= 0x30 && src[start]! <= 0x39) || (size === 9 && src[start] === 0x5f && src[start + 1] === 0x5f)) throw UNUSUAL;
      for (let k = first; k < this.keysEnd; k += 2) if (keys[k + 1] === size && sameBytes(src, keys[k]!, src, start, size)) throw UNUSUAL;
      keys[this.keysEnd++] = start;
      keys[this.keysEnd++] = size;
      if (i > 0) out.byte(0x2c);
      at = this.string(start, size);
      out.byte(0x3a);
      const valueAt = at;
      at = this.value(at);
      if (top && size === 4 && sameBytes(src, start, TIME, 0, 4)) {
        this.time = timeValue(src, valueAt);
      }
    }
    this.keysEnd = first;
    out.byte(0x7d);
    return at;
  }

  /** The `size` bytes of UTF-8 at `start` as a JSON string. */
  private string(start: number, size: number): number {
    const src = this.src;
    const out = this.out;
    const end = start + size;
    if (end > this.limit) throw UNUSUAL;
    // Copied as they are read, ASCII escaped as JSON.stringify escapes it, in one pass.
    out.room(size + 2);
    let bytes = out.bytes;
    const mark = out.length;
    let o = mark;
    bytes[o++] = QUOTE;
    let i = start;
    while (i < end) {
      // The plain bytes up to the next that is not, found a word at a time, copied in bulk when they are many.
      if (end - i > BULK) {
        const run = this.runs.end(src, i, end);
        if (run - i > BULK) {
          // A view made as a Uint8Array: a Buffer's subarray costs twice as much.
          bytes.set(new Uint8Array(src.buffer, src.byteOffset + i, run - i), o);
          o += run - i;
          i = run;
        }
      }
      // A short run (a key, a name), or the few bytes before the next escape: copied as they are checked.
      for (; i < end; i += 1) {
        const c = src[i]!;
        if (ESCAPED[c] !== PLAIN) break;
        bytes[o++] = c;
      }
      if (i === end) break;
      const c = src[i]!;
      if (ESCAPED[c] === MULTI_BYTE) break;
      const escape = ESCAPES[c]!;
      if (o + escape.length + (end - i) + 1 > bytes.length) {
        out.length = o;
        out.room(escape.length + (end - i) + 1);
        bytes = out.bytes;
      }
      for (let e = 0; e < escape.length; e += 1) bytes[o++] = escape[e]!;
      i += 1;
    }
    if (i === end) {
      bytes[o++] = QUOTE;
      out.length = o;
      return end;
    }
    // Characters of more than a byte: decoded, so that bytes that are not UTF-8 are found.
    const text = Buffer.from(src.buffer, src.byteOffset + start, size).toString('utf8');
    // A replacement character may stand for bytes that are not UTF-8, which the decoder reads its own way.
    if (text.includes('\uFFFD')) throw UNUSUAL;
    out.length = mark;
    out.utf8(JSON.stringify(text));
    return end;
  }
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, size: number): boolean {
  for (let i = 0; i < size; i += 1) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}

/** The number a msgpack value at `at` holds, if it is one. */
function timeValue(src: Uint8Array, at: number): number | undefined {
  const token = src[at]!;
  if (token < 0x80) return token;
  if (token >= 0xe0) return token - 0x100;
  switch (token) {
    case 0xcb:
      return f64(src, at + 1);
    case 0xcc:
      return src[at + 1];
    case 0xcd:
      return u16(src, at + 1);
    case 0xce:
      return u32(src, at + 1);
    case 0xd0:
      return (u8(src, at + 1) << 24) >> 24;
    case 0xd1:
      return (u16(src, at + 1) << 16) >> 16;
    case 0xd2:
      return u32(src, at + 1) | 0;
    default:
      return undefined;
  }
}

/**
 * Writes events as a JSON array, each element the line of one stored event, from the bytes
 * LevelDB holds: `add` them in order, then `finish`. With `lines`, as JSON Lines instead:
 * each line ended by a newline, no brackets, no commas.
 */
export class StoredLines {
  readonly out: JsonBytes;
  private readonly transcoder: Transcoder;
  private readonly times = new TimeBytes();
  count = 0;
  /** Of them, how many took the slow path. */
  slow = 0;

  /** `expected`: about how many events will be added. */
  constructor(
    readonly lines = false,
    expected = 0,
  ) {
    this.out = new JsonBytes(Math.min(Math.max(expected * LINE_BYTES, 1 << 20), 16 << 20));
    this.transcoder = new Transcoder(this.out);
    if (!lines) this.out.byte(0x5b);
  }

  /** Event `seq`, stored as `bytes` from `start` to `end` (a place in its pack). */
  add(seq: number, bytes: Uint8Array, start = 0, end = bytes.length): void {
    if (this.count > 0 && !this.lines) this.out.byte(0x2c);
    this.count += 1;
    const mark = this.out.length;
    try {
      this.fast(seq, bytes, start, end);
    } catch (error) {
      if (error !== UNUSUAL && !(error instanceof RangeError)) throw error;
      this.out.length = mark;
      this.slow += 1;
      // The slow path decides, as before: the same line, or the same UndecodableEvent.
      this.out.utf8(JSON.stringify(eventLine(decodeEventAt(seq, bytes, start, end))));
    }
    if (this.lines) this.out.byte(0x0a);
  }

  /** Starts again in the same buffer (`recap export`, page after page): the bytes finish() gave are overwritten. */
  clear(): void {
    this.out.length = 0;
    this.count = 0;
    if (!this.lines) this.out.byte(0x5b);
  }

  /** The bytes: `[line,line,...]`, or with `lines` `line\nline\n...`. */
  finish(): Buffer {
    if (!this.lines) this.out.byte(0x5d);
    return this.out.take();
  }

  /** The stored map {type, version, data}, exactly those keys in that order, as the codec writes it. */
  private fast(seq: number, value: Uint8Array, start: number, end: number): void {
    const t = this.transcoder;
    // A map of three: msgpackr writes a map's size in 16 bits whatever it is.
    let at: number;
    if (value[start] === 0x83) at = start + 1;
    else if (value[start] === 0xde && value[start + 1] === 0 && value[start + 2] === 3) at = start + 3;
    else throw UNUSUAL;
    // "type": a string of plain characters.
    if (!hasKey(value, at, TYPE_KEY)) throw UNUSUAL;
    at += TYPE_KEY.length;
    const typeToken = value[at]!;
    if (typeToken < 0xa1 || typeToken >= 0xc0) throw UNUSUAL;
    const typeStart = at + 1;
    const typeEnd = typeStart + typeToken - 0xa0;
    if (typeEnd > end) throw UNUSUAL;
    for (let i = typeStart; i < typeEnd; i += 1) if (!isNameByte(value[i]!)) throw UNUSUAL;
    at = typeEnd;
    if (!hasKey(value, at, VERSION_KEY)) throw UNUSUAL;
    at += VERSION_KEY.length;
    const version = value[at]!;
    // A positive fixint: the versions are small.
    if (version >= 0x80) throw UNUSUAL;
    at += 1;
    if (!hasKey(value, at, DATA_KEY)) throw UNUSUAL;
    at += DATA_KEY.length;
    const dataToken = value[at]!;
    if (!((dataToken >= 0x80 && dataToken < 0x90) || dataToken === 0xde || dataToken === 0xdf)) throw UNUSUAL;
    const out = this.out;
    out.constant(SEQ_PART);
    out.digits(seq);
    out.constant(TYPE_PART);
    out.room(typeEnd - typeStart);
    for (let i = typeStart; i < typeEnd; i += 1) out.bytes[out.length++] = value[i]!;
    out.constant(VERSION_PART);
    out.digits(version);
    out.constant(TIME_PART);
    // The line's time comes before the data it is read from: the data is written after room
    // for the usual time ("YYYY-MM-DDTHH:MM:SS.mmmZ", quoted), moved when the time is another size.
    const slot = out.length;
    out.room(TIME_SLOT);
    out.length += TIME_SLOT;
    out.constant(DATA_PART);
    t.reset(value, end);
    if (t.value(at, true) !== end) throw UNUSUAL;
    if (t.time !== undefined && this.times.write(out.bytes, slot, t.time)) {
      out.byte(0x7d);
      return;
    }
    const time = t.time === undefined ? 'null' : `"${isoTime(t.time)}"`;
    if (time.length !== TIME_SLOT) {
      out.room(time.length - TIME_SLOT);
      out.bytes.copyWithin(slot + time.length, slot + TIME_SLOT, out.length);
      out.length += time.length - TIME_SLOT;
    }
    for (let i = 0; i < time.length; i += 1) out.bytes[slot + i] = time.charCodeAt(i);
    out.byte(0x7d);
  }
}

/** The parts of a line around its values: `{"seq":1,"type":"T","version":1,"time":"...","data":{...}}`. */
const SEQ_PART = Buffer.from('{"seq":');
const TYPE_PART = Buffer.from(',"type":"');
const VERSION_PART = Buffer.from('","version":');
const TIME_PART = Buffer.from(',"time":');
const DATA_PART = Buffer.from(',"data":');
/** Room made for each event expected in a page: a line of a prompt or a tool's output is most of a kilobyte. */
const LINE_BYTES = 1024;
/** The room kept for a line's time: an ISO time of a four-digit year, in quotes. */
const TIME_SLOT = 26;

/** A fixstr key as msgpack writes it: its length byte, then its characters. */
const key = (name: string) => Buffer.from([0xa0 + name.length, ...Buffer.from(name)]);
const TYPE_KEY = key('type');
const VERSION_KEY = key('version');
const DATA_KEY = key('data');

const u8 = (src: Uint8Array, at: number) => src[at]!;
const u16 = (src: Uint8Array, at: number) => (src[at]! << 8) | src[at + 1]!;
const u32 = (src: Uint8Array, at: number) => ((src[at]! << 24) | (src[at + 1]! << 16) | (src[at + 2]! << 8) | src[at + 3]!) >>> 0;
const FLOAT = new Float64Array(1);
const FLOAT_BYTES = new Uint8Array(FLOAT.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** A big-endian float64, without a DataView per event. */
function f64(src: Uint8Array, at: number): number {
  for (let i = 0; i < 8; i += 1) FLOAT_BYTES[LITTLE_ENDIAN ? 7 - i : i] = src[at + i]!;
  return FLOAT[0]!;
}
const hasKey = (value: Uint8Array, at: number, name: Uint8Array) => sameBytes(value, at, name, 0, name.length);

/** A character of an event type's name: letters only, nothing JSON would escape. */
const isNameByte = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
