// The bytes of JSON text as recap export's lines are made (storedLines.ts): a growing buffer
// written to without a string or a call into C++ for each small part.
import { isoTime } from './eventLine.js';

const QUOTE = 0x22;

/** Numbers below this are written with 32-bit integer arithmetic; SMALL_DIGITS_WIDTH is its number of zeros. */
const SMALL_DIGITS = 1e9;
const SMALL_DIGITS_WIDTH = 9;

/** A growing buffer the lines are written into. */
export class JsonBytes {
  bytes: Buffer;
  length = 0;

  /** `size`: the bytes expected, so that a page is not copied to a larger buffer as it grows. */
  constructor(size = 1 << 20) {
    this.bytes = Buffer.allocUnsafe(size);
  }

  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(bigger, 0, 0, this.length);
    this.bytes = bigger;
  }

  /** Text of ASCII characters only (numbers, names, JSON punctuation). */
  ascii(text: string): void {
    this.room(text.length);
    // Short texts by hand: Buffer.write is a call into C++ each time, a few per event.
    if (text.length > 32) {
      this.length += this.bytes.write(text, this.length, 'latin1');
      return;
    }
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < text.length; i += 1) bytes[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** Bytes known in advance (the parts of a line around its values). */
  constant(part: Uint8Array): void {
    this.room(part.length);
    // Byte by byte: a TypedArray's set costs more than the loop for the few bytes of a part.
    const bytes = this.bytes;
    let at = this.length;
    for (let i = 0; i < part.length; i += 1) bytes[at++] = part[i]!;
    this.length = at;
  }

  utf8(text: string): void {
    this.room(text.length * 3);
    this.length += this.bytes.write(text, this.length, 'utf8');
  }

  byte(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }

  /** A whole number from 0 to MAX_DIGITS, in decimal. */
  digits(n: number): void {
    this.room(16);
    // Above a 32-bit integer (times in milliseconds), as two parts of small-integer arithmetic.
    if (n >= SMALL_DIGITS) {
      const high = Math.floor(n / SMALL_DIGITS);
      this.smallDigits(high);
      this.paddedDigits(n - high * SMALL_DIGITS);
    } else this.smallDigits(n);
  }

  /** A whole number below SMALL_DIGITS. */
  private smallDigits(n: number): void {
    const bytes = this.bytes;
    let end = this.length;
    for (let rest = n; rest >= 10; rest = (rest / 10) | 0) end += 1;
    this.length = end + 1;
    for (let rest = n; ; rest = (rest / 10) | 0) {
      bytes[end--] = 0x30 + (rest % 10);
      if (rest < 10) return;
    }
  }

  /** A whole number below SMALL_DIGITS in exactly its number of digits, zeros first. */
  private paddedDigits(n: number): void {
    const bytes = this.bytes;
    const start = this.length;
    let rest = n;
    for (let at = start + SMALL_DIGITS_WIDTH - 1; at >= start; at -= 1) {
      bytes[at] = 0x30 + (rest % 10);
      rest = (rest / 10) | 0;
    }
    this.length = start + SMALL_DIGITS_WIDTH;
  }

  /** The bytes written so far. */
  take(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

const MINUTE = 60_000;

/**
 * A line's time as isoTime writes it, quoted, made in place: the minute's text is kept as
 * bytes and only the seconds and milliseconds are written (no strings per event).
 */
export class TimeBytes {
  private minute = Number.NaN;
  /** The quote and "YYYY-MM-DDTHH:MM:" of `minute`. */
  private readonly prefix = new Uint8Array(18);

  /** Writes the TIME_SLOT bytes of `time` at `at`; false, writing nothing, when its text is of another size. */
  write(bytes: Uint8Array, at: number, time: number): boolean {
    if (!Number.isSafeInteger(time)) return false;
    const minute = time - (((time % MINUTE) + MINUTE) % MINUTE);
    if (minute !== this.minute) {
      const iso = isoTime(minute);
      if (iso.length !== 24) return false;
      this.minute = minute;
      this.prefix[0] = QUOTE;
      for (let i = 0; i < 17; i += 1) this.prefix[i + 1] = iso.charCodeAt(i);
    }
    const prefix = this.prefix;
    for (let i = 0; i < 18; i += 1) bytes[at + i] = prefix[i]!;
    const ms = time - minute;
    const seconds = (ms / 1000) | 0;
    const millis = ms % 1000;
    bytes[at + 18] = 0x30 + ((seconds / 10) | 0);
    bytes[at + 19] = 0x30 + (seconds % 10);
    bytes[at + 20] = 0x2e;
    bytes[at + 21] = 0x30 + ((millis / 100) | 0);
    bytes[at + 22] = 0x30 + (((millis / 10) | 0) % 10);
    bytes[at + 23] = 0x30 + (millis % 10);
    bytes[at + 24] = 0x5a;
    bytes[at + 25] = QUOTE;
    return true;
  }
}
