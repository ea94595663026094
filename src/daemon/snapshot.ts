// Projection snapshots: the daemon's whole projection and the sequence number it covers,
// written in the same atomic batch as the events that complete it, so start-up loads the
// newest one and replays only the events after it.
//
// Most of a snapshot's bytes are the accepted summaries' texts. They are kept apart from
// the msgpack structure, concatenated: one-byte texts as Latin-1, the others as UTF-16, in
// chunks. Loading turns each chunk into one string and every text into a slice of it: no
// text is decoded, allocated or moved by the garbage collector one at a time.
import { Packr } from 'msgpackr';
import type { ChainEntry, JobState } from '../events/jobState.js';
import type { EventStore } from './eventStore.js';
import { Projection } from './projection.js';

// Records (msgpackr's self-describing structures, defined inside each snapshot) decode a
// chain's many same-shaped entries about three times faster than plain maps. A snapshot is
// recap's own cache, never read by anything else; stored events stay plain maps (codec.ts).
const OPTIONS = { useRecords: true, mapsAsObjects: true, moreTypes: false } as const;
const unpackr = new Packr(OPTIONS);

/** Bumped whenever JobState changes shape: an older snapshot is then ignored and the log replayed. */
export const SNAPSHOT_FORMAT = 2;
/** Format 1 held the texts inline; it is still read. */
const INLINE_TEXTS_FORMAT = 1;

/** Characters per chunk of texts; a string of one chunk stays far below V8's longest string. */
const CHUNK_CHARS = 32 * 1024 * 1024;

type SnapshotRecord = {
  format: number;
  seq: number;
  jobs: JobState[];
  appliedConfig: [string, Record<string, unknown>][];
  /**
   * Format 2: every chain entry's `text` is a number in `jobs`: n >= 0 for the next n
   * characters of `narrow`, -n - 1 for the next n characters of `wide`.
   */
  narrow?: Uint8Array[];
  wide?: Uint8Array[];
};

/** Texts concatenated into chunks of at most CHUNK_CHARS characters (a longer text gets one of its own). */
class TextChunks {
  readonly chunks: Buffer[] = [];
  private texts: string[] = [];
  private chars = 0;

  constructor(private readonly encoding: 'latin1' | 'utf16le') {}

  add(text: string): void {
    if (this.chars + text.length > CHUNK_CHARS && this.texts.length > 0) this.seal();
    this.texts.push(text);
    this.chars += text.length;
  }

  finish(): Buffer[] {
    if (this.texts.length > 0) this.seal();
    return this.chunks;
  }

  private seal(): void {
    if (this.chars === 0) {
      // Empty texts need no bytes: the reader hands them out without a chunk.
      this.texts = [];
      return;
    }
    const bytesPerChar = this.encoding === 'latin1' ? 1 : 2;
    const chunk = Buffer.allocUnsafe(this.chars * bytesPerChar);
    let at = 0;
    for (const text of this.texts) at += chunk.write(text, at, this.encoding);
    this.chunks.push(chunk);
    this.texts = [];
    this.chars = 0;
  }
}

const NOT_LATIN1 = /[^\x00-\xff]/;

export function encodeSnapshot(projection: Projection): Buffer {
  const narrow = new TextChunks('latin1');
  const wide = new TextChunks('utf16le');
  const jobs = [...projection.jobs.values()].map((job) => ({
    ...job,
    chain: job.chain.map((entry) => {
      const text = entry.text;
      if (NOT_LATIN1.test(text)) {
        wide.add(text);
        return { ...entry, text: -text.length - 1 };
      }
      narrow.add(text);
      return { ...entry, text: text.length };
    }),
  }));
  const record = {
    format: SNAPSHOT_FORMAT,
    seq: projection.lastSeq,
    jobs,
    appliedConfig: [...projection.appliedConfig.entries()],
    narrow: narrow.finish(),
    wide: wide.finish(),
  };
  // A new packer each time: one kept would remember every shape it has ever seen.
  return new Packr(OPTIONS).pack(record);
}

/** Hands out the texts of chunks in order: a slice of one string per chunk. */
class TextReader {
  private chunk = -1;
  private string = '';
  private at = 0;

  constructor(
    private readonly chunks: Uint8Array[],
    private readonly encoding: 'latin1' | 'utf16le',
  ) {}

  /** The next `length` characters, or undefined when the chunks do not hold them. */
  next(length: number): string | undefined {
    if (this.at + length > this.string.length) {
      // A text never spans two chunks: it starts the next one.
      if (this.at !== this.string.length || this.chunk + 1 >= this.chunks.length) return undefined;
      const bytes = this.chunks[++this.chunk]!;
      this.string = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(this.encoding);
      this.at = 0;
      if (length > this.string.length) return undefined;
    }
    const text = this.string.slice(this.at, this.at + length);
    this.at += length;
    return text;
  }

  /** Whether every character of every chunk was handed out. */
  get done(): boolean {
    return this.at === this.string.length && this.chunk === this.chunks.length - 1;
  }
}

/** Puts the texts back into the chain entries; false when they do not match the chunks. */
function restoreTexts(jobs: JobState[], narrow: unknown, wide: unknown): boolean {
  if (!isChunkList(narrow) || !isChunkList(wide)) return false;
  const narrowTexts = new TextReader(narrow, 'latin1');
  const wideTexts = new TextReader(wide, 'utf16le');
  for (const job of jobs) {
    for (const entry of job.chain as (Omit<ChainEntry, 'text'> & { text: unknown })[]) {
      const ref = entry.text;
      if (typeof ref !== 'number' || !Number.isSafeInteger(ref)) return false;
      const text = ref >= 0 ? narrowTexts.next(ref) : wideTexts.next(-ref - 1);
      if (text === undefined) return false;
      entry.text = text;
    }
  }
  return narrowTexts.done && wideTexts.done;
}

const isChunkList = (value: unknown): value is Uint8Array[] => Array.isArray(value) && value.every((c) => c instanceof Uint8Array);

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
    (record.format !== SNAPSHOT_FORMAT && record.format !== INLINE_TEXTS_FORMAT) ||
    !Number.isSafeInteger(record.seq) ||
    !Array.isArray(record.jobs) ||
    !Array.isArray(record.appliedConfig) ||
    !record.jobs.every(isJobState)
  ) {
    return undefined;
  }
  if (record.format === SNAPSHOT_FORMAT && !restoreTexts(record.jobs, record.narrow, record.wide)) return undefined;
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
    typeof job.rejections === 'number' &&
    // Added with the context trigger and usage: a snapshot from before them is replayed instead.
    Array.isArray(job.contextSessions) &&
    typeof job.usageSeen === 'object' &&
    job.usageSeen !== null
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
    const projection = value && decodeSnapshot(value);
    if (!projection || projection.lastSeq !== seq) {
      skipped(seq, 'it does not decode');
      continue;
    }
    await projection.applyBatches(store.readBatches(seq + 1));
    return { projection, snapshotSeq: seq };
  }
  const projection = new Projection();
  await projection.applyBatches(store.readBatches());
  return { projection };
}
