// What the audit page draws, kept per job in compact arrays (auditTrack.ts): the token meter
// at each move, every trip, summary and denial, the moments the hover lists, and the model's
// usage. Built the first time the page is opened from the chunks the log keeps of it
// (auditChunks.ts) and the events after them, then kept up to date from the appends, so a
// job's page is served from memory whatever the log's size.
import type { StoredEvent } from '../events/events.js';
import type { EventStore } from './eventStore.js';
import { auditJob, encodeChunk, newestCounts, readChain, windowsAfter, type Window } from './auditChunks.js';
import { Track, type Points, type SummaryMark, type TrackCounts, type Trip } from './auditTrack.js';
import { HourlyUsage, type Bucket, type UsageSeries } from './usageIndex.js';

export type { SummaryMark, Trip } from './auditTrack.js';

/** How an index was built: the events its chunks covered, and the events after them it folded. */
export type IndexBuilt = { chunked: number; folded: number };

export type DenialMark = { time: number; seq: number; tool: string; count: number };

export type JobView = {
  /** The job's first and last event; null for a job with none here. */
  span: { first: number; last: number } | null;
  /** The range shown (what was asked, within the job's span). */
  range: { from: number; to: number } | null;
  meter: { t: number[]; v: number[] };
  trips: Trip[];
  summaries: SummaryMark[];
  denials: DenialMark[];
};

export class AuditIndex {
  private readonly tracks = new Map<string, Track>();
  private building: Promise<void> | undefined;
  private readonly listeners = new Set<(jobs: Set<string>) => void>();
  private readonly follow = (stored: StoredEvent[]) => this.onAppended(stored);
  private buffered: StoredEvent[] | undefined;
  /** Bumped by each reset: a build of an earlier generation stops. */
  private generation = 0;

  constructor(
    private readonly store: EventStore,
    /** Events per chunk (chunkEvents). */
    private readonly chunkSize: number,
    /** Told of a fault in following the log (the index is then built again). */
    private readonly failed?: (error: Error) => void,
    /** Told, once built, how many events it read from chunks and how many it folded. */
    private readonly built?: (how: IndexBuilt) => void,
  ) {}

  /**
   * Resolves once the whole log is in. Appends are followed from the start of the scan (held
   * until it ends), so none falls between the scan and the live updates.
   */
  ready(): Promise<void> {
    return (this.building ??= this.build().catch((error: unknown) => {
      this.stop();
      throw error;
    }));
  }

  /** Told the jobs that changed after each append. */
  onChange(listener: (jobs: Set<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Forgets everything (a failed write took back events it had seen) and builds again from
   * the log at once; then every job counts as changed, so open pages ask again.
   */
  reset(): void {
    this.stop();
    const before = new Set(this.tracks.keys());
    this.generation += 1;
    this.tracks.clear();
    this.building = undefined;
    void this.ready().then(
      () => this.tell(new Set([...before, ...this.tracks.keys()])),
      () => undefined,
    );
  }

  stop(): void {
    this.store.off('appended', this.follow);
    this.buffered = undefined;
  }

  private async build(): Promise<void> {
    const generation = this.generation;
    const current = () => generation === this.generation;
    this.buffered = [];
    this.store.on('appended', this.follow);
    const upTo = this.store.lastSeq;
    // Everything up to `upTo` is readable once written.
    await this.store.flushed();
    // Each track's arrays made once at their final size (none given up as they grow): the
    // newest chunk's counts, and room for what the events after it may add.
    const newest = await newestCounts(this.store, this.chunkSize);
    const after = Math.max(upTo - newest.to, 0);
    const sizes = (counts: TrackCounts | undefined) => counts?.map((count) => count + Math.min(after, (count >>> 3) + 256)) as TrackCounts | undefined;
    const absorb = (window: Window) => this.absorb(window, (job) => sizes(newest.counts.get(job)));
    const end = await readChain(this.store, this.chunkSize, upTo, absorb);
    this.built?.({ chunked: end.to, folded: upTo - end.to });
    // The texts, most of the log's bytes, are never drawn: not decoded.
    for await (const window of windowsAfter(this.store, this.chunkSize, end, upTo, current)) {
      // A reset while this build ran: the next build has it.
      if (!current()) return;
      // A window the chunks did not have: kept for the next build (a failure only means folding it again).
      if (window.whole) this.store.putAuditChunk(window.window, encodeChunk(window)).catch(() => undefined);
      absorb(window);
    }
    if (!current()) return;
    const held = this.buffered ?? [];
    this.buffered = undefined;
    this.onAppended(held);
  }

  /** Takes in a window's tracks; a job's new track is given room for `sizeOf(job)` marks. */
  private absorb(window: Window, sizeOf: (job: string) => TrackCounts | undefined): void {
    for (const [job, next] of window.tracks) {
      let track = this.tracks.get(job);
      if (!track) {
        this.tracks.set(job, (track = new Track()));
        const counts = sizeOf(job);
        if (counts) track.reserve(counts);
      }
      track.absorb(next);
    }
  }

  private onAppended(stored: StoredEvent[]): void {
    if (this.buffered) {
      this.buffered.push(...stored);
      return;
    }
    const changed = new Set<string>();
    try {
      for (const event of stored) {
        const job = this.apply(event);
        if (job !== undefined) changed.add(job);
      }
    } catch (error) {
      // Told inside the store's append: a fault here must not fail the command that appended.
      this.failed?.(error as Error);
      this.reset();
      return;
    }
    this.tell(changed);
  }

  private tell(changed: Set<string>): void {
    if (changed.size === 0) return;
    for (const listener of this.listeners) {
      try {
        listener(changed);
      } catch (error) {
        this.failed?.(error as Error);
      }
    }
  }

  private apply(event: StoredEvent): string | undefined {
    const job = auditJob(event);
    if (job === undefined) return undefined;
    let track = this.tracks.get(job);
    if (!track) this.tracks.set(job, (track = new Track()));
    track.apply(event);
    return job;
  }

  /**
   * The job between `from` and `to` (or over its `last` milliseconds) as at most about 4 points per pixel of `width` (the
   * first, lowest, highest and last of each pixel's span, so every peak and drop shows),
   * with every trip and summary, and denials merged per pixel.
   */
  view(job: string, range: { from?: number; to?: number; last?: number }, width: number): JobView {
    const track = this.tracks.get(job);
    if (!track || track.last === Number.NEGATIVE_INFINITY) return { span: null, range: null, meter: { t: [], v: [] }, trips: [], summaries: [], denials: [] };
    const from = range.from ?? (range.last !== undefined ? Math.max(track.last - range.last, track.first) : track.first);
    const to = Math.max(range.to ?? track.last, from);
    const inRange = <T extends { time: number }>(marks: T[]) => marks.filter((m) => m.time >= from && m.time <= to);
    return {
      span: { first: track.first, last: track.last },
      range: { from, to },
      meter: downsample(track.points, from, to, width),
      trips: inRange(track.trips),
      summaries: inRange(track.summaries),
      denials: denialMarks(track, from, to, width),
    };
  }

  /** The model's tokens per agent and model, summed per hour or day; every job's, or one's. */
  usage(job: string | undefined, bucket: Bucket): UsageSeries[] {
    const tracks = job === undefined ? [...this.tracks.values()] : [this.tracks.get(job)].filter((track) => track !== undefined);
    return HourlyUsage.series(
      tracks.map((track) => track.usage),
      bucket,
    );
  }

  /** The sequence numbers of the job's first `limit` moments between `from` and `to`. */
  momentSeqs(job: string, from: number, to: number, limit: number): number[] {
    const moments = this.tracks.get(job)?.moments;
    if (!moments) return [];
    const seqs: number[] = [];
    for (let i = moments.indexAt(from); i < moments.n && moments.t.at(i) <= to && seqs.length < limit; i += 1) seqs.push(moments.v.at(i));
    return seqs;
  }
}

function downsample(points: Points, from: number, to: number, width: number): { t: number[]; v: number[] } {
  const t: number[] = [];
  const v: number[] = [];
  const start = points.indexAt(from);
  const end = points.indexAt(to + 1);
  // The meter's level as the range opens: the last point before it.
  if (start > 0) {
    t.push(from);
    v.push(points.v.at(start - 1));
  }
  const span = Math.max(to - from, 1) / Math.max(width, 1);
  let i = start;
  while (i < end) {
    const bucketEnd = from + (Math.floor((points.t.at(i) - from) / span) + 1) * span;
    let j = i;
    let lo = i;
    let hi = i;
    while (j + 1 < end && points.t.at(j + 1) < bucketEnd) {
      j += 1;
      if (points.v.at(j) < points.v.at(lo)) lo = j;
      if (points.v.at(j) > points.v.at(hi)) hi = j;
    }
    // First, lowest, highest, last, in time order, each once.
    for (const k of [...new Set([i, lo, hi, j])].sort((a, b) => a - b)) {
      t.push(points.t.at(k));
      v.push(points.v.at(k));
    }
    i = j + 1;
  }
  // The meter holds its last level to the end of the range.
  const level = end > 0 ? points.v.at(end - 1) : undefined;
  if (level !== undefined && (t.length === 0 || t.at(-1)! < to)) {
    t.push(to);
    v.push(level);
  }
  return { t, v };
}

function denialMarks(track: Track, from: number, to: number, width: number): DenialMark[] {
  const { denials, denialTools } = track;
  const marks: DenialMark[] = [];
  const span = Math.max(to - from, 1) / Math.max(width, 1);
  let bucket = Number.NaN;
  for (let i = denials.indexAt(from); i < denials.n && denials.t.at(i) <= to; i += 1) {
    const time = denials.t.at(i);
    const at = Math.floor((time - from) / span);
    const last = marks.at(-1);
    if (last && at === bucket) {
      last.count += 1;
      continue;
    }
    bucket = at;
    marks.push({ time, seq: denials.v.at(i), tool: denialTools[i]!, count: 1 });
  }
  return marks;
}
