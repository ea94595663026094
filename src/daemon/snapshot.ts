// Projection snapshots: the daemon's whole projection and the sequence number it covers,
// written in the same atomic batch as the events that complete it, so start-up loads the
// newest one and replays only the events after it. The projection holds no summary texts
// (they stay in the log), so a snapshot stays small however long the chains grow.
// msgpackr's pure-JS build, as in codec.ts: the native string extractor was the slower one.
import { Packr } from 'msgpackr/pack';
import type { JobState } from '../events/jobState.js';
import type { SessionBinding } from '../events/sessions.js';
import type { EventStore } from './eventStore.js';
import { packed } from './codec.js';
import type { FolderJob } from '../events/repositoryJobs.js';
import { Projection, type ApprovedConfig, type HeldConfig } from './projection.js';

// Records (msgpackr's self-describing structures, defined inside each snapshot) decode a
// chain's many same-shaped entries about three times faster than plain maps. A snapshot is
// recap's own cache, never read by anything else; stored events stay plain maps (codec.ts).
const OPTIONS = { useRecords: true, mapsAsObjects: true, moreTypes: false } as const;
const unpackr = new Packr(OPTIONS);

/** Bumped whenever the record or JobState changes shape: an older snapshot is then ignored and the log replayed. */
export const SNAPSHOT_FORMAT = 10;

type SnapshotRecord = {
  format: number;
  seq: number;
  /** Projection.latestTime (format 6). */
  latestTime: number;
  jobs: JobState[];
  appliedConfig: [string, Record<string, unknown>][];
  /** Sessions and their jobs (format 4). */
  sessions: [string, SessionBinding][];
  approvedConfig: [string, ApprovedConfig][];
  /** Config files' contents held since their approval (format 7). */
  heldConfig: [string, HeldConfig][];
  /** The newest prompt ids recorded, oldest first (format 8). Chain entries keep their gists and files (format 9). Jobs keep other machines' entries (format 10). */
  promptIds: string[];
  /** Each project folder's job and repository, each repository's job by its key (format 10). */
  repositories: [string, FolderJob][];
  repositoryJobs: [string, string][];
};

/** The size of the last snapshot made: the next is packed into a buffer of about its size. */
let lastSnapshotBytes = 0;

export function encodeSnapshot(projection: Projection): Buffer {
  const record: SnapshotRecord = {
    format: SNAPSHOT_FORMAT,
    seq: projection.lastSeq,
    latestTime: projection.latestTime,
    jobs: [...projection.jobs.values()],
    appliedConfig: [...projection.appliedConfig.entries()],
    sessions: [...projection.sessions.entries()],
    approvedConfig: [...projection.approvedConfig.entries()],
    heldConfig: [...projection.heldConfig.entries()],
    promptIds: [...projection.promptIds],
    repositories: [...projection.repositories.folders.entries()],
    repositoryJobs: [...projection.repositories.byKey.entries()],
  };
  // A new packer each time: one kept would remember every shape it has ever seen.
  const bytes = packed(new Packr(OPTIONS), record, lastSnapshotBytes);
  lastSnapshotBytes = bytes.length;
  return bytes;
}

/** The projection a snapshot holds, or undefined when it cannot be trusted. */
export function decodeSnapshot(bytes: Uint8Array): Projection | undefined {
  let record: SnapshotRecord;
  try {
    record = unpackr.unpack(bytes) as SnapshotRecord;
  } catch {
    return undefined;
  }
  if (
    record === null ||
    typeof record !== 'object' ||
    record.format !== SNAPSHOT_FORMAT ||
    !Number.isSafeInteger(record.seq) ||
    typeof record.latestTime !== 'number' ||
    !Array.isArray(record.jobs) ||
    !Array.isArray(record.appliedConfig) ||
    !Array.isArray(record.sessions) ||
    !Array.isArray(record.approvedConfig) ||
    !Array.isArray(record.heldConfig) ||
    !Array.isArray(record.promptIds) ||
    !record.promptIds.every((id) => typeof id === 'string') ||
    !Array.isArray(record.repositories) ||
    !Array.isArray(record.repositoryJobs) ||
    !record.jobs.every(isJobState)
  ) {
    return undefined;
  }
  const projection = new Projection();
  projection.lastSeq = record.seq;
  projection.latestTime = record.latestTime;
  for (const job of record.jobs) projection.jobs.set(job.job, job);
  for (const [scope, values] of record.appliedConfig) projection.appliedConfig.set(scope, values);
  for (const [session, binding] of record.sessions) projection.sessions.set(session, binding);
  for (const [project, approved] of record.approvedConfig) projection.approvedConfig.set(project, approved);
  for (const [scope, held] of record.heldConfig) projection.heldConfig.set(scope, held);
  for (const id of record.promptIds) projection.rememberPrompt(id);
  for (const [project, folder] of record.repositories) projection.repositories.folders.set(project, folder);
  for (const [key, job] of record.repositoryJobs) projection.repositories.byKey.set(key, job);
  return projection;
}

function isJobState(value: unknown): value is JobState {
  const job = value as JobState;
  return (
    job !== null &&
    typeof job === 'object' &&
    typeof job.job === 'string' &&
    Array.isArray(job.pending) &&
    Array.isArray(job.chain) &&
    typeof job.unsummarizedTokens === 'number' &&
    typeof job.gate === 'object' &&
    job.gate !== null &&
    typeof job.gate.tripped === 'boolean' &&
    typeof job.denials === 'number' &&
    typeof job.rejections === 'number' &&
    // Added with the context trigger and usage: a snapshot from before them is replayed instead.
    Array.isArray(job.contextSessions) &&
    typeof job.usageSeen === 'object' &&
    job.usageSeen !== null &&
    // Added with `recap jobs` and the user's switches (format 5).
    typeof job.lastActivity === 'number' &&
    Array.isArray(job.agents) &&
    Array.isArray(job.disabledSessions) &&
    // Other machines' entries (format 10).
    Array.isArray(job.imported) &&
    typeof job.importedAt === 'object' &&
    job.importedAt !== null
  );
}

/**
 * The projection at start-up: the newest snapshot that decodes, plus the events after it;
 * the whole log when no snapshot can be trusted.
 */
export async function loadProjection(store: EventStore, skipped: (seq: number, why: string) => void): Promise<{ projection: Projection; snapshotSeq?: number }> {
  for await (const { seq, value } of store.snapshots()) {
    if (seq > store.lastSeq) {
      skipped(seq, 'it is newer than the last event');
      continue;
    }
    const projection = value && decodeSnapshot(value);
    if (!projection || projection.lastSeq !== seq) {
      skipped(seq, 'it does not decode or was written by another version of recap');
      continue;
    }
    await projection.applyBatches(store.readBatches(seq + 1));
    return { projection, snapshotSeq: seq };
  }
  const projection = new Projection();
  await projection.applyBatches(store.readBatches());
  return { projection };
}

/**
 * The newest snapshot that decodes and is not after a moment: at or before event `seq`, and
 * with no event later than `time` folded in, so that folding the events after it up to the
 * moment gives what a replay from the first event gives. Undefined when there is none.
 */
export async function snapshotBefore(store: EventStore, at: { seq?: number; time?: number }): Promise<Projection | undefined> {
  const last = Math.min(at.seq ?? store.lastSeq, store.lastSeq);
  let seqs = (await store.snapshotSeqs()).filter((seq) => seq <= last);
  if (at.time !== undefined) seqs = seqs.slice(0, await notLaterThan(store, seqs, at.time));
  for (const seq of seqs.reverse()) {
    const bytes = await store.snapshotAt(seq);
    const projection = bytes && decodeSnapshot(bytes);
    if (!projection || projection.lastSeq !== seq) continue;
    if (at.time !== undefined && projection.latestTime > at.time) continue;
    return projection;
  }
  return undefined;
}

/**
 * How many of these snapshots (oldest first) come before `time`, by the time of each one's own
 * last event, found by halving (a few events read, not one per snapshot: at ten million events,
 * each is in a pack of its own). Events' times grow with their numbers but for a clock set back;
 * there a snapshot passed over only makes the replay start earlier, and one taken in is still
 * judged by its own latest time.
 */
async function notLaterThan(store: EventStore, seqs: number[], time: number): Promise<number> {
  let [low, high] = [0, seqs.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    const [event] = await store.get([seqs[middle]!]).catch(() => []);
    // An event that does not decode, or is missing: its snapshot is judged by its own latest time.
    const eventTime = (event?.data as { time?: number } | undefined)?.time ?? Number.NEGATIVE_INFINITY;
    if (eventTime > time) high = middle;
    else low = middle + 1;
  }
  return low;
}
