// What the audit page draws, kept per job in compact arrays: the token meter at each move,
// every trip, summary and denial, the moments the hover lists, and the model's usage. Built from the whole log
// the first time the page is opened, then kept up to date from the appends, so a job's
// page is served from memory whatever the log's size.
import type { StoredEvent } from '../events/events.js';
import { Meter } from '../events/meter.js';
import type { EventStore } from './eventStore.js';
import { HourlyUsage, type Bucket, type UsageSeries } from './usageIndex.js';

export type Trip = { seq: number; time: number; reason: string; unsummarizedTokens: number; limit: number };
export type SummaryMark = { seq: number; time: number; level: number; topic?: string; tokens: number; before: number; after: number };
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

const MOMENT_TYPES = new Set(['InteractionRecorded', 'ToolDenied', 'GateTripped', 'SummaryAccepted', 'SummaryRejected', 'GatePaused', 'GateResumed', 'TripCancelled']);

/**
 * Times and one number each (the meter's level, or an event's sequence number), growing by
 * doubling: a million points are 16 MB, not a million objects.
 */
class Points {
  t = new Float64Array(256);
  v = new Float64Array(256);
  n = 0;

  push(time: number, value: number): void {
    if (this.n === this.t.length) {
      this.t = grown(this.t);
      this.v = grown(this.v);
    }
    this.t[this.n] = time;
    this.v[this.n] = value;
    this.n += 1;
  }

  /** The first index whose time is at or after `time`. */
  indexAt(time: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t[mid]! < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function grown(array: Float64Array): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

class Track {
  readonly meter = new Meter();
  /** The meter's level at each move. */
  readonly points = new Points();
  readonly trips: Trip[] = [];
  readonly summaries: SummaryMark[] = [];
  /** Denials' times and sequence numbers, and their tools. */
  readonly denials = new Points();
  readonly denialTools: string[] = [];
  /** What the page's hover lists, by time and sequence number: interactions, denials, trips, summaries. */
  readonly moments = new Points();
  readonly usage = new HourlyUsage();
  first = Number.POSITIVE_INFINITY;
  /**
   * The latest time seen: a clock that goes back does not take the meter back in time (the
   * series must be in time order); its events are drawn at this time instead.
   */
  last = Number.NEGATIVE_INFINITY;

  apply(event: StoredEvent, time: number): void {
    if (MOMENT_TYPES.has(event.type)) this.moments.push(time, event.seq);
    const before = this.meter.value;
    if (this.meter.apply(event)) this.points.push(time, this.meter.value);
    switch (event.type) {
      case 'GateTripped': {
        const { reason, unsummarizedTokens, limit } = event.data;
        this.trips.push({ seq: event.seq, time, reason, unsummarizedTokens, limit });
        return;
      }
      case 'SummaryAccepted': {
        const { level, topic, tokens } = event.data;
        this.summaries.push({ seq: event.seq, time, level, ...(topic !== undefined ? { topic } : {}), tokens, before, after: this.meter.value });
        return;
      }
      case 'ToolDenied':
        this.denials.push(time, event.seq);
        this.denialTools.push(event.data.tool);
        return;
      case 'UsageRecorded':
        this.usage.add(event.data, time);
        return;
      default:
        return;
    }
  }
}

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
    /** Told of a fault in following the log (the index is then built again). */
    private readonly failed?: (error: Error) => void,
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
    this.buffered = [];
    this.store.on('appended', this.follow);
    const upTo = this.store.lastSeq;
    // Everything up to `upTo` is readable once written.
    await this.store.flushed();
    // The texts, most of the log's bytes, are never drawn: not decoded.
    for await (const batch of this.store.readBatches(1, upTo, { withoutTexts: true })) {
      // A reset while this build ran: the next build has it.
      if (generation !== this.generation) return;
      for (const event of batch) this.apply(event);
    }
    const held = this.buffered ?? [];
    this.buffered = undefined;
    this.onAppended(held);
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
    const job = (event.data as { job?: string }).job;
    if (job === undefined || event.type === 'ConfigApplied') return undefined;
    let track = this.tracks.get(job);
    if (!track) this.tracks.set(job, (track = new Track()));
    const time = Math.max(event.data.time, track.last);
    if (time < track.first) track.first = time;
    track.last = time;
    track.apply(event, time);
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
    for (let i = moments.indexAt(from); i < moments.n && moments.t[i]! <= to && seqs.length < limit; i += 1) seqs.push(moments.v[i]!);
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
    v.push(points.v[start - 1]!);
  }
  const span = Math.max(to - from, 1) / Math.max(width, 1);
  let i = start;
  while (i < end) {
    const bucketEnd = from + (Math.floor((points.t[i]! - from) / span) + 1) * span;
    let j = i;
    let lo = i;
    let hi = i;
    while (j + 1 < end && points.t[j + 1]! < bucketEnd) {
      j += 1;
      if (points.v[j]! < points.v[lo]!) lo = j;
      if (points.v[j]! > points.v[hi]!) hi = j;
    }
    // First, lowest, highest, last, in time order, each once.
    for (const k of [...new Set([i, lo, hi, j])].sort((a, b) => a - b)) {
      t.push(points.t[k]!);
      v.push(points.v[k]!);
    }
    i = j + 1;
  }
  // The meter holds its last level to the end of the range.
  const level = end > 0 ? points.v[end - 1]! : undefined;
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
  for (let i = denials.indexAt(from); i < denials.n && denials.t[i]! <= to; i += 1) {
    const time = denials.t[i]!;
    const at = Math.floor((time - from) / span);
    const last = marks.at(-1);
    if (last && at === bucket) {
      last.count += 1;
      continue;
    }
    bucket = at;
    marks.push({ time, seq: denials.v[i]!, tool: denialTools[i]!, count: 1 });
  }
  return marks;
}
