// recap verify's summary hashes: past the first thousand they go to a worker thread, and a
// worker that cannot start or fails must leave none unchecked. Run from recap's sources, as
// here, the worker's module is TypeScript that Node cannot load, so the worker fails at its
// start: every summary after the thousandth is read again and hashed in the caller's thread.
import { describe, expect, it } from 'vitest';
import { encodeEvent } from '../../src/daemon/codec.js';
import { SummaryHashes } from '../../src/daemon/summaryHashes.js';
import { entryHash, GENESIS_HASH } from '../../src/events/chain.js';
import { CURRENT_VERSION, type SummaryAccepted } from '../../src/events/events.js';

type Entry = SummaryAccepted['data'];

/** `count` chained summaries; those at `changed` altered after they were hashed. */
function chain(count: number, changed: Set<number>): Entry[] {
  const entries: Entry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq += 1) {
    const content = {
      job: `job-${seq % 3}`,
      level: 0,
      sections: [{ heading: 'Current State', tokens: 3 }],
      text: `Gist: round ${seq}\n\n## Current State\nround ${seq}`,
      tokens: 9,
      coversThrough: seq - 1,
      time: seq,
    };
    const hash = entryHash(prevHash, content);
    entries.push({ ...content, text: changed.has(seq) ? content.text.toUpperCase() : content.text, prevHash, hash });
    prevHash = hash;
  }
  return entries;
}

describe('SummaryHashes', () => {
  it('names every summary that does not match its hash, in order, when the worker cannot run', async () => {
    const entries = chain(1500, new Set([3, 1200, 1499]));
    const reread: number[] = [];
    const hashes = new SummaryHashes(async (seqs) => {
      reread.push(...seqs);
      return seqs.map((seq) => entries[seq - 1]!);
    });
    for (const [i, entry] of entries.entries()) {
      const bytes = encodeEvent({ seq: i + 1, type: 'SummaryAccepted', version: CURRENT_VERSION.SummaryAccepted, data: entry });
      hashes.add(i + 1, entry, bytes, 0, bytes.length);
      await hashes.room();
    }
    expect(await hashes.mismatches()).toEqual([
      { seq: 3, job: 'job-0' },
      { seq: 1200, job: 'job-0' },
      { seq: 1499, job: 'job-2' },
    ]);
    // The first thousand were hashed at once; the rest were left to a worker, which failed.
    expect(reread.length).toBeGreaterThan(0);
    expect(Math.min(...reread)).toBeGreaterThan(1000);
  });
});
