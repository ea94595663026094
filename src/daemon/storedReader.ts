// A msgpack reader for the values recap stores (codec.ts's packer: maps with string keys,
// strings, numbers, booleans, null, arrays), giving exactly what msgpackr's unpack gives for
// them, with fewer strings made: msgpackr makes every key and short value anew (its key cache
// is for small values only: a value inside a pack never uses it), and a million events' keys
// and job, session and agent names were most of the garbage collector's work in a replay. Short
// ASCII strings here come from a table of those already made. Anything else (an extension, a
// key that is not a string, a short string that is not valid UTF-8, bytes cut short) is left
// to msgpackr: `readStored` says so by returning NOT_READ, and the caller asks msgpackr.

/** What readStored returns for a value it leaves to msgpackr. */
export const NOT_READ: unique symbol = Symbol('not read');

/** Strings up to this many bytes are looked up in the table; longer ones are decoded. */
const SHORT = 32;
const TABLE_BITS = 12;
const TABLE_MASK = (1 << TABLE_BITS) - 1;
/** The short ASCII strings made so far, by a hash of their bytes (a newer one replaces an older of the same slot). */
const table: (string | undefined)[] = new Array<string | undefined>(1 << TABLE_BITS).fill(undefined);

/** msgpackr decodes strings longer than 64 bytes with a default TextDecoder (a leading BOM dropped): the same here. */
const LONG = 64;
const longDecoder = new TextDecoder();
/** Shorter ones by hand, which for valid UTF-8 gives what a strict decoder that keeps a BOM gives; invalid ones are left to msgpackr. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Thrown inside the reader at anything it leaves to msgpackr. */
const UNREAD = new Error('not read here');

let src: Uint8Array = new Uint8Array(0);
let view: DataView = new DataView(src.buffer);
/** The same bytes as a Buffer: a string is made from them in place (toString), with no view of its own. */
let buffer: Buffer = Buffer.alloc(0);
let at = 0;
let stop = 0;

/** Whether the values of `text` keys are stepped over (codec.ts's decodeEventWithoutTexts). */
let skipTexts = false;

/**
 * The value stored in `bytes` from `start` to `end`, or NOT_READ when msgpackr must read it.
 * `withoutTexts`: with no `text` field at any depth, those strings stepped over, never made.
 */
export function readStored(bytes: Uint8Array, start: number, end: number, withoutTexts = false): unknown {
  skipTexts = withoutTexts;
  if (bytes !== src) {
    src = bytes;
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  at = start;
  stop = end;
  try {
    const value = read();
    return at === end ? value : NOT_READ;
  } catch (error) {
    // RangeError: a number's bytes past the buffer; TypeError: a short string not valid UTF-8.
    if (error === UNREAD || error instanceof RangeError || error instanceof TypeError) return NOT_READ;
    throw error;
  }
}

function read(): unknown {
  if (at >= stop) throw UNREAD;
  const c = src[at++]!;
  if (c < 0x80) return c;
  if (c < 0x90) return map(c & 0x0f);
  if (c < 0xa0) return array(c & 0x0f);
  if (c < 0xc0) return string(c & 0x1f);
  if (c >= 0xe0) return c - 0x100;
  const p = at;
  switch (c) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xcb:
      at += 8;
      return view.getFloat64(p);
    case 0xcc:
      at += 1;
      return view.getUint8(p);
    case 0xcd:
      at += 2;
      return view.getUint16(p);
    case 0xce:
      at += 4;
      return view.getUint32(p);
    case 0xd0:
      at += 1;
      return view.getInt8(p);
    case 0xd1:
      at += 2;
      return view.getInt16(p);
    case 0xd2:
      at += 4;
      return view.getInt32(p);
    case 0xd9:
      at += 1;
      return string(view.getUint8(p));
    case 0xda:
      at += 2;
      return string(view.getUint16(p));
    case 0xdb:
      at += 4;
      return string(view.getUint32(p));
    case 0xdc:
      at += 2;
      return array(view.getUint16(p));
    case 0xdd:
      at += 4;
      return array(view.getUint32(p));
    case 0xde:
      at += 2;
      return map(view.getUint16(p));
    case 0xdf:
      at += 4;
      return map(view.getUint32(p));
    default:
      // float 32 (msgpackr may round it), 64-bit integers, binary, extensions: msgpackr's.
      throw UNREAD;
  }
}

function map(size: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < size; i += 1) {
    const key = read();
    // msgpackr renames __proto__, and makes other keys strings: left to it.
    if (typeof key !== 'string' || key === '__proto__') throw UNREAD;
    if (skipTexts && key === 'text') skip();
    else object[key] = read();
  }
  return object;
}

/** Steps over a value: a string without making it, anything else read and dropped. */
function skip(): void {
  const c = src[at];
  let length: number;
  let header: number;
  if (c === undefined || at >= stop) throw UNREAD;
  if (c >= 0xa0 && c < 0xc0) [length, header] = [c & 0x1f, 1];
  else if (c === 0xd9) [length, header] = [view.getUint8(at + 1), 2];
  else if (c === 0xda) [length, header] = [view.getUint16(at + 1), 3];
  else if (c === 0xdb) [length, header] = [view.getUint32(at + 1), 5];
  else {
    read();
    return;
  }
  if (at + header + length > stop) throw UNREAD;
  at += header + length;
}

function array(length: number): unknown[] {
  // Each element needs a byte at least: a length past the end is not allocated.
  if (length > stop - at) throw UNREAD;
  const values = new Array<unknown>(length);
  for (let i = 0; i < length; i += 1) values[i] = read();
  return values;
}

function string(length: number): string {
  const start = at;
  const end = start + length;
  if (end > stop) throw UNREAD;
  at = end;
  if (length > LONG) return longString(start, end);
  if (length > SHORT) return ascii(start, end) ? buffer.toString('latin1', start, end) : strictDecoder.decode(src.subarray(start, end));
  if (length === 0) return '';
  // A hash of a few of its bytes (both ends and the middle, where names like session-3-12
  // differ), so a string already in the table is read once, by the comparison.
  const last = end - 1;
  const hash = Math.imul(length, 0x9e3779b1) ^ src[start]! ^ (src[last]! << 8) ^ (src[start + (length >> 1)]! << 16) ^ (src[last - (length >> 2)]! << 24);
  const slot = (hash ^ (hash >>> 16)) & TABLE_MASK;
  const known = table[slot];
  // The table holds ASCII only: bytes equal to its characters are ASCII too.
  if (known !== undefined && known.length === length && sameAscii(known, start)) return known;
  if (!ascii(start, end)) return strictDecoder.decode(src.subarray(start, end));
  const made = buffer.toString('latin1', start, end);
  table[slot] = made;
  return made;
}

/**
 * A long string as a default TextDecoder makes it (what is not UTF-8 becomes U+FFFD), from the
 * bytes in place: Node's decoder and Buffer's toString make it the same way, but the decoder's
 * view and checks cost as much as the decoding. One that starts with a BOM goes to the decoder, which drops it.
 */
function longString(start: number, end: number): string {
  if (src[start] === 0xef && src[start + 1] === 0xbb && src[start + 2] === 0xbf) return longDecoder.decode(src.subarray(start, end));
  return buffer.toString('utf8', start, end);
}

/** Whether the bytes from start to end are ASCII: then each is its character, and a latin1 toString makes the string. */
function ascii(start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (src[i]! >= 0x80) return false;
  return true;
}

function sameAscii(known: string, start: number): boolean {
  for (let i = 0; i < known.length; i += 1) if (known.charCodeAt(i) !== src[start + i]) return false;
  return true;
}
