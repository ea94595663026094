// The full-text index of every job's summaries (MiniSearch: BM25, prefix and fuzzy terms).
// Each part of a summary (its gist, each section, the files it names) is one document, so a
// hit knows its section and a passing mention in a long section weighs less than the subject
// of a short one. Built from the log on the first search, then kept up to date from the
// store's appends; it holds words and numbers only: snippets read the texts from the log.
import MiniSearch, { type SearchResult } from 'minisearch';
import type { StoredEvent } from '../events/events.js';
import { GIST_SECTION, indexedSource, searchParts, searchWords } from '../events/searchText.js';
import { FILES_HEADING } from '../events/summaryParts.js';
import type { EventStore } from './eventStore.js';
import type { Projection } from './projection.js';

/** A document: one part of a summary, its text in the field that weighs as its kind does. */
type Doc = { id: number; gist?: string; heading?: string; body?: string; files?: string };
type Part = { job: string; seq: number; section: string; topic: string | undefined; time: number };

export type SearchFilter = { job?: string; topic?: string; since?: number };
/** An entry that matched: its score summed over its parts, and the part that matched best. */
export type EntryMatch = { job: string; seq: number; score: number; section: string; terms: string[] };

/** What a word weighs by where it is: a summary is about what its gist and headings say. */
const BOOST = { gist: 3, heading: 2, files: 1.5, body: 1 };
const FIELDS = Object.keys(BOOST);
/** Summaries read from the log at a time while the index is built. */
const BUILD_CHUNK = 500;

/**
 * Words too common to tell summaries apart: left out of the index (they would match nearly
 * every part, costing memory and time for no ranking).
 */
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have in is it its of on or so that the their then there these they this to was we were what when which will with'.split(' '),
);
const lowercase = (term: string) => {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
};

function newMini(): MiniSearch<Doc> {
  return new MiniSearch<Doc>({
    fields: FIELDS,
    storeFields: [],
    tokenize: searchWords,
    processTerm: lowercase,
    searchOptions: {
      tokenize: searchWords,
      processTerm: lowercase,
      boost: BOOST,
      // Longer words also find their longer forms (refund: refunds) and their misspellings.
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      maxFuzzy: 2,
    },
  });
}

export class SearchIndex {
  private mini = newMini();
  private parts: Part[] = [];
  private readonly indexed = new Set<number>();
  private building: Promise<void> | undefined;
  private buffered: StoredEvent[] | undefined;
  private following = false;
  private readonly follow = (stored: StoredEvent[]) => this.onAppended(stored);
  /** A failed write took back events the index may have seen: forget them, build again when next asked. */
  private readonly forget = () => this.reset();

  constructor(
    private readonly store: EventStore,
    private readonly projection: () => Projection,
    /** Told of a fault in following the log (the index is then built again). */
    private readonly failed?: (error: Error) => void,
  ) {
    store.on('failed', this.forget);
  }

  /** Resolves once every summary in the log is in; the first call builds the index. */
  ready(): Promise<void> {
    return (this.building ??= this.build().catch((error: unknown) => {
      this.reset();
      throw error;
    }));
  }

  /** The entries that match `query`, best first (the newest first among equal scores). */
  search(query: string, filter: SearchFilter): EntryMatch[] {
    const keep = (r: SearchResult) => {
      const part = this.parts[r.id as number]!;
      return (
        (filter.job === undefined || part.job === filter.job) &&
        (filter.topic === undefined || part.topic === filter.topic) &&
        (filter.since === undefined || part.time >= filter.since)
      );
    };
    // By sequence number: it is unique across jobs.
    const entries = new Map<number, EntryMatch & { best: number }>();
    for (const result of this.mini.search(query, { filter: keep })) {
      const part = this.parts[result.id as number]!;
      const entry = entries.get(part.seq);
      // The section shown is the best part's; the gist is shown with every hit anyway, so any section that matched beats it.
      const weight = part.section === GIST_SECTION ? -1 : result.score;
      if (entry === undefined) entries.set(part.seq, { job: part.job, seq: part.seq, score: result.score, section: part.section, terms: result.terms, best: weight });
      else {
        entry.score += result.score;
        if (weight > entry.best) Object.assign(entry, { section: part.section, terms: result.terms, best: weight });
      }
    }
    return [...entries.values()].map(({ best: _best, ...match }) => match).sort((a, b) => b.score - a.score || b.seq - a.seq);
  }

  /** Forgets everything; the next search builds the index again. */
  reset(): void {
    this.stop();
    this.mini = newMini();
    this.parts = [];
    this.indexed.clear();
    this.building = undefined;
  }

  /** Stops following the log (the daemon is stopping). */
  stop(): void {
    this.store.off('appended', this.follow);
    this.following = false;
    this.buffered = undefined;
  }

  private async build(): Promise<void> {
    const { mini } = this;
    this.buffered = [];
    this.store.on('appended', this.follow);
    this.following = true;
    // The projection has folded every event appended so far: its chains name every summary.
    const seqs = [...this.projection().jobs.values()].flatMap((state) => state.chain.map((e) => e.seq)).sort((a, b) => a - b);
    await this.store.flushed();
    for (let at = 0; at < seqs.length; at += BUILD_CHUNK) {
      const events = await this.store.get(seqs.slice(at, at + BUILD_CHUNK));
      // A reset while this build ran: the next build has it.
      if (mini !== this.mini) return;
      for (const event of events) this.add(event);
    }
    const held = this.buffered ?? [];
    this.buffered = undefined;
    this.onAppended(held);
  }

  private onAppended(stored: StoredEvent[]): void {
    if (!this.following) return;
    if (this.buffered) {
      this.buffered.push(...stored);
      return;
    }
    try {
      for (const event of stored) this.add(event);
    } catch (error) {
      // Told inside the store's append: a fault here must not fail the command that appended.
      this.failed?.(error as Error);
      this.reset();
    }
  }

  private add(event: StoredEvent): void {
    if (event.type !== 'SummaryAccepted' || this.indexed.has(event.seq)) return;
    this.indexed.add(event.seq);
    const source = indexedSource(event.data);
    if (source === undefined) return;
    const { job, topic, time } = event.data;
    for (const { section, text } of searchParts(source)) {
      const id = this.parts.length;
      this.parts.push({ job, seq: event.seq, section, topic, time });
      this.mini.add({ id, ...(section === GIST_SECTION ? { gist: text } : section === FILES_HEADING ? { files: text } : { heading: section, body: text }) });
    }
  }
}
