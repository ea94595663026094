// The event store on a real LevelDB in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecapEvent } from '../../src/events/events.js';
import { Level } from 'level';
import { EventPacker } from '../../src/daemon/eventPacker.js';
import { EventStore, LogLocked, LogTooNew } from '../../src/daemon/eventStore.js';
import { PACK_BYTES } from '../../src/daemon/eventPacks.js';
import { BOUNDED_KEY, boundedOf, FORMAT_KEY, PACK_END, PACK_PREFIX, packKey } from '../../src/daemon/logKeys.js';
import { packedByOlderRecap } from '../helpers/olderPacks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'recap-store-'));
  dirs.push(dir);
  return join(dir, 'log');
}

const denied = (i: number): RecapEvent => ({ type: 'ToolDenied', data: { job: 'j', tool: `T${i}`, cause: 'gate', time: i } });
/** A denial of a 20 KB tool name: a pack of 8 of them is over twice PACK_BYTES. */
const largeDenied = (i: number): RecapEvent => ({ type: 'ToolDenied', data: { job: 'j', tool: `${i}${'t'.repeat(20_000)}`, cause: 'gate', time: i } });

async function readAll(store: EventStore) {
  const events = [];
  for await (const event of store.read()) events.push(event);
  return events;
}

describe('EventStore', () => {
  it('numbers events at once, in order, and keeps them across a reopen', async () => {
    const path = logDir();
    const store = await EventStore.open(path);
    const first = store.append([denied(1), denied(2)]);
    const second = store.append([denied(3)]);
    expect(first.stored.map((e) => e.seq)).toEqual([1, 2]);
    expect(second.stored.map((e) => e.seq)).toEqual([3]);
    await Promise.all([first.durable, second.durable]);
    await store.close();

    const reopened = await EventStore.open(path);
    expect(reopened.lastSeq).toBe(3);
    expect((await readAll(reopened)).map((e) => [e.seq, e.type, e.version, e.data])).toEqual([
      [1, 'ToolDenied', 2, denied(1).data],
      [2, 'ToolDenied', 2, denied(2).data],
      [3, 'ToolDenied', 2, denied(3).data],
    ]);
    expect(reopened.append([denied(4)]).stored[0]!.seq).toBe(4);
    await reopened.close();
  });

  it('writes commands that arrive together in one synced batch (group commit)', async () => {
    const store = await EventStore.open(logDir());
    const appended = Array.from({ length: 64 }, (_, i) => store.append([denied(i)]));
    await Promise.all(appended.map((a) => a.durable));
    expect(store.syncs).toBe(1);

    // While a batch is being synced, the commands that arrive wait and share the next one.
    const first = store.append([denied(100)]);
    const during = await new Promise<ReturnType<EventStore['append']>[]>((resolve) =>
      setImmediate(() => setImmediate(() => resolve(Array.from({ length: 32 }, (_, i) => store.append([denied(200 + i)]))))),
    );
    await Promise.all([first.durable, ...during.map((a) => a.durable)]);
    expect(store.syncs).toBeLessThanOrEqual(3);
    expect((await readAll(store)).length).toBe(97);
    await store.close();
  });

  it('marks a packed log with its format, and refuses one of a newer format than it knows, saying to upgrade', async () => {
    const path = logDir();
    const store = await EventStore.open(path);
    await store.append(Array.from({ length: 40 }, (_, i) => denied(i))).durable;
    const packer = new EventPacker(store, 10);
    await packer.catchUp();
    await packer.stop();
    expect(store.packedUpTo).toBe(30);
    await store.close();
    const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    expect([...(await db.get(FORMAT_KEY))!]).toEqual([0, 0, 0, 2]);
    // Packed by this recap, within PACK_BYTES from the first: no later start reads them to check.
    expect(boundedOf(await db.get(BOUNDED_KEY))).toBe(30);
    await db.put(FORMAT_KEY, Uint8Array.from([0, 0, 0, 3]));
    await db.close();
    const refused = EventStore.open(path);
    await expect(refused).rejects.toBeInstanceOf(LogTooNew);
    await expect(refused).rejects.toThrow(`the event log at ${path} was written by a newer recap (log format 3; this recap reads up to 2): upgrade recap`);
  });

  it('refuses a second opener of the same log with the path in the message', async () => {
    const path = logDir();
    const store = await EventStore.open(path);
    await expect(EventStore.open(path)).rejects.toThrow(new LogLocked(path).message);
    await store.close();
  });

  it('fails every waiting command when a write fails, and says so', async () => {
    const store = await EventStore.open(logDir());
    await store.append([denied(1)]).durable;
    const failures: Error[] = [];
    store.on('failed', (error) => failures.push(error));
    await (store as unknown as { db: { close(): Promise<void> } }).db.close();
    const a = store.append([denied(2)]);
    const b = store.append([denied(3)]);
    await expect(a.durable).rejects.toThrow();
    await expect(b.durable).rejects.toThrow();
    expect(failures).toHaveLength(1);
  });

  it("splits an older recap's large packs a pack at a time, reads every event meanwhile, and leaves a damaged pack as it is", async () => {
    const path = logDir();
    const first = await EventStore.open(path);
    await first.append(Array.from({ length: 40 }, (_, i) => largeDenied(i))).durable;
    const before = await readAll(first);
    await first.close();
    const older = await packedByOlderRecap(path, 40, { damaged: 20 });

    const store = await EventStore.open(path);
    const pass = store.boundPacks(() => false);
    // Reads and writes go on while it runs: each split is one batch in the write queue.
    const during = await Promise.all([store.get([3, 12, 33]), store.append([denied(41)]).durable]);
    expect(await pass).toBe(older.length - 1);
    expect(during[0]).toEqual([before[2], before[11], before[32]]);
    const outside = before.filter((e) => e.seq < 17 || e.seq > 24).map((e) => e.seq);
    expect(await store.get(outside)).toEqual(before.filter((e) => outside.includes(e.seq)));
    // A second pass finds nothing left to split.
    expect(await store.boundPacks(() => false)).toBe(0);
    await store.close();

    const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    const packs = await db.iterator({ gte: PACK_PREFIX, lt: PACK_END }).all();
    const damaged = await db.get(packKey(17, 24));
    const checked = boundedOf(await db.get(BOUNDED_KEY));
    await db.close();
    expect(damaged?.length).toBe(older[2]);
    expect(packs.filter(([, value]) => value.length > PACK_BYTES)).toHaveLength(1);
    expect(packs.length).toBeGreaterThan(older.length * 2);
    expect(checked).toBe(40);
  });

  it('stops splitting when told to, and says nothing is checked it did not check', async () => {
    const path = logDir();
    const first = await EventStore.open(path);
    await first.append(Array.from({ length: 16 }, (_, i) => largeDenied(i))).durable;
    await first.close();
    await packedByOlderRecap(path, 16);
    const store = await EventStore.open(path);
    expect(await store.boundPacks(() => true)).toBe(0);
    await store.close();
    const db = new Level<Uint8Array, Uint8Array>(path, { keyEncoding: 'view', valueEncoding: 'view' });
    expect(await db.get(BOUNDED_KEY)).toBeUndefined();
    await db.close();
  });
});
