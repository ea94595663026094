// One job's part of the audit index: the token meter at each move, every trip, summary and
// denial, the moments the hover lists, and the model's usage, in compact arrays. A track
// folds events one at a time, and takes in another track that went on from where it stopped
// (a window of the log folded apart, or read back from a chunk: auditChunks.ts).
import type { StoredEvent } from '../events/events.js';
import { Meter, type MeterState } from '../events/meter.js';
import { HourlyUsage } from './usageIndex.js';

export type Trip = { seq: number; time: number; reason: string; unsummarizedTokens: number; limit: number };
export type SummaryMark = { seq: number; time: number; level: number; topic?: string; tokens: number; before: number; after: number };

/** What a track carries from one window of the log into the next. */
export type TrackCarry = { first: number; last: number; meter: MeterState };

const MOMENT_TYPES = new Set(['InteractionRecorded', 'ToolDenied', 'GateTripped', 'SummaryAccepted', 'SummaryRejected', 'GatePaused', 'GateResumed', 'TripCancelled']);

/**
 * Times and one number each (the meter's level, or an event's sequence number), growing by
 * doubling: a million points are 16 MB, not a million objects.
 */
export class Points {
  t = new Float64Array(256);
  v = new Float64Array(256);
  n = 0;

  push(time: number, value: number): void {
    if (this.n === this.t.length) this.grow(this.n + 1);
    this.t[this.n] = time;
    this.v[this.n] = value;
    this.n += 1;
  }

  /** Adds another's points after these. */
  append(other: Points): void {
    if (other.n === 0) return;
    this.grow(this.n + other.n);
    this.t.set(other.t.subarray(0, other.n), this.n);
    this.v.set(other.v.subarray(0, other.n), this.n);
    this.n += other.n;
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

  private grow(needed: number): void {
    if (needed <= this.t.length) return;
    // Doubled as often as needed: a track read from many chunks ends the size a fold makes it.
    let size = Math.max(this.t.length, 128) * 2;
    while (size < needed) size *= 2;
    this.t = grown(this.t, size);
    this.v = grown(this.v, size);
  }
}

function grown(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(size);
  bigger.set(array);
  return bigger;
}

export class Track {
  meter = new Meter();
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

  /** A track that goes on from `carry`, with nothing of its own yet. */
  static from(carry: TrackCarry): Track {
    const track = new Track();
    track.meter = Meter.from(carry.meter);
    track.first = carry.first;
    track.last = carry.last;
    return track;
  }

  carry(): TrackCarry {
    return { first: this.first, last: this.last, meter: this.meter.state() };
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
