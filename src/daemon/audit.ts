// The log as an audit trail: pages of events for `recap log` and `recap export`, the
// state at any moment for `recap replay`, and `recap verify`'s proof of integrity.
import { codeStillTrusted } from '../common/codeManifest.js';
import { canonicallyEqual } from '../events/canonical.js';
import { MemoryEditChecks } from './memoryEditChecks.js';
import { ImportedChecks } from '../events/importedChecks.js';
import type { StoredEvent } from '../events/events.js';
import { headHash, type JobState } from '../events/jobState.js';
import { decodeEventAt, MAX_SEQ, UndecodableEvent } from './codec.js';
import type { EventStore } from './eventStore.js';
import type { StoredRun } from './eventPacks.js';
import { Projection } from './projection.js';
import { snapshotBefore } from './snapshot.js';
import type { EventLine, Problem, Verification } from '../protocol/answers.js';
import { eventLine } from './eventLine.js';
import { upcast } from '../events/upcast.js';
import { StoredLines } from './storedLines.js';
import { EncodedEventsPage } from './eventsAnswer.js';
import { SummaryHashes, type Mismatch } from './summaryHashes.js';
import { StoredRecords } from '../protocol/storedRecords.js';

export type EventFilter = { job?: string; types?: string[]; since?: number; until?: number };

export type Progress = (done: number) => void;

/** How many events one page may scan, so a filtered page never holds the daemon up long. */
const SCAN_LIMIT = 20_000;

function matches(event: StoredEvent, filter: EventFilter): boolean {
  const data = event.data as { job?: string; time?: number };
  if (filter.job !== undefined && data.job !== filter.job) return false;
  if (filter.types !== undefined && !filter.types.includes(event.type)) return false;
  if (filter.since !== undefined && (data.time ?? 0) < filter.since) return false;
  if (filter.until !== undefined && (data.time ?? 0) > filter.until) return false;
  return true;
}

/** Up to `limit` matching events from `fromSeq` on; `next` is where the next page starts. */
export async function eventsPage(
  store: EventStore,
  fromSeq: number,
  limit: number,
  filter: EventFilter,
  raw: boolean,
  follow = false,
): Promise<{ events: EventLine[]; next: number | null; lastSeq: number }> {
  const events: EventLine[] = [];
  const unfiltered = isUnfiltered(filter);
  const bounds = await scanPage(store, fromSeq, limit, unfiltered, follow, (seq, bytes, start, end) => {
    const stored = decodeEventAt(seq, bytes, start, end);
    const event = raw ? stored : upcast(stored);
    if (!unfiltered && !matches(event, filter)) return false;
    events.push(eventLine(event));
    return true;
  });
  return { events, ...bounds };
}

/**
 * A page of events exactly as stored (`recap export`, `recap log --json` of older versions
 * as they are), without decoding the events that are not filtered: a JSON array or JSON
 * Lines made from the stored bytes (storedLines.ts), or the stored bytes themselves, for the
 * client to make the lines of (`stored`).
 */
export async function storedEventsPage(
  store: EventStore,
  fromSeq: number,
  limit: number,
  filter: EventFilter,
  follow = false,
  form: 'array' | 'lines' | 'stored' = 'array',
): Promise<EncodedEventsPage> {
  const out = form === 'stored' ? new StoredRecords() : new StoredLines(form === 'lines', limit);
  const unfiltered = isUnfiltered(filter);
  const bounds = await scanPage(store, fromSeq, limit, unfiltered, follow, (seq, bytes, start, end) => {
    if (!unfiltered && !matches(decodeEventAt(seq, bytes, start, end), filter)) return false;
    out.add(seq, bytes, start, end);
    return true;
  });
  return new EncodedEventsPage(out.finish(), out.count, bounds.next, bounds.lastSeq, form !== 'array', form === 'stored');
}

const isUnfiltered = (filter: EventFilter) => filter.job === undefined && filter.types === undefined && filter.since === undefined && filter.until === undefined;

/**
 * Hands the stored events from `fromSeq` on to `take` (each its bytes from `start` to `end`,
 * a place in its pack), which says whether it kept one, until it has kept `limit` or
 * SCAN_LIMIT were scanned; says where the next page starts.
 */
async function scanPage(
  store: EventStore,
  fromSeq: number,
  limit: number,
  unfiltered: boolean,
  follow: boolean,
  take: (seq: number, bytes: Uint8Array, start: number, end: number) => boolean,
): Promise<{ next: number | null; lastSeq: number }> {
  let kept = 0;
  let scanned = 0;
  /** Where a follower goes on from at the end of the log: after the last event read, which is on disk. */
  let resume = fromSeq;
  const batches = store.storedBatches(fromSeq, MAX_SEQ, unfiltered ? Math.min(limit, SCAN_LIMIT) : SCAN_LIMIT);
  try {
    for await (const run of batches) {
      for (let i = 0; i < run.seqs.length; i += 1) {
        const seq = run.seqs[i]!;
        scanned += 1;
        resume = seq + 1;
        if (take(seq, run.bytes[i]!, run.starts[i]!, run.ends[i]!)) kept += 1;
        if (kept >= limit || scanned >= SCAN_LIMIT) return { next: seq < store.lastSeq ? seq + 1 : null, lastSeq: store.lastSeq };
      }
    }
  } finally {
    await batches.return(undefined);
  }
  return { next: follow ? resume : null, lastSeq: store.lastSeq };
}

/**
 * The projection as it was right after event `at.seq`, or at `at.time` (before the first event
 * after it): from the nearest snapshot before the moment, plus the events up to it.
 */
export async function projectionAt(store: EventStore, at: { seq?: number; time?: number }, progress?: Progress): Promise<Projection> {
  const projection = (await snapshotBefore(store, at)) ?? new Projection();
  for await (const batch of store.readBatches(projection.lastSeq + 1, at.seq)) {
    for (const event of batch) {
      const time = (event.data as { time?: number }).time;
      if (at.time !== undefined && time !== undefined && time > at.time) return projection;
      projection.apply(event);
      if (progress && event.seq % 10_000 === 0) progress(event.seq);
    }
  }
  return projection;
}

/**
 * Recomputes every summary's hash and link (other machines' entries on their own chains), checks the sequence has no holes, replays the
 * whole log from nothing and compares the result with the daemon's live projection.
 */
export async function verifyLog(store: EventStore, live: () => Projection, progress?: Progress, job?: string): Promise<Verification> {
  let problems: Problem[] = [];
  const replayed = new Projection();
  const hashes = new SummaryHashes(codeStillTrusted);
  let events = 0;
  let summaries = 0;
  let imported = 0;
  const edits = new MemoryEditChecks();
  const imports = new ImportedChecks();

  /** One event, read from entry `i` of `run`. */
  const check = (event: StoredEvent, run: StoredRun, i: number) => {
    if (event.seq !== replayed.lastSeq + 1) {
      problems.push({ seq: event.seq, what: `events #${replayed.lastSeq + 1} to #${event.seq - 1} are missing from the log` });
    }
    // With a job, its events and summaries are counted and its problems told; the log's own (holes) always are.
    const mine = job === undefined || (event.data as { job?: string }).job === job;
    edits.check(event, mine, (problem) => problems.push(problem));
    if (event.type === 'SummaryAccepted' && mine) {
      summaries += 1;
      const { job, topic, prevHash } = event.data;
      // A redacted entry's content is gone: its hash is checked against its redaction's and the next entry's link.
      if (!event.data.redacted) hashes.add(event.seq, event.data, problems.length, { bytes: run.bytes[i]!, start: run.starts[i]!, end: run.ends[i]! });
      // Each topic has a chain of its own: the link is to the head of this one.
      const expected = headHash(replayed.view(job), topic);
      if (prevHash !== expected)
        problems.push({ seq: event.seq, job, what: `the link is broken: previous hash ${prevHash.slice(0, 12)}, but the entry before it has ${expected.slice(0, 12)}` });
    }
    // Another machine's entry: its hashes and its link on that machine's chain.
    if (event.type === 'SummaryImported') {
      const found = imports.check(event.data);
      if (mine) {
        imported += 1;
        problems.push(...found.map(({ what }) => ({ seq: event.seq, job: event.data.job, what })));
      }
    }
    replayed.apply(event);
    if (mine) events += 1;
    if (progress && events % 10_000 === 0) progress(events);
  };

  try {
    // Catch up with the live projection, then compare in the same turn of the event loop.
    for (let round = 0; round < 10; round += 1) {
      for await (const { events: batch, run } of store.readRuns(replayed.lastSeq + 1)) {
        for (let i = 0; i < batch.length; i += 1) check(batch[i]!, run, i);
        for (let behind = hashes.room(); behind; behind = hashes.room()) await behind;
      }
      const current = live();
      if (current.lastSeq <= replayed.lastSeq) {
        const found = compare(replayed, current, job);
        problems = withMismatches(problems, await hashes.mismatches());
        problems.push(...found, ...edits.unexplained());
        return {
          ok: problems.length === 0,
          events,
          summaries,
          ...(imported > 0 ? { imported } : {}),
          jobs: job === undefined ? replayed.jobs.size : 1,
          problems,
          ...edits.report(),
        };
      }
      await store.flushed();
    }
    problems = withMismatches(problems, await hashes.mismatches());
    problems.push({ what: 'the log kept growing while it was verified; run recap verify again when the agents are quieter' });
  } catch (error) {
    if (!(error instanceof UndecodableEvent)) throw error;
    problems = withMismatches(problems, await hashes.mismatches());
    problems.push({ seq: error.seq, what: error.message });
  } finally {
    hashes.close();
  }
  return { ok: false, events, summaries, jobs: job === undefined ? replayed.jobs.size : 1, problems };
}

/** The problems found event by event, with each summary that does not match its hash where it was found (its `at`). */
function withMismatches(problems: Problem[], mismatches: Mismatch[]): Problem[] {
  if (mismatches.length === 0) return problems;
  const out: Problem[] = [];
  let next = 0;
  for (const [i, problem] of problems.entries()) {
    for (; next < mismatches.length && mismatches[next]!.at <= i; next += 1) out.push(changedSummary(mismatches[next]!));
    out.push(problem);
  }
  for (; next < mismatches.length; next += 1) out.push(changedSummary(mismatches[next]!));
  return out;
}

const changedSummary = ({ seq, job }: Mismatch): Problem => ({
  seq,
  job,
  what: 'the summary does not match its hash: its text or another field was changed after it was accepted',
});

const FIELDS: (keyof JobState)[] = ['gate', 'unsummarizedTokens', 'pending', 'chain', 'imported', 'denials', 'rejections'];

function compare(replayed: Projection, live: Projection, only?: string): Problem[] {
  const problems: Problem[] = [];
  const jobs = only !== undefined ? [only] : new Set([...replayed.jobs.keys(), ...live.jobs.keys()]);
  for (const job of jobs) {
    const a = replayed.view(job);
    const b = live.view(job);
    const differing = FIELDS.filter((f) => !canonicallyEqual(a[f], b[f]));
    if (differing.length > 0) problems.push({ job, what: `the live projection differs from a full replay in ${differing.join(', ')}` });
  }
  // The config files' approved and held contents decide what applies: a replay must agree on them too.
  if (only !== undefined) return problems;
  for (const field of ['approvedConfig', 'heldConfig'] as const) {
    // Canonical JSON sorts an object's keys: the maps compare whatever order they were filled in.
    if (!canonicallyEqual(Object.fromEntries(replayed[field]), Object.fromEntries(live[field]))) {
      problems.push({ what: `the live projection differs from a full replay in ${field}` });
    }
  }
  return problems;
}
