// A full-text index made for many short documents of a few weighted fields: BM25+ scores,
// exact, prefix and fuzzy terms, and each term's postings (the documents it is in, with its
// count in each field) in one typed array. A word costs a few bytes per document it is in, not
// the maps and objects a general-purpose index makes of it. Pure of I/O: summaryIndex.ts says
// what a document's fields are.
import { TermWords } from './termWords.js';
import { copied } from './typedArrays.js';

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
  pairs: Uint32Array<ArrayBuffer> = new Uint32Array(2);
  n = 0;

  push(doc: number, counts: number): void {
    if (2 * this.n === this.pairs.length) this.pairs = copied(this.pairs, new Uint32Array(this.pairs.length * 2));
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
  /** The terms, for prefixes and typos. */
  private readonly words = new TermWords();
  /**
   * Each document's id and its fields' lengths in words, by its number here; `live` says which
   * are not removed. Numbers are not reused: a document added again (an amendment) takes a new
   * one, and these arrays keep about 25 bytes for each add.
   */
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

  /** How many documents the index holds. */
  get size(): number {
    return this.numbers.size;
  }

  /** How many terms the index holds postings for (those of removed documents only until the sweep). */
  get termCount(): number {
    return this.terms.size;
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
        this.words.add(term);
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
    const typos: { word: string; most: number; prefixed: Set<string> }[] = [];
    for (const word of this.options.tokenize(query)) {
      const term = this.options.processTerm(word);
      if (!term) continue;
      this.score(term, term, 1, found);
      const prefixed = new Set<string>();
      if (this.options.prefix(term)) {
        for (const longer of this.words.startingWith(term)) {
          if (longer === term) continue;
          prefixed.add(longer);
          this.score(term, longer, (PREFIX_WEIGHT * longer.length) / (longer.length + 0.3 * (longer.length - term.length)), found);
        }
      }
      const most = this.options.fuzzy(term);
      if (most > 0) typos.push({ word: term, most, prefixed });
    }
    // The words a typo away from any of the query's, in one pass over the index's words.
    for (const [at, near, distance] of this.words.near(typos)) {
      const { word, prefixed } = typos[at]!;
      if (!prefixed.has(near)) this.score(word, near, (FUZZY_WEIGHT * near.length) / (near.length + distance), found);
    }
    return [...found].map(([doc, { score, queries, terms }]) => ({ id: this.ids[doc]!, score: score * queries.length, terms }));
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

  /** Room for `size` documents. */
  private room(size: number): void {
    if (size <= this.ids.length) return;
    const capacity = Math.max(size, this.ids.length * 2);
    this.ids = copied(this.ids, new Float64Array(capacity));
    this.live = copied(this.live, new Uint8Array(capacity));
    this.lengths = copied(this.lengths, new Uint32Array(capacity * this.options.boosts.length));
  }

  /** Takes the removed documents out of every term's postings, and the terms left in none. */
  private sweep(): void {
    const live = (doc: number) => this.live[doc] === 1;
    for (const [term, postings] of this.terms) {
      postings.sweep(live);
      if (postings.n === 0) this.terms.delete(term);
    }
    this.words.retain((term) => this.terms.has(term));
    this.removed = 0;
  }
}
