// `recap verify` compares the live projection with a full replay of the log: a difference in
// any job's state is found, and members kept in another order are no difference (the
// comparison is of canonical JSON, whichever way it is made). On a real log in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/daemon/audit.js';
import { EventStore } from '../../src/daemon/eventStore.js';
import { Projection } from '../../src/daemon/projection.js';
import { entryHash, GENESIS_HASH } from '../../src/events/chain.js';
import type { RecapEvent } from '../../src/events/events.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const TIME = 1_793_491_200_000;
const prompt = (job: string, i: number): RecapEvent =>
  ({ type: 'InteractionRecorded', data: { job, kind: 'prompt', text: `prompt ${i}`, tokens: 2, counted: true, time: TIME + i } }) as RecapEvent;

function summary(job: string, coversThrough: number): RecapEvent {
  const content = {
    job,
    level: 0,
    sections: [{ heading: 'Current State', tokens: 4 }],
    text: 'Gist: the parser\n\n## Current State\nThe parser reports "every" error.',
    tokens: 9,
    coversThrough,
    time: TIME + 100,
  };
  return { type: 'SummaryAccepted', data: { ...content, prevHash: GENESIS_HASH, hash: entryHash(GENESIS_HASH, content) } } as RecapEvent;
}

/** A log of two jobs, each with prompts, a summary and more prompts, and its live projection. */
async function logAndLive(): Promise<{ store: EventStore; live: Projection }> {
  const parent = mkdtempSync(join(tmpdir(), 'recap-verify-compare-'));
  dirs.push(parent);
  const dir = join(parent, 'log');
  const store = await EventStore.open(dir);
  const events = ['job-1', 'job-2'].flatMap((job) => [prompt(job, 1), prompt(job, 2), summary(job, 2), prompt(job, 3)]);
  await store.append(events).durable;
  const live = new Projection();
  await live.applyBatches(store.readBatches());
  return { store, live };
}

describe('recap verify compares the live projection with a full replay', () => {
  it('finds nothing when they are the same, whatever order their members were made in', async () => {
    const { store, live } = await logAndLive();
    try {
      const state = live.jobs.get('job-1')!;
      // The same content, its members in reverse order.
      const reordered = (o: object) => Object.fromEntries(Object.entries(o).reverse());
      live.jobs.set('job-1', reordered({ ...state, chain: state.chain.map(reordered), pending: state.pending.map(reordered) }) as typeof state);
      const verified = await verifyLog(store, () => live);
      expect(verified.problems).toEqual([]);
      expect(verified.ok).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("finds a job's chain, pending interactions or count that differ", async () => {
    const { store, live } = await logAndLive();
    try {
      const one = live.jobs.get('job-1')!;
      live.jobs.set('job-1', { ...one, chain: one.chain.map((entry) => ({ ...entry, gist: `${entry.gist}.` })) });
      const two = live.jobs.get('job-2')!;
      live.jobs.set('job-2', { ...two, pending: two.pending.map((p) => ({ ...p, tokens: p.tokens + 1 })), denials: two.denials + 1 });
      const verified = await verifyLog(store, () => live);
      expect(verified.ok).toBe(false);
      expect(verified.problems).toEqual([
        { job: 'job-1', what: 'the live projection differs from a full replay in chain' },
        { job: 'job-2', what: 'the live projection differs from a full replay in pending, denials' },
      ]);
    } finally {
      await store.close();
    }
  });
});
