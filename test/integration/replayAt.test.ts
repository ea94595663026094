// `recap replay --at` from the nearest snapshot before the moment: the same answer as a replay
// of the whole log, for any moment, by sequence number and by time, on real logs with several
// snapshots; and the snapshots thinned to a bounded spacing.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterEach, describe, expect, it } from 'vitest';
import { projectionAt } from '../../src/daemon/audit.js';
import { EventStore } from '../../src/daemon/eventStore.js';
import { Projection } from '../../src/daemon/projection.js';
import { encodeSnapshot, snapshotBefore } from '../../src/daemon/snapshot.js';
import { HEAD_END, HEAD_PREFIX, SNAPSHOT_END, SNAPSHOT_PREFIX } from '../../src/daemon/logKeys.js';
import { canonicalJson } from '../../src/events/canonical.js';
import type { RecapEvent, StoredEvent } from '../../src/events/events.js';
import { runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recap-replay-at-'));
  dirs.push(dir);
  return join(dir, 'log');
}

const fingerprint = (p: Projection) =>
  canonicalJson({
    lastSeq: p.lastSeq,
    jobs: [...p.jobs.entries()].sort(([a], [b]) => a.localeCompare(b)),
    config: [...p.appliedConfig.entries()].sort(([a], [b]) => a.localeCompare(b)),
    sessions: [...p.sessions.entries()].sort(([a], [b]) => a.localeCompare(b)),
    approved: [...p.approvedConfig.entries()].sort(([a], [b]) => a.localeCompare(b)),
  });

const timeOf = (e: StoredEvent) => (e.data as { time?: number }).time;

/** The slow way, as `recap replay` always did it: every event from the first, up to the moment. */
function fullReplay(events: StoredEvent[], at: { seq?: number; time?: number }): Projection {
  const projection = new Projection();
  for (const event of events) {
    if (at.seq !== undefined && event.seq > at.seq) break;
    const time = timeOf(event);
    if (at.time !== undefined && time !== undefined && time > at.time) break;
    projection.apply(event);
  }
  return projection;
}

/** The snapshot a replay may start from: the newest with no event after the moment folded in. */
function expectedStart(events: StoredEvent[], snapshots: number[], at: { seq?: number; time?: number }): number | undefined {
  const usable = snapshots.filter((s) => {
    if (at.seq !== undefined && s > at.seq) return false;
    return at.time === undefined || events.slice(0, s).every((e) => (timeOf(e) ?? -Infinity) <= at.time!);
  });
  return usable.at(-1);
}

async function readAll(store: EventStore): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const batch of store.readBatches()) events.push(...batch);
  return events;
}

/** Every moment, by seq and by time, answered from a snapshot and by a full replay alike. */
async function expectSameAtEveryMoment(store: EventStore, events: StoredEvent[], snapshots: number[]) {
  const times = [...new Set(events.flatMap((e) => timeOf(e) ?? []))];
  const moments = [
    ...events.map((e) => ({ seq: e.seq })),
    { seq: 0 },
    { seq: events.length + 5 },
    ...times.flatMap((t) => [{ time: t }, { time: t - 1 }, { time: t + 1 }]),
    // Both: the earlier of the two moments.
    ...events.filter((_, i) => i % 3 === 0).map((e) => ({ seq: e.seq, time: timeOf(e)! - 1 })),
  ];
  for (const at of moments) {
    const fast = await projectionAt(store, at);
    expect(fingerprint(fast), JSON.stringify(at)).toBe(fingerprint(fullReplay(events, at)));
    expect((await snapshotBefore(store, at))?.lastSeq, JSON.stringify(at)).toBe(expectedStart(events, snapshots, at));
  }
}

/** A job through its life: prompts, a trip, a denial, a rejection, a summary, more prompts. */
async function activity(box: Sandbox, round: number): Promise<void> {
  await runCli(box, ['record', '--text', prose(15)]);
  await runCli(box, ['record', '--text', prose(15)]);
  await runCli(box, ['check', '--tool', 'Read']);
  await runCli(box, ['submit'], { input: '## User Requests\ntoo short' });
  await runCli(box, ['submit'], { input: goodSummary(undefined, round) });
  await runCli(box, ['record', '--text', prose(2)]);
}

/** The log of a stopped daemon: its events and where its snapshots are. */
async function openLog(box: Sandbox) {
  const store = await EventStore.open(join(box.data, 'log'));
  return { store, events: await readAll(store), snapshots: await store.snapshotSeqs() };
}

describe('recap replay --at from the nearest snapshot', () => {
  it('answers every moment of a real daemon log as a full replay does, by seq and by time', async () => {
    const box = newBox();
    // A snapshot every 3 events, the older ones thinned to one in 6.
    const env = { RECAP_SNAPSHOT_EVERY: '3' };
    const daemon = await start(box, env);
    for (let round = 0; round < 4; round += 1) await activity(box, round);
    // The log also holds the user's config file approved when first seen: one more prompt
    // leaves an event after the last snapshot (taken every 3 events).
    await runCli(box, ['record', '--text', prose(2)]);
    await daemon.stop();

    const { store, events, snapshots } = await openLog(box);
    try {
      expect(snapshots.length).toBeGreaterThanOrEqual(4);
      const moments = events.map((e) => e.seq);
      // Before the first snapshot, exactly at one, between two, after the last: all covered.
      expect(moments.some((s) => s < snapshots[0]!)).toBe(true);
      expect(moments.some((s) => s > snapshots[0]! && s < snapshots[1]! && !snapshots.includes(s))).toBe(true);
      expect(moments.some((s) => s > snapshots.at(-1)!)).toBe(true);
      await expectSameAtEveryMoment(store, events, snapshots);
    } finally {
      await store.close();
    }
  });

  it('answers the same through the daemon as a daemon whose log has no snapshot', async () => {
    const box = newBox();
    const env = { RECAP_SNAPSHOT_EVERY: '3' };
    const first = await start(box, env);
    for (let round = 0; round < 3; round += 1) await activity(box, round);
    await first.stop();
    const { store, events, snapshots } = await openLog(box);
    await store.close();

    // The same log without its snapshots, under a daemon that writes none.
    const bare = newBox();
    cpSync(box.data, bare.data, { recursive: true });
    const db = new Level<Buffer, Buffer>(join(bare.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.clear({ gte: Buffer.from([0xff]) });
    await db.close();
    await start(box, env);
    await start(bare, { RECAP_SNAPSHOT_EVERY: '1000000' });

    const [one, two] = snapshots;
    const time = (seq: number) => new Date(timeOf(events[seq - 1]!)!).toISOString();
    const moments = [`#${one! - 1}`, `#${one}`, `#${one! + 1}`, `#${two}`, `#${events.length}`, time(one! - 1), time(two! + 1), time(events.length - 1)];
    for (const at of moments) {
      const fast = await runCli(box, ['replay', '--at', at, '--json']);
      const slow = await runCli(bare, ['replay', '--at', at, '--json']);
      expect(fast.code, at).toBe(0);
      expect(fast.stdout, at).toBe(slow.stdout);
    }
  });

  it('starts from no snapshot with an event after the moment in it, when the clock went back', async () => {
    // Times 100, 200, ... with a clock set back by 350 after the sixth event; every snapshot kept.
    const store = await EventStore.open(logDir(), { snapshotSpacing: 1 });
    const projection = new Projection();
    for (let i = 1; i <= 30; i += 1) {
      const time = i * 100 - (i > 6 ? 350 : 0);
      const event: RecapEvent = { type: 'ToolDenied', data: { job: `job-${i % 3}`, tool: `T${i}`, cause: 'gate', time } };
      await store.append([event], (numbered) => {
        for (const e of numbered) projection.apply(e);
        return i % 2 === 0 ? encodeSnapshot(projection) : undefined;
      }).durable;
    }
    try {
      const events = await readAll(store);
      const snapshots = await store.snapshotSeqs();
      expect(snapshots.length).toBeGreaterThanOrEqual(3);
      // At 500: the replay stops at the sixth event (600), so the snapshot after event 4 is the last usable.
      expect((await snapshotBefore(store, { time: 500 }))?.lastSeq).toBe(expectedStart(events, snapshots, { time: 500 }));
      await expectSameAtEveryMoment(store, events, snapshots);
    } finally {
      await store.close();
    }
  });
});

describe('snapshot spacing', () => {
  it('keeps the newest two and the first in each window, across a reopen', async () => {
    const path = logDir();
    let store = await EventStore.open(path, { snapshotSpacing: 10 });
    const projection = new Projection();
    const denied = (i: number): RecapEvent => ({ type: 'ToolDenied', data: { job: 'j', tool: `T${i}`, cause: 'gate', time: i } });
    const write = async (from: number, to: number) => {
      // Three events a batch, a snapshot with each, as the daemon writes them.
      for (let i = from; i <= to; i += 3) {
        await store.append([denied(i), denied(i + 1), denied(i + 2)], (numbered) => {
          for (const e of numbered) projection.apply(e);
          return encodeSnapshot(projection);
        }).durable;
      }
    };
    await write(1, 30);
    expect(await store.snapshotSeqs()).toEqual([3, 12, 21, 27, 30]);
    await store.close();

    store = await EventStore.open(path, { snapshotSpacing: 10 });
    // Listed from the disk before the writes, then kept in memory as they add and thin.
    expect(await store.snapshotSeqs()).toEqual([3, 12, 21, 27, 30]);
    await write(31, 60);
    const kept = await store.snapshotSeqs();
    expect(kept).toEqual([3, 12, 21, 30, 42, 51, 57, 60]);
    // Any moment is at most two windows after a kept snapshot.
    for (let i = 1; i < kept.length; i += 1) expect(kept[i]! - kept[i - 1]!).toBeLessThanOrEqual(20);
    await store.close();

    store = await EventStore.open(path, { snapshotSpacing: 10 });
    expect(await store.snapshotSeqs(), 'the list in memory was the disk').toEqual(kept);
    await store.close();
  });

  /** A log of 30 events with a snapshot every 3, spaced by 10: snapshots 3, 12, 21, 27, 30 kept. */
  async function snapshotted(): Promise<string> {
    const path = logDir();
    const store = await EventStore.open(path, { snapshotSpacing: 10 });
    const projection = new Projection();
    for (let i = 1; i <= 30; i += 3) {
      const events: RecapEvent[] = [i, i + 1, i + 2].map((n) => ({ type: 'ToolDenied', data: { job: 'j', tool: `T${n}`, cause: 'gate', time: n } }));
      await store.append(events, (numbered) => {
        for (const e of numbered) projection.apply(e);
        return encodeSnapshot(projection);
      }).durable;
    }
    await store.close();
    return path;
  }
  const editRaw = async (path: string, edit: (db: Level<Buffer, Buffer>) => Promise<void>) => {
    const db = new Level<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await edit(db);
    await db.close();
  };
  const listed = async (path: string) => {
    const store = await EventStore.open(path, { snapshotSpacing: 10 });
    try {
      return await store.snapshotSeqs();
    } finally {
      await store.close();
    }
  };

  it('lists the snapshots from their heads alone, never reading their pieces', async () => {
    const path = await snapshotted();
    let heads = 0;
    // The pieces gone, the heads still say which snapshots were written: the list comes from them.
    await editRaw(path, async (db) => {
      heads = (await db.keys({ gte: HEAD_PREFIX, lt: HEAD_END }).all()).length;
      await db.clear({ gte: SNAPSHOT_PREFIX, lt: SNAPSHOT_END });
    });
    expect(heads).toBe(5);
    expect(await listed(path)).toEqual([3, 12, 21, 27, 30]);
  });

  it('lists a log without heads (or with one unreadable) from its pieces and writes the heads back', async () => {
    const path = await snapshotted();
    await editRaw(path, (db) => db.clear({ gte: HEAD_PREFIX, lt: HEAD_END }));
    expect(await listed(path)).toEqual([3, 12, 21, 27, 30]);
    await editRaw(path, async (db) => {
      const keys = await db.keys({ gte: HEAD_PREFIX, lt: HEAD_END }).all();
      expect(keys).toHaveLength(5);
      await db.put(keys[2]!, Buffer.from('garbage'));
    });
    expect(await listed(path)).toEqual([3, 12, 21, 27, 30]);
    // Written back whole: the pieces can go and the heads still list them.
    await editRaw(path, (db) => db.clear({ gte: SNAPSHOT_PREFIX, lt: SNAPSHOT_END }));
    expect(await listed(path)).toEqual([3, 12, 21, 27, 30]);
  });
});
