// The words a term index holds (termIndex.ts), kept twice over for the two ways a query's word
// finds others: in code-unit order, for the words it begins (a prefix), and in the order they
// came, each one's length and letters beside it in typed arrays, for the words a typo or two
// away: a scan that rules most words out on those two numbers before it measures an edit
// distance.
import { copied } from './typedArrays.js';

export class TermWords {
  private readonly words: string[] = [];
  private lengths: Uint32Array<ArrayBuffer> = new Uint32Array(64);
  private letters: Uint32Array<ArrayBuffer> = new Uint32Array(64);
  /** The words in code-unit order; `added` holds those not yet merged in. */
  private sorted: string[] = [];
  private added: string[] = [];

  add(word: string): void {
    const i = this.words.length;
    if (i === this.lengths.length) {
      this.lengths = copied(this.lengths, new Uint32Array(i * 2));
      this.letters = copied(this.letters, new Uint32Array(i * 2));
    }
    this.words.push(word);
    this.lengths[i] = word.length;
    this.letters[i] = lettersOf(word);
    this.added.push(word);
  }

  /** Keeps only the words `keep` keeps. */
  retain(keep: (word: string) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.words.length; i += 1) {
      const word = this.words[i]!;
      if (!keep(word)) continue;
      this.words[kept] = word;
      this.lengths[kept] = this.lengths[i]!;
      this.letters[kept] = this.letters[i]!;
      kept += 1;
    }
    this.words.length = kept;
    this.sorted = this.inOrder().filter(keep);
  }

  /** The words that begin with `prefix`, in order. */
  *startingWith(prefix: string): Generator<string> {
    const sorted = this.inOrder();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i += 1) yield sorted[i]!;
  }

  /**
   * Each word within `most` edits (Levenshtein's) of one of `queries`' words, itself left out:
   * the query's place in `queries`, the word, and its distance. One pass over the words for
   * all of them.
   */
  *near(queries: readonly { word: string; most: number }[]): Generator<[query: number, word: string, distance: number]> {
    const n = queries.length;
    const lengths = Int32Array.from(queries, ({ word }) => word.length);
    const mosts = Int32Array.from(queries, ({ most }) => most);
    const letters = Uint32Array.from(queries, ({ word }) => lettersOf(word));
    for (let i = 0; i < this.words.length; i += 1) {
      const length = this.lengths[i]!;
      const has = this.letters[i]!;
      for (let q = 0; q < n; q += 1) {
        const most = mosts[q]!;
        // An edit changes the length by one at most, and the letters a word has by two at most.
        if (Math.abs(length - lengths[q]!) > most || bitCount(has ^ letters[q]!) > 2 * most) continue;
        const [other, word] = [this.words[i]!, queries[q]!.word];
        if (other === word) continue;
        const distance = editDistance(word, other, most);
        if (distance <= most) yield [q, other, distance];
      }
    }
  }

  private inOrder(): string[] {
    if (this.added.length > 0) {
      this.sorted = merged(this.sorted, this.added.sort());
      this.added = [];
    }
    return this.sorted;
  }
}

/** Two sorted lists as one (a word is never in both). */
function merged(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** The letters a word has, each as a bit (letters 32 apart share one: a bit too many only lets more words through to editDistance). */
function lettersOf(word: string): number {
  let letters = 0;
  for (let i = 0; i < word.length; i += 1) letters |= 1 << (word.charCodeAt(i) & 31);
  return letters;
}

function bitCount(bits: number): number {
  let n = bits - ((bits >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The two rows editDistance works in, grown to the longest word it has been given. */
let rows = [new Uint32Array(64), new Uint32Array(64)] as const;

/** Levenshtein's distance between `a` and `b` (insertions, deletions, substitutions), or more than `most` once it must be. */
export function editDistance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  if (b.length >= rows[0].length) rows = [new Uint32Array(b.length + 1), new Uint32Array(b.length + 1)];
  let [previous, current] = rows;
  for (let j = 0; j <= b.length; j += 1) previous[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j += 1) {
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1));
      current[j] = value;
      if (value < least) least = value;
    }
    if (least > most) return most + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}
