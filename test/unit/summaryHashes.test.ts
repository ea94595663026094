// recap verify's summary hashes: past the first thousand they go to a worker thread, and a
// worker that cannot start or fails must leave none unchecked. Run from recap's sources, as
// here, the worker's module is TypeScript that Node cannot load, so the worker fails at its
// start: every summary it was sent is hashed in the caller's thread instead. (A worker that
// runs: test/integration/audit.test.ts, through the daemon.)
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

/** Every summary of `entries` through a SummaryHashes, as verify gives them; the mismatches it names. */
async function hashAll(entries: Entry[], mayLoadCode: () => boolean): Promise<{ seq: number; job: string; at: number }[]> {
  const hashes = new SummaryHashes(mayLoadCode);
  for (const [i, entry] of entries.entries()) {
    const bytes = encodeEvent({ seq: i + 1, type: 'SummaryAccepted', version: CURRENT_VERSION.SummaryAccepted, data: entry });
    hashes.add(i + 1, entry, i, { bytes, start: 0, end: bytes.length });
    for (let behind = hashes.room(); behind; behind = hashes.room()) await behind;
  }
  return hashes.mismatches();
}

describe('SummaryHashes', () => {
  const entries = chain(2700, new Set([3, 1200, 2700]));
  const expected = [
    { seq: 3, job: 'job-0', at: 2 },
    { seq: 1200, job: 'job-0', at: 1199 },
    { seq: 2700, job: 'job-0', at: 2699 },
  ];

  it('names every summary that does not match its hash, in order, when the worker cannot run', async () => {
    let asked = 0;
    expect(
      await hashAll(entries, () => {
        asked += 1;
        return true;
      }),
    ).toEqual(expected);
    // Asked once, past the first thousand; the worker it then started failed.
    expect(asked).toBe(1);
  });

  it("hashes every summary itself when recap's code may not be loaded again", async () => {
    expect(await hashAll(entries, () => false)).toEqual(expected);
  });
});
