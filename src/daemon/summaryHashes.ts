// `recap verify`'s check of each accepted summary against its hash. Making a summary's
// canonical JSON and hashing it is a third of a verify's work on a log with many summaries,
// so past the first thousand they are hashed on a worker thread (summaryHashWorker.ts), on
// the second core, while this one reads and replays the log: the worker is sent their stored
// bytes, a copy, in buffers it hands back for the next batches. It loads recap's code after
// the daemon's start, so it starts only when `mayLoadCode` says that code is as trusted as at
// the start; otherwise, or when it cannot start or fails, the summaries it has not answered
// for are hashed here, from the decoded copies kept until it answers.
import { Worker } from 'node:worker_threads';
import { recomputeHash } from '../events/chain.js';
import type { SummaryAccepted } from '../events/events.js';
import type { HashBatch, HashedBatch } from './summaryHashWorker.js';

type Entry = SummaryAccepted['data'];

/** Summaries hashed here before a worker is worth its start (about 30 ms). */
const HERE_UP_TO = 1_000;
/** Summaries sent to the worker at once. */
const BATCH = 500;
/** Batches the worker may have unanswered before the reader waits for it (each about 1.5 MB). */
const IN_FLIGHT = 4;

/** A summary whose content does not give its stored hash; `at`, what the caller gave with it. */
export type Mismatch = { seq: number; job: string; at: number };

type Batch = { seqs: number[]; entries: Entry[]; ats: number[] };

export class SummaryHashes {
  private seen = 0;
  /** The worker; null once hashing stays here (code not to be loaded, no worker, or one that failed). */
  private worker: Worker | null | undefined;
  /** The batch being filled, and its summaries' stored bytes one after another. */
  private batch = emptyBatch();
  private bytes = new Uint8Array(0);
  private ends: number[] = [];
  private nextId = 0;
  /** The batches sent and not yet answered for, by id. */
  private readonly inFlight = new Map<number, Batch>();
  /** Buffers the worker handed back. */
  private readonly spare: Uint8Array<ArrayBuffer>[] = [];
  private readonly found: Mismatch[] = [];
  /** Resolved when the worker answers or fails: what waits for room, or for the last answer. */
  private answered: (() => void) | undefined;

  /** `mayLoadCode`: whether recap's code may be loaded into a worker now. */
  constructor(private readonly mayLoadCode: () => boolean) {}

  /** Checks accepted summary `seq` (one not redacted), stored in `bytes` from `start` to `end`: here, or in a batch for the worker. */
  add(seq: number, entry: Entry, at: number, stored: { bytes: Uint8Array; start: number; end: number }): void {
    this.seen += 1;
    if (this.worker === undefined && this.seen > HERE_UP_TO) this.worker = this.mayLoadCode() ? startWorker(this) : null;
    if (!this.worker) {
      this.check(seq, entry, at);
      return;
    }
    const used = this.ends.length > 0 ? this.ends[this.ends.length - 1]! : 0;
    const size = stored.end - stored.start;
    if (this.bytes.length < used + size) this.bytes = this.larger(used, used + size);
    this.bytes.set(stored.bytes.subarray(stored.start, stored.end), used);
    this.ends.push(used + size);
    this.batch.seqs.push(seq);
    this.batch.entries.push(entry);
    this.batch.ats.push(at);
    if (this.batch.seqs.length >= BATCH) this.send();
  }

  /** A promise to await before reading on, while the worker is that far behind; otherwise undefined. */
  room(): Promise<void> | undefined {
    return this.inFlight.size >= IN_FLIGHT ? this.answer() : undefined;
  }

  /** Every mismatch, in sequence order, once the worker has answered for all it was given. */
  async mismatches(): Promise<Mismatch[]> {
    if (this.worker) this.send();
    while (this.inFlight.size > 0) await this.answer();
    this.close();
    return this.found.sort((a, b) => a.seq - b.seq);
  }

  /** Stops the worker, if one runs (verify ended early). */
  close(): void {
    if (this.worker) void this.worker.terminate();
    this.worker = null;
  }

  /** The worker's answer for one batch, and the batch's buffer back. */
  hashed({ id, mismatched, bytes }: HashedBatch): void {
    const batch = this.inFlight.get(id);
    if (!batch) return;
    this.inFlight.delete(id);
    for (const i of mismatched) this.found.push({ seq: batch.seqs[i]!, job: batch.entries[i]!.job, at: batch.ats[i]! });
    this.spare.push(bytes);
    this.wake();
  }

  /** The worker could not start, stopped, or lost a message: what it had not answered for is hashed here. */
  failed(): void {
    if (this.worker === null) return;
    this.worker = null;
    for (const batch of [...this.inFlight.values(), this.batch]) {
      for (let i = 0; i < batch.seqs.length; i += 1) this.check(batch.seqs[i]!, batch.entries[i]!, batch.ats[i]!);
    }
    this.inFlight.clear();
    this.batch = emptyBatch();
    this.ends = [];
    this.wake();
  }

  private send(): void {
    if (this.batch.seqs.length === 0) return;
    const id = (this.nextId += 1);
    const { bytes, ends } = this;
    this.inFlight.set(id, this.batch);
    this.worker!.postMessage({ id, seqs: this.batch.seqs, bytes, ends } satisfies HashBatch, [bytes.buffer]);
    this.batch = emptyBatch();
    this.bytes = new Uint8Array(0);
    this.ends = [];
  }

  private check(seq: number, entry: Entry, at: number): void {
    if (recomputeHash(entry) !== entry.hash) this.found.push({ seq, job: entry.job, at });
  }

  /** A buffer of at least `needed` bytes holding the first `used` of the batch's: one handed back if large enough. */
  private larger(used: number, needed: number): Uint8Array<ArrayBuffer> {
    const spare = this.spare.pop();
    const out = spare && spare.length >= needed ? spare : new Uint8Array(Math.max(needed, this.bytes.length * 2, 1 << 20));
    out.set(this.bytes.subarray(0, used));
    return out;
  }

  private answer(): Promise<void> {
    return new Promise((resolve) => (this.answered = resolve));
  }

  private wake(): void {
    const waiting = this.answered;
    this.answered = undefined;
    waiting?.();
  }
}

const emptyBatch = (): Batch => ({ seqs: [], entries: [], ats: [] });

/** The worker for `hashes`, or null when none starts. */
function startWorker(hashes: SummaryHashes): Worker | null {
  let worker: Worker;
  try {
    worker = new Worker(new URL('./summaryHashWorker.js', import.meta.url));
  } catch {
    return null;
  }
  // A verify in progress must not keep the daemon from exiting.
  worker.unref();
  worker.on('message', (answer: HashedBatch) => hashes.hashed(answer));
  for (const event of ['error', 'messageerror', 'exit']) worker.on(event, () => hashes.failed());
  return worker;
}
