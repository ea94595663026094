// The search index of every job's summaries (summaryIndex.ts), fed from the log: built on the
// first search, in batches that let other requests through (a hook never waits for it), then
// kept up to date from the store's appends: a summary accepted is added, an amended one
// indexed with its amendment's text, a redacted one removed, as entryText.ts says. Other
// machines' entries are indexed from their newest SummaryImported, an earlier one's removed.
import { importedInForce } from '../events/entryText.js';
import type { StoredEvent } from '../events/events.js';
import { allEntries, jobEntry } from '../events/jobState.js';
import { indexedSeq } from '../events/searchText.js';
import type { EventStore } from './eventStore.js';
import type { Projection } from './projection.js';
import { SummaryIndex, type EntryMatch } from './summaryIndex.js';

export type { EntryMatch } from './summaryIndex.js';
export type SearchFilter = { job?: string; topic?: string; since?: number };

/** Summaries' texts read from the log at a time while the index is built. */
const READ_BATCH = 1000;
/** Summaries added between two turns of the event loop while the index is built (a few milliseconds' work). */
const ADD_SLICE = 50;

/** The entry of the chain an event is about: a summary accepted, amended or redacted. */
function entryOf(event: StoredEvent): { job: string; seq: number } | undefined {
  switch (event.type) {
    case 'SummaryAccepted':
      return { job: event.data.job, seq: event.seq };
    case 'SummaryAmended':
      return { job: event.data.job, seq: event.data.entry };
    case 'EntryRedacted':
      return event.data.what === 'summary' ? { job: event.data.job, seq: event.data.seq } : undefined;
    case 'SummaryImported':
      return { job: event.data.job, seq: event.seq };
    default:
      return undefined;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SearchIndex {
  private index = new SummaryIndex();
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
    return this.index.search(query, (seq, job) => {
      if (filter.job !== undefined && job !== filter.job) return false;
      if (filter.topic === undefined && filter.since === undefined) return true;
      const state = jobs.get(job);
      const entry = state && jobEntry(state, seq);
      return entry !== undefined && (filter.topic === undefined || entry.topic === filter.topic) && (filter.since === undefined || entry.time >= filter.since);
    });
  }

  /** Forgets everything; the next search builds the index again. */
  reset(): void {
    this.stop();
    this.index = new SummaryIndex();
    this.building = undefined;
  }

  /** Stops following the log (the daemon is stopping). */
  stop(): void {
    this.store.off('appended', this.follow);
    this.following = false;
    this.buffered = undefined;
  }

  private async build(): Promise<void> {
    const { index } = this;
    this.buffered = [];
    this.store.on('appended', this.follow);
    this.following = true;
    // The projection has folded every event appended so far: its chains name every summary and the event that holds its text now.
    const entries = [...this.projection().jobs.values()].flatMap((state) =>
      allEntries(state).flatMap((entry) => {
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
        if (index !== this.index) return;
        for (const { job, seq, from } of batch.slice(slice, slice + ADD_SLICE)) {
          const event = events.get(from);
          if (event?.type === 'SummaryAccepted' || event?.type === 'SummaryAmended') index.put(job, seq, event.data);
          if (event?.type === 'SummaryImported') index.put(job, seq, importedInForce(event.data));
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
    const state = this.projection().jobs.get(about.job);
    const entry = state && jobEntry(state, about.seq);
    if (entry === undefined) return;
    // Another machine's entry imported again: the earlier import's document goes.
    for (const earlier of entry.imports ?? []) this.index.remove(earlier);
    const from = indexedSeq(entry);
    if (from === undefined) this.index.remove(about.seq);
    else if (from === event.seq && (event.type === 'SummaryAccepted' || event.type === 'SummaryAmended')) this.index.put(about.job, about.seq, event.data);
    else if (from === event.seq && event.type === 'SummaryImported') this.index.put(about.job, about.seq, importedInForce(event.data));
  }
}
