// Packs of events (eventPacks.ts) on a real daemon with a real LevelDB: a log written with
// each event under a key of its own is packed in the background once the daemon starts with
// small packs, and then reads as before: `recap export` byte for byte, `recap log`, `recap
// replay --at` a moment inside a pack; `recap verify` passes, and still finds a changed byte
// inside a packed event and an event missing from a pack; a restart on the packed log goes on
// numbering after its last event; a redaction of a packed event leaves no trace in the files;
// a range of large events goes into several packs of a bounded size, read as before; the
// larger packs an older recap wrote are split at the daemon's start.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { pack, unpack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePack, encodePack, PACK_BYTES, replaced, valueAt } from '../../src/daemon/eventPacks.js';
import { BOUNDED_KEY, boundedOf, PACK_END, PACK_PREFIX, packRange } from '../../src/daemon/logKeys.js';
import { packedByOlderRecap } from '../helpers/olderPacks.js';
import { type DaemonProcess, runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** Packs of 8 events, the newest 8 kept out of them; a size no log here reaches packs nothing. */
const SMALL = { RECAP_PACK_EVENTS: '8' };
const NEVER = { RECAP_PACK_EVENTS: '1000000' };
const SECRET = 'quokkafluxion';

async function cli(box: Sandbox, args: string[], input?: string): Promise<string> {
  const run = await runCli(box, args, input === undefined ? {} : { input });
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

const recorded = async (box: Sandbox, text: string) => (JSON.parse(await cli(box, ['record', '--json', '--text', text])) as { seq: number }).seq;

/**
 * Rounds of prompts and summaries written unpacked, the daemon left running (a command with
 * none would start one); resolves to the log's last number, the prompt that holds SECRET and the first summary.
 */
async function unpackedLog(box: Sandbox): Promise<{ daemon: DaemonProcess; last: number; secret: number; summary: number }> {
  const daemon = await start(box, NEVER);
  const secret = await recorded(box, `${prose(3)} Keep the ${SECRET} token out of it.`);
  for (let round = 0; round < 4; round += 1) {
    for (let i = 0; i < 6; i += 1) await recorded(box, prose(4));
    await cli(box, ['submit'], goodSummary(undefined, round));
  }
  const last = await recorded(box, prose(1));
  const [summary] = (JSON.parse(await cli(box, ['chain', '--json'])) as { entries: { seq: number }[] }).entries.map((e) => e.seq);
  return { daemon, last, secret, summary: summary! };
}

/** Starts the daemon with small packs and resolves once it has packed what it may: all but the newest 8 events, to a pack's end. */
async function packed(box: Sandbox, last: number): Promise<DaemonProcess> {
  const daemon = await start(box, SMALL);
  const through = Math.floor((last - 8) / 8) * 8;
  await daemon.waitForLog((line) => line.msg === 'events packed' && Number(line.packedThrough) >= through);
  return daemon;
}

/** Every pack in the log: its key, its size and its events. */
async function packsOf(db: Level<Buffer, Buffer>) {
  const entries = await db.iterator({ gte: PACK_PREFIX, lt: PACK_END }).all();
  return entries.map(([key, value]) => ({ key, bytes: value.length, ...packRange(key)!, run: decodePack(value, packRange(key)!.first, packRange(key)!.last) }));
}

/** Changes the packed event `seq` with `edit` (its decoded map; `undefined` takes it out of its pack), while the daemon is stopped. */
async function editPacked(box: Sandbox, seq: number, edit: (event: { type: string; data: Record<string, unknown> }) => unknown): Promise<void> {
  const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const holding = (await packsOf(db)).find((p) => p.run.seqs.includes(seq))!;
  const at = holding.run.seqs.indexOf(seq);
  const changed = edit(unpack(valueAt(holding.run, at)) as { type: string; data: Record<string, unknown> });
  const others = holding.run.seqs.filter((s) => s !== seq);
  const run = replaced(
    changed === undefined ? { seqs: [], bytes: [], starts: [], ends: [] } : holding.run,
    new Map(changed === undefined ? others.map((s) => [s, valueAt(holding.run, holding.run.seqs.indexOf(s))]) : [[seq, pack(changed)]]),
  );
  await db.put(holding.key, encodePack(run));
  await db.close();
}

/** Prompts of about 20 KB each: a range of 8 of them is over twice PACK_BYTES. */
const large = (i: number) => `${i}: ${prose(Math.ceil(20_000 / prose(1).length))}`;

describe('packs of events', () => {
  it('read as the events did: export byte for byte, log, replay --at inside a pack, verify; a restart numbers on after the last event', async () => {
    const box = newBox();
    const { daemon: unpacked, last, summary: firstSummary } = await unpackedLog(box);
    const before = { exported: await cli(box, ['export']), log: await cli(box, ['log', '--json']), replay: await cli(box, ['replay', '--at', String(firstSummary), '--json']) };
    await unpacked.stop();
    const daemon = await packed(box, last);

    await daemon.stop();
    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const packs = await packsOf(db);
    const ownKeys = (await db.keys({ lt: PACK_PREFIX }).all()).filter((key) => key.length === 8);
    await db.close();
    expect(packs.at(-1)!.last).toBe(Math.floor((last - 8) / 8) * 8);
    expect(packs.some((p) => p.run.seqs.includes(firstSummary))).toBe(true);
    expect(ownKeys.length).toBeLessThan(16);

    await start(box, SMALL);
    expect(await cli(box, ['export'])).toBe(before.exported);
    expect(await cli(box, ['log', '--json'])).toBe(before.log);
    expect(await cli(box, ['replay', '--at', String(firstSummary), '--json'])).toBe(before.replay);
    expect(await cli(box, ['verify'])).toMatch(/^intact: /);
    expect((JSON.parse(await cli(box, ['record', '--json', '--text', prose(1)])) as { seq: number }).seq).toBe(last + 1);
  });

  it('packs as the log grows, not only at start-up, and reads every event back after it', async () => {
    const box = newBox();
    const daemon = await start(box, SMALL);
    const seqs: number[] = [];
    for (let i = 0; i < 30; i += 1) seqs.push(await recorded(box, prose(1)));
    const last = seqs.at(-1)!;
    const packedThrough = Math.floor((last - 8) / 8) * 8;
    expect(packedThrough).toBeGreaterThan(seqs[0]!);
    await daemon.waitForLog((line) => line.msg === 'events packed' && Number(line.packedThrough) >= packedThrough);
    const logged = (await cli(box, ['log', '--json']))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { seq: number }).seq);
    expect(logged.slice(0, last)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  });

  it('verify finds a changed byte inside a packed summary; the log reads again once it is put back', async () => {
    const box = newBox();
    const { daemon, last, summary: firstSummary } = await unpackedLog(box);
    await daemon.stop();
    await (await packed(box, last)).stop();
    let original: unknown;
    await editPacked(box, firstSummary, (event) => {
      original = structuredClone(event);
      return { ...event, data: { ...event.data, text: String(event.data.text).replace('parser', 'PARSER') } };
    });
    const tampered = await start(box, SMALL);
    const broken = await runCli(box, ['verify']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(new RegExp(`#${firstSummary}: the summary does not match its hash`));
    await tampered.stop();
    await editPacked(box, firstSummary, () => original);
    await start(box, SMALL);
    expect(await cli(box, ['verify'])).toMatch(/^intact: /);
  });

  it('verify finds an event missing from a pack', async () => {
    const box = newBox();
    const { daemon, last } = await unpackedLog(box);
    await daemon.stop();
    await (await packed(box, last)).stop();
    await editPacked(box, 5, () => undefined);
    await start(box, SMALL);
    const broken = await runCli(box, ['verify', '--json']);
    expect(broken.code).toBe(2);
    expect((JSON.parse(broken.stdout) as { problems: unknown[] }).problems).toContainEqual({ seq: 6, what: 'events #5 to #5 are missing from the log' });
  });

  it('a redaction of a packed prompt rewrites its pack: the words leave every file, and verify passes', async () => {
    const box = newBox();
    const { daemon, last, secret } = await unpackedLog(box);
    await daemon.stop();
    await packed(box, last);
    const files = () =>
      readdirSync(box.data, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .filter((d) => readFileSync(join(d.parentPath, d.name)).includes(Buffer.from(SECRET)));
    expect(files().length).toBeGreaterThan(0);
    await cli(box, ['redact', String(secret), '--yes']);
    expect(await cli(box, ['event', String(secret)])).not.toContain(SECRET);
    expect(await cli(box, ['export'])).not.toContain(SECRET);
    expect(files()).toEqual([]);
    expect(await cli(box, ['verify'])).toMatch(new RegExp(`redacted: interaction #${secret} of job`));
  });

  it('puts a range of large events in several packs of at most PACK_BYTES, which read as the events did', async () => {
    const box = newBox();
    const unpacked = await start(box, NEVER);
    const seqs: number[] = [];
    for (let i = 0; i < 30; i += 1) seqs.push(await recorded(box, i === 9 ? `${large(i)} ${SECRET}` : large(i)));
    const last = seqs.at(-1)!;
    const before = { exported: await cli(box, ['export']), event: await cli(box, ['event', String(seqs[12]), '--json']) };
    await unpacked.stop();
    await (await packed(box, last)).stop();

    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const packs = await packsOf(db);
    await db.close();
    const ranges = new Set(packs.map((p) => Math.ceil(p.first / 8)));
    expect(packs.length).toBeGreaterThan(ranges.size);
    for (const p of packs) expect(p.bytes).toBeLessThanOrEqual(PACK_BYTES);
    expect(packs.flatMap((p) => p.run.seqs)).toEqual(Array.from({ length: packs.at(-1)!.last }, (_, i) => i + 1));

    await start(box, SMALL);
    expect(await cli(box, ['export'])).toBe(before.exported);
    expect(await cli(box, ['event', String(seqs[12]), '--json'])).toBe(before.event);
    expect(await cli(box, ['verify'])).toMatch(/^intact: /);
    await cli(box, ['redact', String(seqs[9]), '--yes']);
    expect(await cli(box, ['export'])).not.toContain(SECRET);
    expect(await cli(box, ['verify'])).toMatch(new RegExp(`redacted: interaction #${seqs[9]} of job`));
  });

  it("splits the packs an older recap wrote over PACK_BYTES at the daemon's start; they read as before, and the next start checks only newer packs", async () => {
    const box = newBox();
    const unpacked = await start(box, NEVER);
    const seqs: number[] = [];
    for (let i = 0; i < 30; i += 1) seqs.push(await recorded(box, large(i)));
    const before = { exported: await cli(box, ['export']), event: await cli(box, ['event', String(seqs[12]), '--json']) };
    await unpacked.stop();
    const older = await packedByOlderRecap(join(box.data, 'log'), 24);
    expect(older.every((bytes) => bytes > PACK_BYTES)).toBe(true);

    const daemon = await start(box, SMALL);
    const told = await daemon.waitForLog((line) => line.msg === 'older packs split');
    expect(told.packsSplit).toBe(older.length);
    expect(await cli(box, ['export'])).toBe(before.exported);
    expect(await cli(box, ['event', String(seqs[12]), '--json'])).toBe(before.event);
    expect(await cli(box, ['verify'])).toMatch(/^intact: /);
    await daemon.stop();

    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const packs = await packsOf(db);
    const checked = boundedOf(await db.get(BOUNDED_KEY));
    await db.close();
    for (const p of packs) expect(p.bytes <= PACK_BYTES || p.run.seqs.length === 1).toBe(true);
    expect(packs.flatMap((p) => p.run.seqs)).toEqual(Array.from({ length: packs.at(-1)!.last }, (_, i) => i + 1));
    expect(checked).toBe(packs.at(-1)!.last);
  });
});
