// Where a run of a string's bytes ends that JSON writes as they are: printable ASCII other
// than the quote and the backslash. The lines of `recap export` are mostly such runs (the
// prompts' and tool outputs' texts): found four bytes at a time, they are copied in bulk.

/** Whether JSON writes byte `c` as it is. */
export const isPlain = (c: number) => c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c;

const ONES = 0x01010101;
const HIGHS = 0x80808080;
const SPACES = 0x20202020;
const QUOTES = 0x22222222;
const BACKSLASHES = 0x5c5c5c5c;

/**
 * Whether the four bytes of `word` (in any order) hold one JSON does not write as it is.
 * A byte of 0x80 or more sets its high bit; for the rest, the classic tests of a byte below
 * 0x20 and of a zero byte (after an exclusive or with the quote or the backslash) are exact
 * about whether there is one, which is all that is asked.
 */
function unplainIn(word: number): boolean {
  const quotes = word ^ QUOTES;
  const backslashes = word ^ BACKSLASHES;
  return ((word | ((word - SPACES) & ~word) | ((quotes - ONES) & ~quotes) | ((backslashes - ONES) & ~backslashes)) & HIGHS) !== 0;
}

/** Reads the bytes of Uint8Arrays as 32-bit words, through a view of their ArrayBuffer made once per buffer. */
export class PlainRuns {
  /** The array last read, and its ArrayBuffer (a `buffer` read costs a call each time). */
  private last: Uint8Array | undefined;
  private buffer: ArrayBufferLike | undefined;
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);

  /** The first index from `at` to `end` of a byte of `src` JSON does not write as it is; `end` if none. */
  end(src: Uint8Array, at: number, end: number): number {
    const base = src.byteOffset;
    // Byte by byte up to a word's boundary (and the whole of a short run).
    while (at < end && ((base + at) & 3) !== 0) {
      if (!isPlain(src[at]!)) return at;
      at += 1;
    }
    if (end - at >= 8) {
      const words = this.wordsOf(src);
      const last = (base + end) >>> 2;
      let w = (base + at) >>> 2;
      while (w < last && !unplainIn(words[w]!)) w += 1;
      at = w * 4 - base;
    }
    while (at < end && isPlain(src[at]!)) at += 1;
    return at;
  }

  private wordsOf(src: Uint8Array): Uint32Array {
    if (src === this.last) return this.words;
    this.last = src;
    if (src.buffer !== this.buffer) {
      this.buffer = src.buffer;
      this.words = new Uint32Array(src.buffer, 0, src.buffer.byteLength >>> 2);
    }
    return this.words;
  }
}
