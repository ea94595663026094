// The term index search runs on: the scores of MiniSearch (the index recap used before, kept
// as a test dependency to check against) on the same documents and queries; documents removed
// and replaced; terms added after a search still found by their prefixes; counts that saturate
// in their own field.
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { TermIndex, type TermIndexOptions } from '../../src/daemon/termIndex.js';
import { editDistance } from '../../src/daemon/termWords.js';

const FIELDS = ['gist', 'headings', 'files', 'body'] as const;
const BOOSTS = [3, 2, 1.5, 1];
const words = (text: string) => text.match(/[\p{L}\p{N}_]+/gu) ?? [];
const lower = (word: string) => (word === 'the' ? null : word.toLowerCase());
const prefix = (term: string) => term.length >= 4;
const fuzzy = (term: string) => (term.length >= 7 ? Math.min(2, Math.round(term.length * 0.2)) : 0);
const OPTIONS: TermIndexOptions = { boosts: BOOSTS, tokenize: words, processTerm: lower, prefix, fuzzy };

// Seeded, so every run checks the same documents.
let seed = 7;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
const VOCABULARY = [
  'parser',
  'parsers',
  'parsing',
  'configuration',
  'configurations',
  'refund',
  'refunds',
  'daemon',
  'socket',
  'sockets',
  'timeout',
  'ledger',
  'Ledger',
  'the',
  'cache',
  'cached',
  'migration',
  'migrations',
  'retries',
  'backoff',
  'checksum',
  'checksums',
  'wal',
  'fsync',
  '42',
  '2026',
];
const text = (n: number) => Array.from({ length: n }, () => pick(VOCABULARY)).join(' ');
const documents = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, gist: text(6), headings: text(2), files: random() < 0.3 ? text(3) : '', body: text(40) }));

describe('the term index', () => {
  it('scores every document as MiniSearch did, for exact, prefix, fuzzy and several-word queries', () => {
    const index = new TermIndex(OPTIONS);
    for (const doc of documents)
      index.add(
        doc.id,
        FIELDS.map((field) => doc[field]),
      );
    const mini = new MiniSearch({
      fields: [...FIELDS],
      tokenize: words,
      processTerm: lower,
      searchOptions: {
        tokenize: words,
        processTerm: lower,
        boost: Object.fromEntries(FIELDS.map((f, i) => [f, BOOSTS[i]!])),
        prefix,
        fuzzy: (term) => (term.length >= 7 ? 0.2 : false),
        maxFuzzy: 2,
      },
    });
    mini.addAll(documents);
    const queries = ['parser', 'pars', 'configuratoin', 'refund daemon', 'Ledger', 'sock', 'checksumz', 'wal fsync 42', 'nothing', 'the'];
    for (const query of queries) {
      const ours = new Map(index.search(query).map((hit) => [hit.id, hit]));
      const theirs = mini.search(query);
      expect(ours.size, query).toBe(theirs.length);
      for (const hit of theirs) {
        const our = ours.get(hit.id as number)!;
        expect(our.score, `${query}: document ${hit.id}`).toBeCloseTo(hit.score, 9);
        expect(new Set(our.terms)).toEqual(new Set(hit.terms));
      }
    }
  });

  it('forgets a removed document and replaces one added again, across the sweep of removed postings', () => {
    const index = new TermIndex(OPTIONS);
    for (let id = 1; id <= 3000; id += 1) index.add(id, ['', '', '', id % 2 === 0 ? 'even wombats' : `odd capybaras n${id}`]);
    expect(index.termCount).toBe(1504);
    for (let id = 1; id <= 3000; id += 2) index.remove(id);
    // Swept at the thousandth removal: the terms only those documents held are gone, the last 500's until the next sweep.
    expect(index.termCount).toBe(504);
    index.add(2, ['', '', '', 'capybaras now']);
    expect(index.size).toBe(1500);
    expect(index.search('capybaras').map((hit) => hit.id)).toEqual([2]);
    expect(index.search('wombats')).toHaveLength(1499);
    // The terms only removed documents held are gone: their prefixes find nothing.
    expect(index.search('n1001')).toEqual([]);
  });

  it('finds by prefix the terms added after a search', () => {
    const index = new TermIndex(OPTIONS);
    index.add(1, ['', '', '', 'migration']);
    expect(index.search('migr').map((hit) => hit.id)).toEqual([1]);
    index.add(2, ['', '', '', 'migrations']);
    index.add(3, ['', '', '', 'mig']);
    expect(
      index
        .search('migr')
        .map((hit) => hit.id)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('counts a word up to 255 times in a field without spilling into the next field', () => {
    // The headings weigh a thousand times the gist: a count spilled from the gist into them would show.
    const index = new TermIndex({ ...OPTIONS, boosts: [1, 1000, 1, 1] });
    const echoes = (n: number) => Array.from({ length: n }, () => 'echo').join(' ');
    index.add(1, [echoes(300), '', '', '']);
    index.add(2, [echoes(1), '', '', '']);
    index.add(3, ['', '', '', 'other']);
    const scores = new Map(index.search('echo').map((hit) => [hit.id, hit.score]));
    expect(scores.get(1)).toBeGreaterThan(scores.get(2)!);
    expect(scores.get(1)).toBeLessThan(5);
  });

  it('measures edits as Levenshtein does, and stops past the most asked for', () => {
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('kitten', 'sitting', 2)).toBe(3);
    expect(editDistance('configuration', 'configuratoin', 2)).toBe(2);
    expect(editDistance('abc', 'abc', 0)).toBe(0);
  });

  it('finds by typo every word within the edits allowed, and only those', () => {
    const letters = [...'abcdeé1'];
    const terms = [...new Set(Array.from({ length: 2000 }, () => Array.from({ length: 5 + Math.floor(random() * 5) }, () => pick(letters)).join('')))];
    const index = new TermIndex({ ...OPTIONS, prefix: () => false });
    terms.forEach((term, i) => index.add(i, ['', '', '', term]));
    for (const query of ['abcdeab', 'aaaaaaa', 'edcbaed1', 'ééééééé']) {
      const most = fuzzy(query);
      const expected = terms.filter((term) => editDistance(query, term, most) <= most).sort();
      const found = index.search(query).flatMap((hit) => hit.terms);
      expect([...new Set(found)].sort(), query).toEqual(expected);
    }
    // Two letters swapped for two the word does not have: four letters differ, two edits.
    const near = new TermIndex({ ...OPTIONS, prefix: () => false });
    ['abcdefxy', 'abcdefghij', 'bcdefgh', 'abcdexyz'].forEach((term, i) => near.add(i, ['', '', '', term]));
    expect(
      near
        .search('abcdefgh')
        .flatMap((hit) => hit.terms)
        .sort(),
    ).toEqual(['abcdefghij', 'abcdefxy', 'bcdefgh']);
  });
});
