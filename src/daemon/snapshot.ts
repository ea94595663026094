// Projection snapshots: the daemon's whole projection and the sequence number it covers,
// written in the same atomic batch as the events that complete it, so start-up loads the
// newest one and replays only the events after it.
import { Packr } from 'msgpackr';
import type { JobState } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';
import { Projection } from './projection.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

/** Bumped whenever JobState changes shape: an older snapshot is then ignored and the log replayed. */
export const SNAPSHOT_FORMAT = 1;

type SnapshotRecord = {
  format: number;
  seq: number;
  jobs: JobState[];
  appliedConfig: [string, Record<string, unknown>][];
};

export function encodeSnapshot(projection: Projection): Buffer {
  const record: SnapshotRecord = {
    format: SNAPSHOT_FORMAT,
    seq: projection.lastSeq,
    jobs: [...projection.jobs.values()],
    appliedConfig: [...projection.appliedConfig.entries()],
  };
  return packr.pack(record);
}

/** The projection a snapshot holds, or undefined when it cannot be trusted. */
export function decodeSnapshot(bytes: Uint8Array): Projection | undefined {
  let record: SnapshotRecord;
  try {
    record = packr.unpack(bytes) as SnapshotRecord;
  } catch {
    return undefined;
  }
  if (
    record === null ||
    typeof record !== 'object' ||
    record.format !== SNAPSHOT_FORMAT ||
    !Number.isSafeInteger(record.seq) ||
    !Array.isArray(record.jobs) ||
    !Array.isArray(record.appliedConfig) ||
    !record.jobs.every(isJobState)
  ) {
    return undefined;
  }
  const projection = new Projection();
  projection.lastSeq = record.seq;
  for (const job of record.jobs) projection.jobs.set(job.job, job);
  for (const [scope, values] of record.appliedConfig) projection.appliedConfig.set(scope, values);
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
    typeof job.rejections === 'number'
  );
}

/**
 * The projection at start-up: the newest snapshot that decodes, plus the events after it;
 * the whole log when no snapshot can be trusted.
 */
export async function loadProjection(
  store: EventStore,
  skipped: (seq: number, why: string) => void,
): Promise<{ projection: Projection; snapshotSeq?: number }> {
  for await (const { seq, value } of store.snapshots()) {
    if (seq > store.lastSeq) {
      skipped(seq, 'it is newer than the last event');
      continue;
    }
    const projection = decodeSnapshot(value);
    if (!projection || projection.lastSeq !== seq) {
      skipped(seq, 'it does not decode');
      continue;
    }
    for await (const event of store.read(seq + 1)) projection.apply(event);
    return { projection, snapshotSeq: seq };
  }
  return { projection: await Projection.replay(store.read()) };
}
