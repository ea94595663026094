// `recap verify`'s check of each accepted summary against its hash. Making a summary's
// canonical JSON and hashing it is a third of a verify's work on a log with many summaries,
// so past the first thousand they are hashed on a worker thread (summaryHashWorker.ts), on
// the second core, while this one reads and replays the log: the worker is sent their stored
// bytes, a copy, in buffers it hands back for the next batches. It loads recap's code after
// the daemon's start, so that code is checked against its manifest again first; a changed
// install or a worker that cannot start leaves the hashing here, and the summaries a worker
// that failed had not answered for are read again and hashed here.
import { Worker } from 'node:worker_threads';
import { checkInstalledCodeNow } from '../common/codeManifest.js';
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

/** A summary whose content does not give its stored hash. */
export type Mismatch = { seq: number; job: string };

export class SummaryHashes {
  private seen = 0;
  /** The worker; null once hashing stays here (the code changed, or the worker failed). */
  private worker: Worker | null | undefined;
  /** The batch being filled: its summaries' sequence numbers and jobs, and their stored bytes one after another. */
  private batch = emptyBatch();
  private nextId = 0;
  /** The batches sent and not yet answered for, by id. */
  private readonly inFlight = new Map<number, { seqs: number[]; jobs: string[] }>();
  /** Buffers the worker handed back. */
  private readonly spare: Uint8Array<ArrayBuffer>[] = [];
  /** Summaries a failed worker had not answered for: read again and hashed here at the end. */
  private orphans: number[] = [];
  private readonly found: Mismatch[] = [];
  /** Resolved when the worker answers or fails: what waits for room, or for the last answer. */
  private answered: (() => void) | undefined;

  /** `reread`: the summaries with these sequence numbers, read from the log again (undefined for one no longer there). */
  constructor(private readonly reread: (seqs: number[]) => Promise<(Entry | undefined)[]>) {}

  /** Checks accepted summary `seq` (one not redacted), stored in `bytes` from `start` to `end`: here, or in a batch for the worker. */
  add(seq: number, entry: Entry, bytes: Uint8Array, start: number, end: number): void {
    this.seen += 1;
    if (this.worker === undefined && this.seen > HERE_UP_TO) this.worker = startWorker(this);
    if (!this.worker) {
      this.check(seq, entry);
      return;
    }
    const batch = this.batch;
    const used = batch.ends.length > 0 ? batch.ends[batch.ends.length - 1]! : 0;
    if (batch.bytes.length < used + end - start) batch.bytes = this.larger(batch.bytes, used, used + end - start);
    batch.bytes.set(bytes.subarray(start, end), used);
    batch.seqs.push(seq);
    batch.jobs.push(entry.job);
    batch.ends.push(used + end - start);
    if (batch.seqs.length >= BATCH) this.send();
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
    if (this.orphans.length > 0) {
      const seqs = this.orphans;
      this.orphans = [];
      const entries = await this.reread(seqs);
      // Gone or redacted meanwhile (`recap redact` rewrites its event): no content left to hash, as add() is never given.
      for (let i = 0; i < seqs.length; i += 1) {
        const entry = entries[i];
        if (entry !== undefined && entry.redacted !== true) this.check(seqs[i]!, entry);
      }
    }
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
    for (const i of mismatched) this.found.push({ seq: batch.seqs[i]!, job: batch.jobs[i]! });
    this.spare.push(bytes);
    this.wake();
  }

  /** The worker could not start or stopped: what it had not answered for is left to the end. */
  failed(): void {
    if (this.worker === null) return;
    this.worker = null;
    for (const { seqs } of this.inFlight.values()) this.orphans.push(...seqs);
    this.inFlight.clear();
    this.orphans.push(...this.batch.seqs);
    this.batch = emptyBatch();
    this.wake();
  }

  private send(): void {
    const { seqs, jobs, bytes, ends } = this.batch;
    if (seqs.length === 0) return;
    const id = (this.nextId += 1);
    this.inFlight.set(id, { seqs, jobs });
    this.worker!.postMessage({ id, seqs, bytes, ends } satisfies HashBatch, [bytes.buffer]);
    this.batch = emptyBatch();
  }

  private check(seq: number, entry: Entry): void {
    if (recomputeHash(entry) !== entry.hash) this.found.push({ seq, job: entry.job });
  }

  /** A buffer of at least `needed` bytes holding the `used` of `bytes`: one handed back if large enough. */
  private larger(bytes: Uint8Array<ArrayBuffer>, used: number, needed: number): Uint8Array<ArrayBuffer> {
    const spare = this.spare.pop();
    const out = spare && spare.length >= needed ? spare : new Uint8Array(Math.max(needed, bytes.length * 2, 1 << 20));
    out.set(bytes.subarray(0, used));
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

const emptyBatch = () => ({ seqs: [] as number[], jobs: [] as string[], bytes: new Uint8Array(0), ends: [] as number[] });

/** The worker for `hashes`, or null when recap's code no longer matches its manifest or no worker starts. */
function startWorker(hashes: SummaryHashes): Worker | null {
  if (checkInstalledCodeNow().state === 'changed') return null;
  let worker: Worker;
  try {
    worker = new Worker(new URL('./summaryHashWorker.js', import.meta.url));
  } catch {
    return null;
  }
  // A verify in progress must not keep the daemon from exiting.
  worker.unref();
  worker.on('message', (answer: HashedBatch) => hashes.hashed(answer));
  worker.on('error', () => hashes.failed());
  worker.on('exit', () => hashes.failed());
  return worker;
}
