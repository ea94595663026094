// The worker thread `recap verify` hashes accepted summaries on (summaryHashes.ts): a batch
// of summaries as stored in, the positions of those whose content does not give their
// stored hash out, with the batch's buffer handed back. It decodes them as the log's reader
// does, so they cost the reader only a copy of their bytes.
import { parentPort } from 'node:worker_threads';
import { recomputeHash } from '../events/chain.js';
import { upcast } from '../events/upcast.js';
import { decodeEventAt } from './codec.js';

/** Summaries as stored: entry i is `bytes` from `ends[i - 1]` (0 for the first) to `ends[i]`. */
export type HashBatch = { id: number; seqs: number[]; bytes: Uint8Array<ArrayBuffer>; ends: number[] };
export type HashedBatch = { id: number; mismatched: number[]; bytes: Uint8Array<ArrayBuffer> };

// A batch that cannot be read ends the worker: the daemon then hashes what it had not answered for.
parentPort?.on('messageerror', () => process.exit(1));
parentPort?.on('message', ({ id, seqs, bytes, ends }: HashBatch) => {
  const mismatched: number[] = [];
  for (let i = 0; i < seqs.length; i += 1) {
    const event = upcast(decodeEventAt(seqs[i]!, bytes, i === 0 ? 0 : ends[i - 1]!, ends[i]!));
    // Only accepted summaries are sent: anything else matches no summary's hash.
    if (event.type !== 'SummaryAccepted' || recomputeHash(event.data) !== event.data.hash) mismatched.push(i);
  }
  parentPort!.postMessage({ id, mismatched, bytes } satisfies HashedBatch, [bytes.buffer]);
});
