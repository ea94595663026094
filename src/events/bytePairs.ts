// Exact token counts by byte-pair encoding, from a vocabulary kept in three typed arrays
// instead of a Map of 200,000 strings: a long-lived daemon pays about 5 MB for o200k_base
// where the encoder's usual form costs 20 MB of heap and 40-60 MB of RSS. The counts are
// tiktoken's (each piece of the split regex is one token if the vocabulary has it, else its
// bytes are merged lowest rank first); test/unit/bytePairs.test.ts holds them to
// gpt-tokenizer's countTokens on prose, code, JSON and mixed scripts.

/** A vocabulary: every token's bytes in one pool, found by an open-addressing hash of them. */
export class BytePairRanks {
  private constructor(
    private readonly pool: Uint8Array,
    /** Token i's bytes are pool[starts[i]..starts[i + 1]). */
    private readonly starts: Uint32Array,
    private readonly ranks: Uint32Array,
    /** Token index + 1 at each slot, 0 for an empty one. */
    private readonly slots: Int32Array,
  ) {}

  /**
   * Reads a vocabulary in tiktoken's file format (one `<base64 bytes> <rank>` a line) from
   * its bytes, decoding base64 by hand so that no string per token is ever made.
   */
  static fromTiktoken(given: Uint8Array): BytePairRanks {
    // A plain view: a Buffer's indexOf goes through Node's binding, twice a line (200,000 lines);
    // the indexed loop, unlike for-of's iterator, is fast before the optimizer gets to it.
    const file = new Uint8Array(given.buffer, given.byteOffset, given.byteLength);
    let lines = 0;
    for (let i = 0; i < file.length; i += 1) if (file[i] === NEWLINE) lines += 1;
    const count = lines + (file.length > 0 && file[file.length - 1] !== NEWLINE ? 1 : 0);
    const pool = new Uint8Array(Math.ceil((file.length * 3) / 4));
    const starts = new Uint32Array(count + 1);
    const ranks = new Uint32Array(count);
    let used = 0;
    let token = 0;
    for (let at = 0; at < file.length;) {
      let end = file.indexOf(NEWLINE, at);
      if (end === -1) end = file.length;
      const space = file.indexOf(SPACE, at);
      if (space === -1 || space > end) throw new Error(`line ${token + 1} of the vocabulary is not "<base64> <rank>"`);
      starts[token] = used;
      used = decodeBase64(file, at, space, pool, used, token);
      ranks[token] = decimal(file, space + 1, end, token);
      token += 1;
      at = end + 1;
    }
    starts[token] = used;
    const slots = new Int32Array(tableSize(token));
    const table = new BytePairRanks(pool.slice(0, used), starts.slice(0, token + 1), ranks.slice(0, token), slots);
    for (let i = 0; i < token; i += 1) table.insert(i);
    return table;
  }

  /**
   * The tables as one file's bytes, for `npm run build` to write next to the code
   * (scripts/build-vocab.mjs): reading them back (fromTables) takes a few milliseconds, where
   * reading the tiktoken file takes a hundred. `source`: the hex SHA-256 of the tiktoken file
   * they were read from, so tables left from another version of it are never used.
   */
  tables(source: string): Uint8Array {
    if (!/^[0-9a-f]{64}$/.test(source)) throw new Error('the source of the tables is named by its hex SHA-256');
    const words = [this.starts.length - 1, this.slots.length, this.pool.length];
    const out = new Uint8Array(TABLES_HEADER + 4 * (this.starts.length + this.ranks.length + this.slots.length) + this.pool.length);
    out.set(TABLES_MAGIC, 0);
    new Uint32Array(out.buffer, TABLES_MAGIC.length, words.length).set(words);
    out.set(new TextEncoder().encode(source), TABLES_MAGIC.length + 4 * words.length);
    let at = TABLES_HEADER;
    for (const table of [this.starts, this.ranks, this.slots]) {
      out.set(new Uint8Array(table.buffer, table.byteOffset, table.byteLength), at);
      at += table.byteLength;
    }
    out.set(this.pool, at);
    return out;
  }

  /**
   * The vocabulary in `bytes`, made by `tables` from the tiktoken file whose hex SHA-256 is
   * `source`, or undefined when they are not such tables: another file's, another format's or
   * machine's (the numbers are in its byte order), or cut short.
   */
  static fromTables(bytes: Uint8Array, source: string): BytePairRanks | undefined {
    if (bytes.length < TABLES_HEADER || TABLES_MAGIC.some((b, i) => bytes[i] !== b)) return undefined;
    // The typed arrays are views of the bytes, which must start at a multiple of 4; else a copy (a Buffer's slice is a view).
    const whole = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
    const header = new Uint32Array(whole.buffer, whole.byteOffset + TABLES_MAGIC.length, 3);
    const [tokens, slots, pool] = [header[0]!, header[1]!, header[2]!];
    const made = new TextDecoder().decode(whole.subarray(TABLES_MAGIC.length + 12, TABLES_HEADER));
    if (made !== source) return undefined;
    if (whole.length !== TABLES_HEADER + 4 * (2 * tokens + 1 + slots) + pool || slots <= tokens || (slots & (slots - 1)) !== 0) return undefined;
    let at = whole.byteOffset + TABLES_HEADER;
    const next = (words: number) => {
      const view = new Uint32Array(whole.buffer, at, words);
      at += 4 * words;
      return view;
    };
    const starts = next(tokens + 1);
    const ranks = next(tokens);
    const table = new Int32Array(whole.buffer, at, slots);
    at += 4 * slots;
    return new BytePairRanks(new Uint8Array(whole.buffer, at, pool), starts, ranks, table);
  }

  get size(): number {
    return this.ranks.length;
  }

  /** The memory the tables take. */
  get bytes(): number {
    return this.pool.byteLength + this.starts.byteLength + this.ranks.byteLength + this.slots.byteLength;
  }

  /** The rank of bytes[from..to), or -1 when no token has exactly those bytes. */
  rankOf(bytes: Uint8Array, from: number, to: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash(bytes, from, to) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return -1;
      if (this.holds(entry - 1, bytes, from, to)) return this.ranks[entry - 1]!;
    }
  }

  private holds(token: number, bytes: Uint8Array, from: number, to: number): boolean {
    const start = this.starts[token]!;
    if (this.starts[token + 1]! - start !== to - from) return false;
    for (let i = 0; i < to - from; i += 1) if (this.pool[start + i] !== bytes[from + i]) return false;
    return true;
  }

  private insert(token: number): void {
    const mask = this.slots.length - 1;
    let slot = hash(this.pool, this.starts[token]!, this.starts[token + 1]!) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = token + 1;
  }
}

const NEWLINE = 0x0a;
const SPACE = 0x20;

/** The start of a tables file, with its format's version (12 bytes: the numbers after it start at a multiple of 4). */
const TABLES_MAGIC = new TextEncoder().encode('recapBPE-v1\n');
/** The hex SHA-256 of the tiktoken file the tables were made from. */
const SOURCE_CHARS = 64;
/** The magic, three numbers (tokens, slots, pool bytes) and the source's hash: 88 bytes. */
const TABLES_HEADER = TABLES_MAGIC.length + 12 + SOURCE_CHARS;

/** A power of two at least 2.5 times the tokens: probes stay short. */
function tableSize(tokens: number): number {
  let size = 1;
  while (size < tokens * 2.5) size *= 2;
  return size;
}

/** FNV-1a over the bytes. */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i += 1) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const BASE64 = (() => {
  const values = new Int8Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i += 1) values[alphabet.charCodeAt(i)] = i;
  return values;
})();

/** Decodes file[from..to) as base64 into out at `used`; returns the new end. */
function decodeBase64(file: Uint8Array, from: number, to: number, out: Uint8Array, used: number, token: number): number {
  let bits = 0;
  let held = 0;
  for (let i = from; i < to; i += 1) {
    const byte = file[i]!;
    if (byte === 0x3d) break; // '=' padding
    const value = BASE64[byte]!;
    if (value < 0) throw new Error(`line ${token + 1} of the vocabulary has a character that is not base64`);
    bits = (bits << 6) | value;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[used++] = (bits >> held) & 0xff;
    }
  }
  return used;
}

function decimal(file: Uint8Array, from: number, to: number, token: number): number {
  let value = 0;
  for (let i = from; i < to; i += 1) {
    const digit = file[i]! - 0x30;
    if (digit < 0 || digit > 9) {
      if (file[i] === 0x0d && i === to - 1) break;
      throw new Error(`line ${token + 1} of the vocabulary has a rank that is not a number`);
    }
    value = value * 10 + digit;
  }
  return value;
}

/** How many merged pieces' counts are remembered: words repeat, and merging is the slow part. */
const MERGED_KEPT = 20_000;

/** Counts tokens of text split by `split` (a regex with the g flag) and encoded by `ranks`. */
export function bytePairCounter(ranks: BytePairRanks, split: RegExp): (text: string) => number {
  const pieces = new RegExp(split.source, split.flags.includes('g') ? split.flags : `${split.flags}g`);
  const encoder = new TextEncoder();
  let bytes = new Uint8Array(1024);
  const merged = new Map<string, number>();

  /** The piece's UTF-8 bytes in `bytes`, returning their length; ASCII without an encoder. */
  const encode = (piece: string): number => {
    if (bytes.length < piece.length * 3) bytes = new Uint8Array(piece.length * 3);
    for (let i = 0; i < piece.length; i += 1) {
      const code = piece.charCodeAt(i);
      if (code >= 0x80) return encoder.encodeInto(piece, bytes).written;
      bytes[i] = code;
    }
    return piece.length;
  };

  const countPiece = (piece: string): number => {
    const length = encode(piece);
    if (length === 1) return 1;
    if (ranks.rankOf(bytes, 0, length) >= 0) return 1;
    const known = merged.get(piece);
    if (known !== undefined) return known;
    const count = mergedCount(ranks, bytes, length);
    if (merged.size >= MERGED_KEPT) merged.clear();
    merged.set(piece, count);
    return count;
  };

  return (text) => {
    let total = 0;
    pieces.lastIndex = 0;
    for (let match = pieces.exec(text); match !== null; match = pieces.exec(text)) {
      if (match[0] === '') pieces.lastIndex += 1;
      else total += countPiece(match[0]);
    }
    return total;
  };
}

/**
 * How many tokens the bytes[0..length) merge into: parts start as single bytes, and the
 * adjacent pair whose joined bytes have the lowest rank is joined until no pair is a token.
 */
function mergedCount(ranks: BytePairRanks, bytes: Uint8Array, length: number): number {
  // starts[i] is where part i begins; pairRank[i] the rank of parts i and i + 1 joined.
  const starts: number[] = [];
  const pairRank: number[] = [];
  for (let i = 0; i <= length; i += 1) starts.push(i);
  for (let i = 0; i < length - 1; i += 1) pairRank.push(rankOrNone(ranks, bytes, i, i + 2));
  while (pairRank.length > 0) {
    let lowest = NONE;
    let at = -1;
    for (let i = 0; i < pairRank.length; i += 1) {
      if (pairRank[i]! < lowest) {
        lowest = pairRank[i]!;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    pairRank.splice(at, 1);
    if (at < pairRank.length) pairRank[at] = rankOrNone(ranks, bytes, starts[at]!, starts[at + 2]!);
    if (at > 0) pairRank[at - 1] = rankOrNone(ranks, bytes, starts[at - 1]!, starts[at + 1]!);
  }
  return starts.length - 1;
}

const NONE = Number.POSITIVE_INFINITY;

function rankOrNone(ranks: BytePairRanks, bytes: Uint8Array, from: number, to: number): number {
  const rank = ranks.rankOf(bytes, from, to);
  return rank < 0 ? NONE : rank;
}
