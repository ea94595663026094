// The event store hands out each event with its own number, in order, whatever holes the
// log has, wherever a read starts, ends or is cut short (a faster read that counts numbers
// instead of reading keys must keep this); and `recap verify` finds a hole. All of it on a log
// as written, and on the same log once its older events are in packs (eventPacker.ts), where
// reads cross from packs to events with keys of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterEach, describe, expect, it } from 'vitest';
import { storedEventsPage, verifyLog } from '../../src/daemon/audit.js';
import { encodeKey } from '../../src/daemon/codec.js';
import { EventPacker } from '../../src/daemon/eventPacker.js';
import { EventStore } from '../../src/daemon/eventStore.js';
import { Projection } from '../../src/daemon/projection.js';
import type { RecapEvent } from '../../src/events/events.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** More than two read batches (1000 events each) of events. */
const EVENTS = 2600;

const prompt = (i: number): RecapEvent =>
  ({ type: 'InteractionRecorded', data: { job: 'job-1', kind: 'prompt', text: `prompt ${i}`, tokens: 2, counted: true, time: 1_793_491_200_000 + i } }) as RecapEvent;

/** Events per pack when packed: the packs end at 2100 (the newest 256 events are kept out of them), inside a read batch. */
const PACK = 300;

/** A log of EVENTS events with the numbers `holes` taken out of it (as damage would), reopened, and packed with `packed`. */
async function logWithIn(holes: number[], packed: boolean): Promise<EventStore> {
  const parent = mkdtempSync(join(tmpdir(), 'recap-stored-batches-'));
  dirs.push(parent);
  const dir = join(parent, 'log');
  const store = await EventStore.open(dir);
  await store.append(Array.from({ length: EVENTS }, (_, i) => prompt(i + 1))).durable;
  await store.close();
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.batch(holes.map((seq) => ({ type: 'del' as const, key: encodeKey(seq) })));
  await db.close();
  const reopened = await EventStore.open(dir);
  if (packed) {
    const packer = new EventPacker(reopened, PACK);
    await packer.catchUp();
    await packer.stop();
    expect(reopened.packedUpTo).toBe(holes.includes(2100) ? 2099 : 2100);
  }
  return reopened;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Each event read and its number, as the text it was written with says. */
async function read(store: EventStore, from?: number, to?: number, limit?: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const batch of store.readBatches(from, to, limit === undefined ? {} : { limit })) {
    for (const event of batch) {
      expect((event.data as { text: string }).text).toBe(`prompt ${event.seq}`);
      seqs.push(event.seq);
    }
  }
  return seqs;
}

describe.each([
  ['as written', false],
  ['packed', true],
])('stored batches, %s', (_, packed) => {
  const logWith = (holes: number[]) => logWithIn(holes, packed);

  it('hand out every event with its number across read batches, from any start to any end', async () => {
    const store = await logWith([]);
    try {
      expect(await read(store)).toEqual(range(1, EVENTS));
      expect(await read(store, 999, 2001)).toEqual(range(999, 2001));
      expect(await read(store, 1500, undefined, 700)).toEqual(range(1500, 2199));
      expect(await read(store, 1500, undefined, 5000)).toEqual(range(1500, EVENTS));
      expect(await read(store, 2, 3000, 1000)).toEqual(range(2, 1001));
    } finally {
      await store.close();
    }
  });

  it('give each event its own number after a hole, in the first batch, a later one, and at the end', async () => {
    const holes = [1, 500, 501, 1999, ...range(2100, 2350), EVENTS];
    const store = await logWith(holes);
    const kept = range(1, EVENTS).filter((seq) => !holes.includes(seq));
    try {
      expect(await read(store)).toEqual(kept);
      expect(await read(store, 1500, 2400)).toEqual(kept.filter((seq) => seq >= 1500 && seq <= 2400));
      expect(await read(store, 400, undefined, 700)).toEqual(kept.filter((seq) => seq >= 400).slice(0, 700));
    } finally {
      await store.close();
    }
  });

  it('give the events asked for by number, in packs and out, many to a pack, a hole left out', async () => {
    const store = await logWith([500, 2000]);
    // Every tenth number (a snapshot's listing asks for hundreds at once), a hole, the newest ones outside the packs, one asked for twice.
    const asked = [...range(1, 260).map((i) => i * 10), 2000, 2599, 2600, 10];
    try {
      const got = await store.get(asked);
      expect(got.map((event) => event.seq)).toEqual(asked.filter((seq) => seq !== 500 && seq !== 2000));
      for (const event of got) expect((event.data as { text: string }).text).toBe(`prompt ${event.seq}`);
    } finally {
      await store.close();
    }
  });

  it("give export's pages the same numbers after a hole", async () => {
    const store = await logWith([1200]);
    try {
      const page = await storedEventsPage(store, 1100, 2500, {});
      const seqs = page.events.map((line) => line.seq);
      expect(seqs).toEqual(range(1100, EVENTS).filter((seq) => seq !== 1200));
      expect(page.next).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('leave a hole for recap verify to find, numbered as it is', async () => {
    const store = await logWith(range(1200, 1205));
    try {
      const live = new Projection();
      await live.applyBatches(store.readBatches());
      const verified = await verifyLog(store, () => live);
      expect(verified.ok).toBe(false);
      expect(verified.problems).toEqual([{ seq: 1206, what: 'events #1200 to #1205 are missing from the log' }]);
    } finally {
      await store.close();
    }
  });
});
