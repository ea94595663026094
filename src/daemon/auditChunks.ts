// The audit index kept in the log's LevelDB, a chunk per window of sequence numbers
// (RECAP_AUDIT_CHUNK_EVENTS, 10,000 by default): what each job's track gained in the window (meter points, moments, denials, trips,
// summaries, usage) and what every job's track carries out of it (the meter's unsummarized
// interactions, the first and latest times). The first `recap ui` reads the chunks and folds
// only the events after the last one, instead of the whole log. A chunk is recap's own
// cache: one that is missing, of another format, or does not match the log is not used, and
// its window's events are folded instead (and the chunk written again).
import { Packr } from 'msgpackr/pack';
import type { StoredEvent } from '../events/events.js';
import type { EventStore } from './eventStore.js';
import { column, columnOf, floatsOf, type Column } from './auditColumns.js';
import { Points, Track, type SummaryMark, type TrackCounts, type Trip } from './auditTrack.js';
import type { UsageRow } from './usageIndex.js';

/** Bumped whenever a chunk's layout or what a track folds changes: older chunks are then folded again. */
export const AUDIT_CHUNK_FORMAT = 3;
const DEFAULT_CHUNK_EVENTS = 10_000;

/** Sequence numbers per chunk: window k holds events k * size + 1 to (k + 1) * size. A chunk of another size is not used. */
export function chunkEvents(env: NodeJS.ProcessEnv): number {
  const size = Number(env.RECAP_AUDIT_CHUNK_EVENTS);
  return Number.isSafeInteger(size) && size > 0 ? size : DEFAULT_CHUNK_EVENTS;
}

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/** Every job's track at the end of a window (jobs in the order they first appeared). */
export type Tracks = Map<string, Track>;
/** Where the chunks end: the last sequence number they cover, and every job's track there. */
export type ChainEnd = { to: number; tracks: Tracks };
/** One window folded: each job's track over it, going on from the window before. */
export type Window = { window: number; from: number; to: number; tracks: Tracks; whole: boolean; toTime: number | null };

export const windowOf = (seq: number, size: number): number => Math.floor((seq - 1) / size);

/** The job an event belongs to on the audit page, if any. */
export function auditJob(event: StoredEvent): string | undefined {
  const job = (event.data as { job?: string }).job;
  return job === undefined || event.type === 'ConfigApplied' ? undefined : job;
}

type PointsChunk = [t: Column, v: Column];
type JobChunk = {
  job: string;
  first: number;
  last: number;
  meter: { seqs: Column; tokens: Column; value: number };
  /** The track's meter points, moments and denials from the log's start to the window's end. */
  counts: TrackCounts;
  points: PointsChunk;
  moments: PointsChunk;
  denials: PointsChunk;
  /** The tools denied, each once, and each denial's as an index into them. */
  tools: string[];
  toolOf: number[];
  trips: Trip[];
  summaries: SummaryMark[];
  usage: UsageRow[];
};
type Chunk = { format: number; window: number; from: number; to: number; toTime: number | null; jobs: JobChunk[] };

export function encodeChunk(window: Window): Buffer {
  const jobs = [...window.tracks].map(([job, track]): JobChunk => {
    const { first, last, meter, counts } = track.carry();
    const tools = [...new Set(track.denialTools)];
    const index = new Map(tools.map((tool, i) => [tool, i]));
    return {
      job,
      first,
      last,
      meter: { seqs: column(Float64Array.from(meter.seqs)), tokens: column(Float64Array.from(meter.tokens)), value: meter.value },
      counts: counts!,
      points: pointsChunk(track.points),
      moments: pointsChunk(track.moments),
      denials: pointsChunk(track.denials),
      tools,
      toolOf: track.denialTools.map((tool) => index.get(tool)!),
      trips: track.trips,
      summaries: track.summaries,
      usage: track.usage.rows(),
    };
  });
  const chunk: Chunk = { format: AUDIT_CHUNK_FORMAT, window: window.window, from: window.from, to: window.to, toTime: window.toTime, jobs };
  return packr.pack(chunk);
}

const pointsChunk = (points: Points): PointsChunk => [column(points.t.values(points.n)), column(points.v.values(points.n))];

/** The chunk of window `window`, or undefined when it cannot be trusted (another format, cut short, not its window). */
export function decodeChunk(window: number, size: number, bytes: Uint8Array): (Window & { toTime: number | null }) | undefined {
  try {
    const chunk = packr.unpack(bytes) as Chunk;
    if (chunk === null || typeof chunk !== 'object' || chunk.format !== AUDIT_CHUNK_FORMAT || chunk.window !== window) return undefined;
    if (chunk.from !== window * size + 1 || chunk.to !== (window + 1) * size || !(chunk.toTime === null || typeof chunk.toTime === 'number')) return undefined;
    if (!Array.isArray(chunk.jobs)) return undefined;
    const tracks: Tracks = new Map();
    for (const job of chunk.jobs) {
      const track = decodeTrack(job);
      if (!track || tracks.has(job.job)) return undefined;
      tracks.set(job.job, track);
    }
    return { window, from: chunk.from, to: chunk.to, tracks, whole: true, toTime: chunk.toTime };
  } catch {
    return undefined;
  }
}

function decodeTrack(job: JobChunk): Track | undefined {
  if (job === null || typeof job !== 'object' || typeof job.job !== 'string' || !isNumber(job.first) || !isNumber(job.last)) return undefined;
  const seqs = floatsOf(job.meter?.seqs);
  const tokens = floatsOf(job.meter?.tokens);
  if (!seqs || !tokens || seqs.length !== tokens.length || !isNumber(job.meter.value) || !isCounts(job.counts)) return undefined;
  const marks = [pointsOf(job.points), pointsOf(job.moments), pointsOf(job.denials)] as const;
  const [points, moments, denials] = marks;
  if (!points || !moments || !denials) return undefined;
  // The counts are those of the windows before this one and its own.
  const before = job.counts.map((count, i) => count - marks[i]!.n) as TrackCounts;
  if (before.some((count) => count < 0)) return undefined;
  const track = Track.from({ first: job.first, last: job.last, meter: { seqs, tokens, value: job.meter.value }, counts: before }, { points, moments, denials });
  if (!Array.isArray(job.tools) || !job.tools.every((tool) => typeof tool === 'string') || !Array.isArray(job.toolOf) || job.toolOf.length !== track.denials.n) return undefined;
  for (const i of job.toolOf) {
    const tool = job.tools[i];
    if (tool === undefined) return undefined;
    track.denialTools.push(tool);
  }
  if (!Array.isArray(job.trips) || !job.trips.every(isTrip) || !Array.isArray(job.summaries) || !job.summaries.every(isSummary)) return undefined;
  track.trips.push(...job.trips);
  track.summaries.push(...job.summaries);
  if (!Array.isArray(job.usage) || !job.usage.every(isUsageRow)) return undefined;
  track.usage.addRows(job.usage);
  return track;
}

const isNumber = (value: unknown): value is number => typeof value === 'number';
const isCounts = (counts: unknown): counts is TrackCounts => Array.isArray(counts) && counts.length === 3 && counts.every((count) => Number.isSafeInteger(count) && count >= 0);

/** A chunk's points, read into arrays of their own. */
function pointsOf(chunk: unknown): Points | undefined {
  if (!Array.isArray(chunk)) return undefined;
  const [t, v] = [columnOf(chunk[0]), columnOf(chunk[1])];
  if (!t || !v || t.n !== v.n) return undefined;
  const points = new Points();
  points.reserve(t.n);
  if (!t.into(points.t) || !v.into(points.v)) return undefined;
  points.n = t.n;
  return points;
}

const isTrip = (trip: Trip): boolean =>
  trip !== null &&
  typeof trip === 'object' &&
  isNumber(trip.seq) &&
  isNumber(trip.time) &&
  typeof trip.reason === 'string' &&
  isNumber(trip.unsummarizedTokens) &&
  isNumber(trip.limit);

const isSummary = (mark: SummaryMark): boolean =>
  mark !== null &&
  typeof mark === 'object' &&
  isNumber(mark.seq) &&
  isNumber(mark.time) &&
  isNumber(mark.level) &&
  (mark.topic === undefined || typeof mark.topic === 'string') &&
  isNumber(mark.tokens) &&
  isNumber(mark.before) &&
  isNumber(mark.after);

const isUsageRow = (row: unknown): row is UsageRow => Array.isArray(row) && row.length === 6 && typeof row[0] === 'string' && row.slice(1).every(isNumber);

/**
 * The chunks from the first on, each handed to `take` in order, as long as they follow one
 * another, decode, and end on the event the log holds at their last number (same time):
 * where the chain ends, and every job's track there.
 */
export async function readChain(store: EventStore, size: number, upTo: number, take: (window: Window) => void): Promise<ChainEnd> {
  let end: ChainEnd = { to: 0, tracks: new Map() };
  // The times of the events every whole window ends on, asked for at once (one trip to LevelDB's thread, not one per chunk).
  const ends = Array.from({ length: Math.floor(upTo / size) }, (_, i) => (i + 1) * size);
  const times = new Map((await store.get(ends).catch(() => [])).map((event) => [event.seq, timeOf(event)]));
  for await (const { window, value } of store.auditChunks()) {
    if (window !== windowOf(end.to + 1, size)) break;
    const chunk = decodeChunk(window, size, value);
    if (!chunk || chunk.to > upTo || !times.has(chunk.to) || times.get(chunk.to) !== chunk.toTime) break;
    take(chunk);
    end = { to: chunk.to, tracks: chunk.tracks };
  }
  return end;
}

/** The newest chunk that decodes and matches the log, as where to go on from; none: the start of the log. */
export async function newestChunk(store: EventStore, size: number, upTo: number): Promise<ChainEnd> {
  for await (const { window, value } of store.auditChunks({ reverse: true })) {
    const chunk = decodeChunk(window, size, value);
    if (chunk && chunk.to <= upTo && (await matchesLog(store, chunk))) return { to: chunk.to, tracks: chunk.tracks };
  }
  return { to: 0, tracks: new Map() };
}

/**
 * Every job's counts in the newest chunk that decodes, and the last sequence number it covers:
 * how large the build's arrays will be (only a size: the chunks are checked as they are read).
 */
export async function newestCounts(store: EventStore, size: number): Promise<{ to: number; counts: Map<string, TrackCounts> }> {
  for await (const { window, value } of store.auditChunks({ reverse: true })) {
    const chunk = decodeChunk(window, size, value);
    if (chunk) return { to: chunk.to, counts: new Map([...chunk.tracks].map(([job, track]) => [job, track.carry().counts!])) };
  }
  return { to: 0, counts: new Map() };
}

/** Whether the log's event at the chunk's last number has the time the chunk recorded (a log put in another's place does not). */
async function matchesLog(store: EventStore, chunk: Window): Promise<boolean> {
  try {
    const [event] = await store.get([chunk.to]);
    return event !== undefined && timeOf(event) === chunk.toTime;
  } catch {
    return false;
  }
}

const timeOf = (event: StoredEvent): number | null => (event.data as { time?: number }).time ?? null;

/**
 * The log after `after` up to `upTo`, folded a window at a time, each window's tracks going on
 * from the one before: `whole` when the window's every sequence number was read (its chunk
 * may be written); the last one may be partial.
 */
export async function* windowsAfter(store: EventStore, size: number, after: ChainEnd, upTo: number, isCurrent: () => boolean = () => true): AsyncGenerator<Window> {
  let current: Window | undefined;
  let carried = after.tracks;
  let expected = after.to + 1;
  let contiguous = true;
  const open = (seq: number): Window => {
    const window = windowOf(seq, size);
    const tracks: Tracks = new Map();
    for (const [job, track] of carried) tracks.set(job, Track.from(track.carry()));
    contiguous = seq === window * size + 1;
    return { window, from: window * size + 1, to: (window + 1) * size, tracks, whole: false, toTime: null };
  };
  for await (const batch of store.readBatches(after.to + 1, upTo, { withoutTexts: true })) {
    if (!isCurrent()) return;
    for (const event of batch) {
      if (current && event.seq > current.to) {
        carried = current.tracks;
        yield current;
        current = undefined;
      }
      current ??= open(event.seq);
      if (event.seq !== expected) contiguous = false;
      expected = event.seq + 1;
      const job = auditJob(event);
      if (job !== undefined) {
        let track = current.tracks.get(job);
        if (!track) current.tracks.set(job, (track = new Track()));
        track.apply(event);
      }
      current.toTime = timeOf(event);
      current.whole = contiguous && event.seq === current.to;
    }
  }
  if (current) yield current;
}
