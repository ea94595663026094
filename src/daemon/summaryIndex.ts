// The words of every summary in one index (termIndex.ts: BM25+, prefix and fuzzy terms): one
// document per summary, its text in force, its gist, its sections' headings, their text and
// the files it names each in a field that weighs as its kind does. It holds words and numbers
// only, and the job of each summary: every other fact of an entry is the projection's.
// Pure of I/O: searchIndex.ts feeds it from the log.
import { GIST_SECTION, indexedSource, searchParts, searchWords } from '../events/searchText.js';
import { FILES_HEADING } from '../events/summaryParts.js';
import { TermIndex } from './termIndex.js';

/** A summary as the index is given it: its words by where they are. */
type Doc = { gist: string; headings: string; body: string; files: string };

/** An entry that matched: its score, and the words of it that matched (lowercase). */
export type EntryMatch = { job: string; seq: number; score: number; terms: string[] };

/** What a word weighs by where it is: a summary is about what its gist and headings say. */
const BOOST = { gist: 3, headings: 2, files: 1.5, body: 1 };
const FIELDS = Object.keys(BOOST) as (keyof Doc)[];

/**
 * Words too common to tell summaries apart: left out of the index (they would match nearly
 * every summary, costing memory and time for no ranking).
 */
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have in is it its of on or so that the their then there these they this to was we were what when which will with'.split(' '),
);
const lowercase = (term: string) => {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
};

function newIndex(): TermIndex {
  return new TermIndex({
    boosts: FIELDS.map((field) => BOOST[field]),
    tokenize: searchWords,
    processTerm: lowercase,
    // Longer words also find their longer forms (refund: refunds); only long ones their misspellings (fuzzy matching is the costly part).
    prefix: (term) => term.length >= 4,
    fuzzy: (term) => (term.length >= 7 ? Math.min(2, Math.round(term.length * 0.2)) : 0),
  });
}

/** A summary's text in force as the index's document. */
function document(data: Parameters<typeof indexedSource>[0]): Doc | undefined {
  const source = indexedSource(data);
  if (source === undefined) return undefined;
  const doc: Doc = { gist: '', headings: '', body: '', files: '' };
  const headings: string[] = [];
  const bodies: string[] = [];
  for (const { section, text } of searchParts(source)) {
    if (section === GIST_SECTION) doc.gist = text;
    else if (section === FILES_HEADING) doc.files = text;
    else {
      headings.push(section);
      bodies.push(text);
    }
  }
  doc.headings = headings.join('\n');
  doc.body = bodies.join('\n');
  return doc;
}

/** What a summary's text in force is read from: a SummaryAccepted's or a SummaryAmended's data. */
export type IndexedData = Parameters<typeof indexedSource>[0];

export class SummaryIndex {
  private readonly index = newIndex();
  /** The job of each summary in the index, by its sequence number. */
  private readonly jobs = new Map<number, string>();

  /** Indexes summary `seq` with `data`'s text, in place of what it had. */
  put(job: string, seq: number, data: IndexedData): void {
    this.remove(seq);
    const doc = document(data);
    if (doc === undefined) return;
    this.index.add(
      seq,
      FIELDS.map((field) => doc[field]),
    );
    this.jobs.set(seq, job);
  }

  remove(seq: number): void {
    if (!this.jobs.delete(seq)) return;
    this.index.remove(seq);
  }

  /** The summaries that match `query` and that `keep` keeps, best first (the newest first among equal scores). */
  search(query: string, keep: (seq: number, job: string) => boolean = () => true): EntryMatch[] {
    const matches: EntryMatch[] = [];
    for (const result of this.index.search(query)) {
      const seq = result.id;
      const job = this.jobs.get(seq);
      if (job !== undefined && keep(seq, job)) matches.push({ job, seq, score: result.score, terms: result.terms });
    }
    return matches.sort((a, b) => b.score - a.score || b.seq - a.seq);
  }
}
