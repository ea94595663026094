// The full-text index of every job's summaries (MiniSearch: BM25, prefix and fuzzy terms).
// One document per summary, its text in force (entryText.ts): its gist, its sections'
// headings, their text, and the files it names each in a field that weighs as its kind does;
// the section a hit is in is worked out when its snippet is (searchText.ts matchedPart). Built
// from the log on the first search, in batches that let other requests through, then kept up
// to date from the store's appends: a summary accepted is added, an amended one indexed with
// its amendment's text, a redacted one removed. It holds words and numbers only: the job of
// each summary beside them, every other fact of an entry is the projection's.
import MiniSearch from 'minisearch';
import type { StoredEvent } from '../events/events.js';
import { chainEntry, type ChainEntry } from '../events/jobState.js';
import { GIST_SECTION, indexedSeq, indexedSource, searchParts, searchWords } from '../events/searchText.js';
import { FILES_HEADING } from '../events/summaryParts.js';
import type { EventStore } from './eventStore.js';
import type { Projection } from './projection.js';

/** A summary as the index is given it: its words by where they are. */
type Doc = { id: number; gist: string; headings: string; body: string; files: string };

export type SearchFilter = { job?: string; topic?: string; since?: number };
/** An entry that matched: its score, and the words of it that matched (lowercase). */
export type EntryMatch = { job: string; seq: number; score: number; terms: string[] };

/** What a word weighs by where it is: a summary is about what its gist and headings say. */
const BOOST = { gist: 3, headings: 2, files: 1.5, body: 1 };
const FIELDS = Object.keys(BOOST);
/** Summaries' texts read from the log at a time while the index is built. */
const READ_BATCH = 1000;
/** Summaries added between two turns of the event loop while the index is built (a few milliseconds' work). */
const ADD_SLICE = 50;

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
      // Longer words also find their longer forms (refund: refunds); only long ones their misspellings (fuzzy matching is the costly part).
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 7 ? 0.2 : false),
      maxFuzzy: 2,
    },
  });
}

/** A summary's text in force as the index's document `seq`. */
function document(seq: number, data: Parameters<typeof indexedSource>[0]): Doc | undefined {
  const source = indexedSource(data);
  if (source === undefined) return undefined;
  const doc: Doc = { id: seq, gist: '', headings: '', body: '', files: '' };
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

/** The entry of the chain an event is about: a summary accepted, amended or redacted. */
function entryOf(event: StoredEvent): { job: string; seq: number } | undefined {
  switch (event.type) {
    case 'SummaryAccepted':
      return { job: event.data.job, seq: event.seq };
    case 'SummaryAmended':
      return { job: event.data.job, seq: event.data.entry };
    case 'EntryRedacted':
      return event.data.what === 'summary' ? { job: event.data.job, seq: event.data.seq } : undefined;
    default:
      return undefined;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SearchIndex {
  private mini = newMini();
  /** The job of each summary in the index, by its sequence number. */
  private readonly jobs = new Map<number, string>();
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
    const jobs = this.projection().jobs;
    const keep = (seq: number, job: string) => {
      if (filter.job !== undefined && job !== filter.job) return false;
      if (filter.topic === undefined && filter.since === undefined) return true;
      const entry = chainEntry(jobs.get(job)?.chain ?? [], seq);
      return entry !== undefined && (filter.topic === undefined || entry.topic === filter.topic) && (filter.since === undefined || entry.time >= filter.since);
    };
    const matches: EntryMatch[] = [];
    for (const result of this.mini.search(query)) {
      const seq = result.id as number;
      const job = this.jobs.get(seq);
      if (job !== undefined && keep(seq, job)) matches.push({ job, seq, score: result.score, terms: result.terms });
    }
    return matches.sort((a, b) => b.score - a.score || b.seq - a.seq);
  }

  /** Forgets everything; the next search builds the index again. */
  reset(): void {
    this.stop();
    this.mini = newMini();
    this.jobs.clear();
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
    // The projection has folded every event appended so far: its chains name every summary and the event that holds its text now.
    const entries = [...this.projection().jobs.values()].flatMap((state) =>
      state.chain.flatMap((entry) => {
        const from = indexedSeq(entry);
        return from === undefined ? [] : [{ job: state.job, seq: entry.seq, from }];
      }),
    );
    await this.store.flushed();
    for (let at = 0; at < entries.length; at += READ_BATCH) {
      const batch = entries.slice(at, at + READ_BATCH);
      const events = new Map((await this.store.get(batch.map((e) => e.from))).map((e) => [e.seq, e]));
      for (let slice = 0; slice < batch.length; slice += ADD_SLICE) {
        // Other requests (a hook's above all) go first between slices: the build never holds the daemon long.
        if (slice > 0) await nextTurn();
        // A reset while this build ran: the next build has it.
        if (mini !== this.mini) return;
        for (const { job, seq, from } of batch.slice(slice, slice + ADD_SLICE)) {
          const event = events.get(from);
          if (event?.type === 'SummaryAccepted' || event?.type === 'SummaryAmended') this.put(job, seq, event.data);
        }
      }
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
      for (const event of stored) this.follows(event);
    } catch (error) {
      // Told inside the store's append: a fault here must not fail the command that appended.
      this.failed?.(error as Error);
      this.reset();
    }
  }

  /**
   * An event about a summary: the projection has folded it (and perhaps later ones, when the
   * build held it), so the entry's text in force is asked of it: none, and the summary leaves
   * the index; this event's, and the summary is indexed with it; another event's, and that
   * event, later in the log, does it.
   */
  private follows(event: StoredEvent): void {
    const about = entryOf(event);
    if (about === undefined) return;
    const entry: ChainEntry | undefined = chainEntry(this.projection().jobs.get(about.job)?.chain ?? [], about.seq);
    if (entry === undefined) return;
    const from = indexedSeq(entry);
    if (from === undefined) this.remove(about.seq);
    else if (from === event.seq && (event.type === 'SummaryAccepted' || event.type === 'SummaryAmended')) this.put(about.job, about.seq, event.data);
  }

  private put(job: string, seq: number, data: Parameters<typeof indexedSource>[0]): void {
    this.remove(seq);
    const doc = document(seq, data);
    if (doc === undefined) return;
    this.mini.add(doc);
    this.jobs.set(seq, job);
  }

  private remove(seq: number): void {
    if (!this.jobs.delete(seq)) return;
    this.mini.discard(seq);
  }
}
