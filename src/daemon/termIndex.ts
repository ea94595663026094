// A full-text index made for many short documents of a few weighted fields: BM25+ scores,
// exact, prefix and fuzzy terms, and each term's postings (the documents it is in, with its
// count in each field) in one typed array. A word costs a few bytes per document it is in, not
// the maps and objects a general-purpose index makes of it. Pure of I/O: summaryIndex.ts says
// what a document's fields are.

export type TermIndexOptions = {
  /** Each field's weight in a score, in the order add() is given the fields' texts (at most four). */
  boosts: readonly number[];
  /** The words of a text, as written. */
  tokenize: (text: string) => string[];
  /** A word as the index keeps it, or null to leave it out. */
  processTerm: (word: string) => string | null;
  /** Whether a query's term also finds the longer terms it begins. */
  prefix: (term: string) => boolean;
  /** How many edits away a query's term finds others (0: none). */
  fuzzy: (term: string) => number;
};

/** A document that matched: its score, and the terms of it that matched. */
export type TermHit = { id: number; score: number; terms: string[] };

/** BM25+'s saturation, length normalization and floor. */
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** What a prefix's or a typo's match weighs at its closest, against an exact one's 1. */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
/** A term's count in one field takes 8 bits of a posting's 32 (counts past 255 count as 255: BM25 has long saturated). */
const FIELD_BITS = 8;
const MAX_COUNT = (1 << FIELD_BITS) - 1;
const MAX_FIELDS = 32 / FIELD_BITS;
/** Documents removed before their postings are swept out: this many, and a tenth of those kept. */
const SWEEP_AFTER = 1000;

const countIn = (packed: number, field: number): number => (packed >>> (field * FIELD_BITS)) & MAX_COUNT;

/** The documents a term is in: pairs of a document's number and its counts in each field. */
class Postings {
  pairs = new Uint32Array(2);
  n = 0;

  push(doc: number, counts: number): void {
    if (2 * this.n === this.pairs.length) {
      const grown = new Uint32Array(this.pairs.length * 2);
      grown.set(this.pairs);
      this.pairs = grown;
    }
    this.pairs[2 * this.n] = doc;
    this.pairs[2 * this.n + 1] = counts;
    this.n += 1;
  }

  /** Keeps only the documents `live` keeps. */
  sweep(live: (doc: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.n; i += 1) {
      const doc = this.pairs[2 * i]!;
      if (!live(doc)) continue;
      this.pairs[2 * kept] = doc;
      this.pairs[2 * kept + 1] = this.pairs[2 * i + 1]!;
      kept += 1;
    }
    this.n = kept;
    if (kept * 4 < this.pairs.length) this.pairs = this.pairs.slice(0, Math.max(2, 2 * kept));
  }
}

/** What one query term found in each document: its score, the query's terms and the document's terms that matched. */
type Found = { score: number; queries: string[]; terms: string[] };

export class TermIndex {
  private readonly terms = new Map<string, Postings>();
  /** Every term in code-unit order, for prefixes; `added` holds the terms not yet merged in. */
  private sorted: string[] = [];
  private added: string[] = [];
  /** Each document's id and its fields' lengths in words, by its number here; `live` says which are not removed. */
  private ids: Float64Array<ArrayBuffer> = new Float64Array(16);
  private lengths: Uint32Array<ArrayBuffer>;
  private live: Uint8Array<ArrayBuffer> = new Uint8Array(16);
  private readonly numbers = new Map<number, number>();
  private next = 0;
  private removed = 0;
  /** The live documents' lengths in words, summed per field. */
  private readonly totals: number[];

  constructor(private readonly options: TermIndexOptions) {
    if (options.boosts.length > MAX_FIELDS) throw new Error(`a term index holds at most ${MAX_FIELDS} fields`);
    this.lengths = new Uint32Array(16 * options.boosts.length);
    this.totals = options.boosts.map(() => 0);
  }

  get size(): number {
    return this.numbers.size;
  }

  has(id: number): boolean {
    return this.numbers.has(id);
  }

  /** Adds document `id` with `texts`, one per field (an id already in is replaced). */
  add(id: number, texts: readonly string[]): void {
    this.remove(id);
    const doc = this.next++;
    this.room(doc + 1);
    this.ids[doc] = id;
    this.live[doc] = 1;
    this.numbers.set(id, doc);
    const fields = this.options.boosts.length;
    const counts = new Map<string, number>();
    texts.slice(0, fields).forEach((text, field) => {
      const words = this.options.tokenize(text);
      // A field's length: its distinct words as written.
      const length = new Set(words).size;
      this.lengths[doc * fields + field] = length;
      this.totals[field]! += length;
      for (const word of words) {
        const term = this.options.processTerm(word);
        if (!term) continue;
        const packed = counts.get(term) ?? 0;
        if (countIn(packed, field) < MAX_COUNT) counts.set(term, packed + 2 ** (field * FIELD_BITS));
      }
    });
    for (const [term, packed] of counts) {
      let postings = this.terms.get(term);
      if (!postings) {
        this.terms.set(term, (postings = new Postings()));
        this.added.push(term);
      }
      postings.push(doc, packed);
    }
  }

  remove(id: number): void {
    const doc = this.numbers.get(id);
    if (doc === undefined) return;
    this.numbers.delete(id);
    this.live[doc] = 0;
    const fields = this.options.boosts.length;
    for (let field = 0; field < fields; field += 1) this.totals[field]! -= this.lengths[doc * fields + field]!;
    this.removed += 1;
    if (this.removed >= SWEEP_AFTER && this.removed * 10 >= this.numbers.size) this.sweep();
  }

  /**
   * The documents that match any of `query`'s terms, unordered: each scored by BM25+ per field
   * times the field's boost, a prefix's or a typo's match weighed less the further it is from
   * the query's term, the sum over the terms times how many of the query's terms it matched.
   */
  search(query: string): TermHit[] {
    const found = new Map<number, Found>();
    for (const word of this.options.tokenize(query)) {
      const term = this.options.processTerm(word);
      if (term) this.searchTerm(term, found);
    }
    return [...found].map(([doc, { score, queries, terms }]) => ({ id: this.ids[doc]!, score: score * queries.length, terms }));
  }

  private searchTerm(query: string, found: Map<number, Found>): void {
    this.score(query, query, 1, found);
    const prefixed = new Set<string>();
    if (this.options.prefix(query)) {
      for (const term of this.startingWith(query)) {
        if (term === query) continue;
        prefixed.add(term);
        this.score(query, term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * (term.length - query.length)), found);
      }
    }
    const most = this.options.fuzzy(query);
    if (most === 0) return;
    for (const term of this.terms.keys()) {
      if (term === query || prefixed.has(term) || Math.abs(term.length - query.length) > most) continue;
      const distance = editDistance(query, term, most);
      if (distance <= most) this.score(query, term, (FUZZY_WEIGHT * term.length) / (term.length + distance), found);
    }
  }

  /** Adds to `found` what `term` (found by the query's term `query`) scores in each document it is in, times `weight`. */
  private score(query: string, term: string, weight: number, found: Map<number, Found>): void {
    const postings = this.terms.get(term);
    if (!postings) return;
    const { pairs, n } = postings;
    const { boosts } = this.options;
    const documents = this.numbers.size;
    // How many live documents hold the term in each field: its rarity there.
    const matching = boosts.map(() => 0);
    for (let i = 0; i < n; i += 1) {
      if (!this.live[pairs[2 * i]!]) continue;
      const packed = pairs[2 * i + 1]!;
      for (let field = 0; field < boosts.length; field += 1) if (countIn(packed, field) > 0) matching[field]! += 1;
    }
    for (let field = 0; field < boosts.length; field += 1) {
      if (matching[field] === 0) continue;
      const idf = Math.log(1 + (documents - matching[field]! + 0.5) / (matching[field]! + 0.5));
      const average = this.totals[field]! / documents;
      for (let i = 0; i < n; i += 1) {
        const doc = pairs[2 * i]!;
        const count = countIn(pairs[2 * i + 1]!, field);
        if (!this.live[doc] || count === 0) continue;
        const length = this.lengths[doc * boosts.length + field]!;
        const bm25 = idf * (D + (count * (K + 1)) / (count + K * (1 - B + (B * length) / average)));
        const add = weight * boosts[field]! * bm25;
        const match = found.get(doc);
        if (!match) {
          found.set(doc, { score: add, queries: [query], terms: [term] });
          continue;
        }
        match.score += add;
        if (!match.queries.includes(query)) match.queries.push(query);
        if (!match.terms.includes(term)) match.terms.push(term);
      }
    }
  }

  /** The terms that begin with `prefix`, in order. */
  private *startingWith(prefix: string): Generator<string> {
    const sorted = this.sortedTerms();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i += 1) yield sorted[i]!;
  }

  private sortedTerms(): string[] {
    if (this.added.length > 0) {
      this.sorted = merged(this.sorted, this.added.sort());
      this.added = [];
    }
    return this.sorted;
  }

  /** Room for `size` documents. */
  private room(size: number): void {
    if (size <= this.ids.length) return;
    const capacity = Math.max(size, this.ids.length * 2);
    this.ids = grown(this.ids, new Float64Array(capacity));
    this.live = grown(this.live, new Uint8Array(capacity));
    this.lengths = grown(this.lengths, new Uint32Array(capacity * this.options.boosts.length));
  }

  /** Takes the removed documents out of every term's postings, and the terms left in none. */
  private sweep(): void {
    const live = (doc: number) => this.live[doc] === 1;
    for (const [term, postings] of this.terms) {
      postings.sweep(live);
      if (postings.n === 0) this.terms.delete(term);
    }
    this.sorted = this.sortedTerms().filter((term) => this.terms.has(term));
    this.removed = 0;
  }
}

function grown<T extends { set(from: T): void }>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Two sorted lists as one (terms are never in both). */
function merged(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** The two rows editDistance works in, grown to the longest term it has been given. */
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
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < least) least = value;
    }
    if (least > most) return most + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}
