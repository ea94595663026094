// One job's part of the audit index: the token meter at each move, every trip, summary and
// denial, the moments the hover lists, and the model's usage, in compact arrays. A track
// folds events one at a time, and takes in another track that went on from where it stopped
// (a window of the log folded apart, or read back from a chunk: auditChunks.ts).
import type { StoredEvent } from '../events/events.js';
import { Meter, type MeterState } from '../events/meter.js';
import { copied } from './typedArrays.js';
import { HourlyUsage } from './usageIndex.js';

export type Trip = { seq: number; time: number; reason: string; unsummarizedTokens: number; limit: number };
export type SummaryMark = { seq: number; time: number; level: number; topic?: string; tokens: number; before: number; after: number };

/** How many meter points, moments and denials a track holds from the log's start. */
export type TrackCounts = [points: number, moments: number, denials: number];

/**
 * What a track carries from one window of the log into the next; `counts`, what the audit
 * index's build sizes its arrays by (none: the track starts empty).
 */
export type TrackCarry = { first: number; last: number; meter: MeterState; counts?: TrackCounts };

const MOMENT_TYPES = new Set(['InteractionRecorded', 'ToolDenied', 'GateTripped', 'SummaryAccepted', 'SummaryRejected', 'GatePaused', 'GateResumed', 'TripCancelled']);

/** Below this many points an array doubles as it grows; above it, it grows by an eighth (a copy of a million points is 8 MB). */
const DOUBLING_UP_TO = 65_536;

/** A relative column's numbers are kept as their distance above the first of their block of 2^BLOCK_BITS. */
const BLOCK_BITS = 12;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;
const blocksOf = (size: number): number => (size + BLOCK_MASK) >>> BLOCK_BITS;

/**
 * A column of numbers, written in order: in 32 bits while each fits, in 64 once one does not
 * (a fraction, a negative, or too large a number). A relative column (times) keeps each
 * number as its distance above the first of its block of 4,096, so times since 1970 fit in
 * 32 bits as long as a block of them spans less than 49 days.
 */
export class Numbers {
  private narrow: Uint32Array<ArrayBuffer> | undefined = new Uint32Array(0);
  private wide: Float64Array<ArrayBuffer> | undefined;
  /** Each block's first number (a relative column's, while narrow). */
  private bases: Float64Array<ArrayBuffer> = new Float64Array(0);

  constructor(private readonly relative: boolean) {}

  get capacity(): number {
    return (this.narrow ?? this.wide!).length;
  }

  /** 4 while every number fits in 32 bits, then 8. */
  get bytesPerNumber(): number {
    return this.narrow ? 4 : 8;
  }

  at(i: number): number {
    const narrow = this.narrow;
    if (narrow === undefined) return this.wide![i]!;
    return this.relative ? this.bases[i >>> BLOCK_BITS]! + narrow[i]! : narrow[i]!;
  }

  /** The first `n` numbers, in 64 bits. */
  values(n: number): Float64Array<ArrayBuffer> {
    const values = new Float64Array(n);
    for (let i = 0; i < n; i += 1) values[i] = this.at(i);
    return values;
  }

  /** Sets number `i`; every number before it is set (see widen). */
  set(i: number, value: number): void {
    const narrow = this.narrow;
    if (narrow !== undefined) {
      let base = 0;
      if (this.relative) {
        if ((i & BLOCK_MASK) === 0) this.bases[i >>> BLOCK_BITS] = value;
        base = this.bases[i >>> BLOCK_BITS]!;
      }
      const offset = value - base;
      // Kept narrow only when the base and the offset give the number back exactly (a fraction's may not).
      if (offset >>> 0 === offset && base + offset === value) {
        narrow[i] = offset;
        return;
      }
      this.widen(i);
    }
    this.wide![i] = value;
  }

  /** Numbers `from` to `from + count` of `other`, set from `at` on. */
  copy(other: Numbers, from: number, count: number, at: number): void {
    if (!this.relative && !other.relative && this.narrow && other.narrow) this.narrow.set(other.narrow.subarray(from, from + count), at);
    else for (let i = 0; i < count; i += 1) this.set(at + i, other.at(from + i));
  }

  /** Room for `size` numbers, the first `n` kept. */
  resize(size: number, n: number): void {
    if (this.narrow === undefined) {
      this.wide = copied(this.wide!, new Float64Array(size), n);
      return;
    }
    this.narrow = copied(this.narrow, new Uint32Array(size), n);
    if (this.relative) this.bases = copied(this.bases, new Float64Array(blocksOf(size)), blocksOf(n));
  }

  /** Every number in 64 bits from now on, the first `n` kept. */
  private widen(n: number): void {
    const wide = new Float64Array(this.capacity);
    wide.set(this.values(n));
    this.wide = wide;
    this.narrow = undefined;
    this.bases = new Float64Array(0);
  }
}

/**
 * Times and one number each (the meter's level, or an event's sequence number): a million
 * points are 8 MB, not a million objects. Times are kept relative (Numbers), the numbers as
 * they are.
 */
export class Points {
  readonly t = new Numbers(true);
  readonly v = new Numbers(false);
  n = 0;

  push(time: number, value: number): void {
    if (this.n === this.t.capacity) this.grow(this.n + 1);
    this.t.set(this.n, time);
    this.v.set(this.n, value);
    this.n += 1;
  }

  /** Adds another's points after these. */
  append(other: Points): void {
    if (other.n === 0) return;
    this.grow(this.n + other.n);
    this.t.copy(other.t, 0, other.n, this.n);
    this.v.copy(other.v, 0, other.n, this.n);
    this.n += other.n;
  }

  /** Makes room for `size` points at once (the build sizes a track from its newest chunk's counts). */
  reserve(size: number): void {
    if (size > this.t.capacity) this.resize(size);
  }

  /** The first index whose time is at or after `time`. */
  indexAt(time: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t.at(mid) < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private grow(needed: number): void {
    const length = this.t.capacity;
    if (needed <= length) return;
    this.resize(Math.max(needed, 256, length < DOUBLING_UP_TO ? length * 2 : length + (length >>> 3)));
  }

  private resize(size: number): void {
    this.t.resize(size, this.n);
    this.v.resize(size, this.n);
  }
}

export class Track {
  meter = new Meter();
  /** The meter's level at each move. */
  points = new Points();
  readonly trips: Trip[] = [];
  readonly summaries: SummaryMark[] = [];
  /** Denials' times and sequence numbers, and their tools. */
  denials = new Points();
  readonly denialTools: string[] = [];
  /** What the page's hover lists, by time and sequence number: interactions, denials, trips, summaries. */
  moments = new Points();
  readonly usage = new HourlyUsage();
  first = Number.POSITIVE_INFINITY;
  /**
   * The latest time seen: a clock that goes back does not take the meter back in time (the
   * series must be in time order); its events are drawn at this time instead.
   */
  last = Number.NEGATIVE_INFINITY;

  /** The counts of the log's windows before this track's (it holds only what came after). */
  private before: TrackCounts = [0, 0, 0];

  /** A track that goes on from `carry`, with nothing of its own yet, or with the marks of a window read back. */
  static from(carry: TrackCarry, marks?: { points: Points; moments: Points; denials: Points }): Track {
    const track = new Track();
    if (marks) Object.assign(track, marks);
    track.meter = Meter.from(carry.meter);
    track.first = carry.first;
    track.last = carry.last;
    if (carry.counts) track.before = carry.counts;
    return track;
  }

  carry(): TrackCarry {
    const [points, moments, denials] = this.before;
    return { first: this.first, last: this.last, meter: this.meter.state(), counts: [points + this.points.n, moments + this.moments.n, denials + this.denials.n] };
  }

  /** Makes room for `counts` marks at once. */
  reserve([points, moments, denials]: TrackCounts): void {
    this.points.reserve(points);
    this.moments.reserve(moments);
    this.denials.reserve(denials);
  }

  /** Folds one of the job's events in. */
  apply(event: StoredEvent): void {
    const time = Math.max(event.data.time, this.last);
    if (time < this.first) this.first = time;
    this.last = time;
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

  /** Takes in a track that went on from this one's carry: its marks after these, and its state. */
  absorb(next: Track): void {
    this.points.append(next.points);
    for (const trip of next.trips) this.trips.push(trip);
    for (const summary of next.summaries) this.summaries.push(summary);
    this.denials.append(next.denials);
    for (const tool of next.denialTools) this.denialTools.push(tool);
    this.moments.append(next.moments);
    this.usage.addRows(next.usage.rows());
    this.meter = next.meter;
    this.first = next.first;
    this.last = next.last;
  }
}
