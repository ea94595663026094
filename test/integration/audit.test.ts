// The audit trail on a real log made by the real daemon: log, replay, verify (and
// tampering caught), export and import (byte-identical round trip), snapshots, old versions.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { pack, unpack } from 'msgpackr';
import { afterEach, describe, expect, it } from 'vitest';
import { RECAP, RawClient, runCli, type Sandbox, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { entryHash, GENESIS_HASH, type ChainContent } from '../../src/events/chain.js';
import { exportEnd, exportHeader } from '../../src/protocol/exportFormat.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** A job through its life: prompts, a trip, a denial, a rejection, a summary, more prompts. */
async function activity(box: Sandbox): Promise<void> {
  await runCli(box, ['record', '--text', prose(15)]);
  await runCli(box, ['record', '--text', prose(15)]);
  await runCli(box, ['check', '--tool', 'Read']);
  await runCli(box, ['submit'], { input: '## User Requests\ntoo short' });
  await runCli(box, ['submit'], { input: goodSummary() });
  await runCli(box, ['record', '--text', prose(2)]);
}

type Line = { seq: number; type: string; version: number; time: string; data: Record<string, unknown> };
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);

/** A stored event as the log holds it, of whatever version (the test writes old ones too). */
type RawEvent = { type: string; version: number; data: Record<string, unknown> };

/** Rewrites stored events offline, as another program could while the daemon is stopped. */
async function editLog(box: Sandbox, edit: (db: Level<Buffer, Buffer>, events: [Buffer, RawEvent][]) => Promise<void>): Promise<void> {
  const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const entries = (await db.iterator().all()).filter(([key]) => key.length === 8);
  await edit(
    db,
    entries.map(([key, value]) => [key, unpack(value)]),
  );
  await db.close();
}

describe('recap log', () => {
  it('prints the timeline readably and as JSON Lines, filtered by type, job and time', async () => {
    const box = newBox();
    await start(box);
    const before = new Date().toISOString();
    await activity(box);
    await runCli(box, ['record', '--text', 'another job', '--job', 'other']);

    const human = (await runCli(box, ['log'])).stdout.trim().split('\n');
    // Local time with its offset; --json keeps UTC.
    expect(human.some((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d  #\d+  \S+  GateTripped  threshold: \d+ unsummarized, limit 500$/.test(l))).toBe(true);
    expect(human.some((l) => /  SummaryAccepted  level 0, \d+ tokens, through #\d+, [0-9a-f]{12}$/.test(l))).toBe(true);

    const all = jsonLines((await runCli(box, ['log', '--json'])).stdout);
    expect(all.map((l) => l.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all.every((l) => typeof l.version === 'number' && !Number.isNaN(Date.parse(l.time)))).toBe(true);

    const trips = jsonLines((await runCli(box, ['log', '--json', '--type', 'GateTripped', 'ToolDenied'])).stdout);
    expect(trips.map((l) => l.type)).toEqual(['GateTripped', 'ToolDenied']);
    expect(trips[1]!.data).toMatchObject({ tool: 'Read', cause: 'gate' });

    const other = jsonLines((await runCli(box, ['log', '--json', '--job', 'other'])).stdout);
    expect(other.map((l) => l.type)).toEqual(['InteractionRecorded']);

    const since = jsonLines((await runCli(box, ['log', '--json', '--since', before])).stdout);
    // Before it: the user's config, first seen (ConfigApproved) and applied (ConfigApplied).
    expect(since.length).toBe(all.length - 2);
    expect((await runCli(box, ['log', '--json', '--until', before])).stdout.trim().split('\n')).toHaveLength(2);
    const bad = await runCli(box, ['log', '--since', 'yesterday-ish']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--since: cannot read the time "yesterday-ish"');
  });

  it('is served in pages, so a long log is never held whole', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    for (let i = 0; i < 300; i += 1) client.send({ id: i, op: 'record', job: 'paged', kind: 'tool', text: `output ${i}` });
    await client.received(300);
    const page = await client.request({ id: 'p', op: 'events', fromSeq: 1, limit: 100 });
    const result = page.result as { events: Line[]; next: number };
    expect(result.events).toHaveLength(100);
    expect(result.next).toBe(101);
    client.close();
    const lines = jsonLines((await runCli(box, ['log', '--json'])).stdout);
    expect(lines.filter((l) => l.type !== 'InteractionRecorded').map((l) => l.type)).toEqual(['ConfigApproved', 'ConfigApplied']);
    expect(lines).toHaveLength(302);
  });
});

describe('recap replay', () => {
  it('shows the gate and the chain as they were at a sequence number or a time', async () => {
    const box = newBox();
    await start(box);
    await activity(box);
    const events = jsonLines((await runCli(box, ['log', '--json'])).stdout);
    const tripped = events.find((l) => l.type === 'GateTripped')!;
    const accepted = events.find((l) => l.type === 'SummaryAccepted')!;

    const beforeTrip = JSON.parse((await runCli(box, ['replay', '--at', String(tripped.seq - 1), '--json'])).stdout);
    expect(beforeTrip.jobs[0]).toMatchObject({ tripped: false, summaries: 0 });

    const atTrip = await runCli(box, ['replay', '--at', `#${accepted.seq - 1}`]);
    expect(atTrip.stdout).toMatch(/gate TRIPPED since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d: \d+ unsummarized tokens reached the threshold of 500/);
    expect(atTrip.stdout).toContain('1 tool call denied; 1 summary rejected');

    const byTime = JSON.parse((await runCli(box, ['replay', '--at', accepted.time, '--json'])).stdout);
    expect(byTime.seq).toBeGreaterThanOrEqual(accepted.seq);
    expect(byTime.jobs[0]).toMatchObject({ tripped: false, summaries: 1, lastSummary: { hash: accepted.data.hash } });
  });
});

describe('recap verify', () => {
  it('says the log is intact and exits 0', async () => {
    const box = newBox();
    await start(box);
    await activity(box);
    const result = await runCli(box, ['verify']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^intact: \d+ events, 1 summary in 1 job$/m);
    expect(result.stderr).toBe('');
  });

  it('follows each topic on its own chain: summaries on the main chain and on topics verify intact', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const job = 'topics';
    let id = 0;
    for (const [round, topic] of [undefined, 'auth', undefined, 'auth', 'parser'].entries()) {
      await client.request({ id: (id += 1), op: 'record', job, kind: 'prompt', text: prose(15) });
      const answer = await client.request({ id: (id += 1), op: 'submit', job, text: goodSummary(undefined, round), ...(topic ? { topic } : {}) });
      expect(answer).toMatchObject({ result: { accepted: true } });
    }
    client.close();
    const result = await runCli(box, ['verify']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^intact: \d+ events, 5 summaries in 1 job$/m);
    expect(result.code).toBe(0);
  });

  it('stays intact when texts arrive with lone surrogate escapes (stored, hashed and shown as U+FFFD)', async () => {
    const box = newBox();
    await start(box);
    const client = await RawClient.connect(box.socket);
    const lone = (text: string) => text.replace('parser', 'parser \ud800 \udfff');
    expect(JSON.stringify(lone('parser'))).toContain('\\ud800');
    const job = 'surrogates';
    expect(await client.request({ id: 1, op: 'record', job, kind: 'prompt', text: lone(`the parser ${prose(15)}`) })).toHaveProperty('result');
    expect(await client.request({ id: 2, op: 'submit', job, text: lone(goodSummary()) })).toMatchObject({ result: { accepted: true } });
    client.close();
    const result = await runCli(box, ['verify']);
    expect(result.stdout).toMatch(/^intact: /m);
    expect(result.code).toBe(0);
    const chain = JSON.parse((await runCli(box, ['chain', '--job', job, '--json'])).stdout) as { entries: { text: string }[] };
    expect(chain.entries[0]!.text).toContain('parser \ufffd \ufffd');
  });

  it('catches a summary whose text was changed in LevelDB while the daemon was stopped', async () => {
    const box = newBox();
    const daemon = await start(box);
    await activity(box);
    await daemon.stop();
    let tamperedSeq = 0;
    await editLog(box, async (db, events) => {
      const [key, event] = events.find(([, e]) => e.type === 'SummaryAccepted')!;
      event.data.text = String(event.data.text).replace('parser', 'PARSER');
      tamperedSeq = Number(key.readBigUInt64BE(0));
      await db.put(key, pack(event));
    });
    await start(box);
    const result = await runCli(box, ['verify']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^BROKEN: 1 problem in \d+ events/);
    expect(result.stderr).toMatch(new RegExp(`^job \\S+, #${tamperedSeq}: the summary does not match its hash`));
  });

  it('checks every summary of a long chain, those past the first thousand on a worker thread, and names each changed one in order', async () => {
    const source = newBox();
    const daemon = await start(source);
    await activity(source);
    const template = jsonLines((await runCli(source, ['export'])).stdout).find((l) => l.type === 'SummaryAccepted')!;
    await daemon.stop();
    // 3,700 accepted summaries chained as the daemon chains them (the worker's last batch a part
    // one, its buffers handed back and used again); #3, #1,400 and the last changed after they were hashed.
    const changed = new Set([3, 1400, 3700]);
    const lines = [exportHeader()];
    let prevHash = GENESIS_HASH;
    for (let seq = 1; seq <= 3700; seq += 1) {
      const { hash: _hash, prevHash: _prev, ...content } = template.data;
      Object.assign(content, { job: 'long', text: `${String(content.text)}\nround ${seq}`, coversThrough: seq - 1 });
      const hash = entryHash(prevHash, content as ChainContent);
      const text = changed.has(seq) ? String(content.text).replace('round', 'ROUND') : content.text;
      lines.push(JSON.stringify({ ...template, seq, data: { ...content, text, prevHash, hash } }));
      prevHash = hash;
    }
    const box = newBox();
    const file = join(box.dir, 'long.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n${exportEnd(3700)}\n`);
    expect((await runCli(box, ['import', file])).code).toBe(0);
    await start(box);
    const result = await runCli(box, ['verify', '--json']);
    expect(result.code).toBe(2);
    const verified = JSON.parse(result.stdout) as { summaries: number; problems: { seq?: number; what: string }[] };
    expect(verified.summaries).toBe(3700);
    // Exported over two pages, each made into lines in the CLI's one buffer: the file imported, as it was.
    expect((await runCli(box, ['export'])).stdout.startsWith(`${lines.join('\n')}\n`)).toBe(true);
    expect(verified.problems.map(({ seq, what }) => `#${seq} ${what.slice(0, 35)}`)).toEqual([
      '#3 the summary does not match its hash',
      '#1400 the summary does not match its hash',
      '#3700 the summary does not match its hash',
    ]);
  });

  it('catches a deleted event', async () => {
    const box = newBox();
    const daemon = await start(box);
    await activity(box);
    await daemon.stop();
    await editLog(box, async (db, events) => db.del(events[2]![0]));
    await start(box);
    const result = await runCli(box, ['verify', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).problems).toContainEqual({ seq: 4, what: 'events #3 to #3 are missing from the log' });
  });
});

describe('recap export and import', () => {
  it('round-trips: an import into an empty data folder exports byte-identical', async () => {
    const box = newBox();
    const daemon = await start(box);
    await activity(box);
    const file = join(box.dir, 'export.jsonl');
    const wrote = await runCli(box, ['export', '--out', file]);
    expect(wrote.code).toBe(0);
    const events = readFileSync(file, 'utf8').trim().split('\n').length - 2;
    // Where the events would have gone, it says what it wrote; in JSON too.
    expect(wrote.stdout).toBe(`wrote ${events} events to ${file}\n`);
    expect(JSON.parse((await runCli(box, ['export', '--out', `${file}.2`, '--json'])).stdout)).toEqual({ out: `${file}.2`, events });
    // The lines the CLI made of the events as stored are those the daemon writes of the same events.
    const logged = (await runCli(box, ['log', '--json'])).stdout;
    await daemon.stop();
    const exported = readFileSync(file, 'utf8');
    expect(exported.split('\n')[0]).toBe('{"format":"recap-events","version":2}');
    // The events, then the end line that counts them.
    const body = exported.slice(exported.indexOf('\n') + 1);
    expect(body).toBe(`${logged}${exportEnd(logged.trim().split('\n').length)}\n`);
    expect(readdirSync(box.dir).filter((name) => name.endsWith('.partial'))).toEqual([]);

    const copy = newBox();
    const imported = await runCli(copy, ['import', file]);
    expect(imported.stdout).toMatch(/^imported \d+ events/);
    await start(copy);
    const again = await runCli(copy, ['export']);
    expect(again.stdout).toBe(exported);
    expect((await runCli(copy, ['verify'])).code).toBe(0);
  });

  it('refuses to import into a data folder that holds events, or while the daemon runs', async () => {
    const box = newBox();
    const daemon = await start(box);
    await activity(box);
    const file = join(box.dir, 'export.jsonl');
    await runCli(box, ['export', '--out', file]);
    const running = await runCli(box, ['import', file]);
    expect(running.code).toBe(1);
    expect(running.stderr).toContain('another recap daemon is using');
    await daemon.stop();
    const full = await runCli(box, ['import', file]);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/already holds \d+ events; import only into an empty data folder/);
  });

  it('names the line of a broken export and writes nothing', async () => {
    const box = newBox();
    const file = join(box.dir, 'bad.jsonl');
    writeFileSync(file, '{"format":"recap-events","version":1}\n{"seq":1,"type":"ToolDenied","version":1,"time":null,"data":{}}\n{"seq":1,"type":"Nope"}\n');
    const result = await runCli(box, ['import', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^recap: ${file}:3: `));
    await start(box);
    expect(jsonLines((await runCli(box, ['log', '--json'])).stdout).map((l) => l.type)).toEqual(['ConfigApproved', 'ConfigApplied']);
  });

  it.each([
    ['cut short after a whole line', (lines: string[]) => lines.slice(0, -2), /ends after \d+ events without the export's end line: it was cut short/],
    ['missing an event in the middle', (lines: string[]) => [...lines.slice(0, 2), ...lines.slice(3)], /says it holds \d+ events, but \d+ are in the file; some were lost/],
    ['added to after its end line', (lines: string[]) => [...lines, lines[1]!], /a line after the export's end line/],
    ['only the header, as a failed export of version 1 left it', () => ['{"format":"recap-events","version":1}'], /holds no events, only the header/],
  ])('refuses an export %s, says what happened, and writes nothing', async (_what, damage, why) => {
    const source = newBox();
    const daemon = await start(source);
    await activity(source);
    const whole = (await runCli(source, ['export'])).stdout.trim().split('\n');
    await daemon.stop();
    const box = newBox();
    const file = join(box.dir, 'damaged.jsonl');
    writeFileSync(file, `${damage(whole).join('\n')}\n`);
    const result = await runCli(box, ['import', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(why);
    // Nothing was written: the whole export still imports.
    writeFileSync(file, `${whole.join('\n')}\n`);
    expect((await runCli(box, ['import', file])).code).toBe(0);
  });

  it('shows progress on stderr only when stderr is a terminal', async () => {
    const box = newBox();
    await start(box);
    await activity(box);
    const piped = await runCli(box, ['export', '--out', join(box.dir, 'a.jsonl')]);
    expect(piped.stderr).toBe('');
    const tty = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qec', `${process.execPath} ${RECAP} export --out ${join(box.dir, 'b.jsonl')}`, '/dev/null'], {
        env: box.env,
        cwd: box.project,
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.once('close', () => resolve(out));
    });
    expect(tty).toMatch(/export: \d+ events/);
  });
});

describe('snapshots and old event versions', () => {
  it('starts from the newest snapshot, and from the whole log when the snapshot is corrupt', async () => {
    const box = newBox();
    const env = { RECAP_SNAPSHOT_EVERY: '5' };
    let daemon = await start(box, env);
    await activity(box);
    const status = (await runCli(box, ['status', '--json'])).stdout;
    await daemon.stop();

    daemon = await start(box, env);
    const loaded = await daemon.waitForLog((l) => l.msg === 'projection loaded');
    expect(loaded.snapshot).toBeGreaterThan(0);
    expect((await runCli(box, ['status', '--json'])).stdout).toBe(status);
    await daemon.stop();

    const db = new Level<Buffer, Buffer>(join(box.data, 'log'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    for (const key of await db.keys({ gte: Buffer.from([0xff]) }).all()) await db.put(key, Buffer.from('garbage'));
    await db.close();
    daemon = await start(box, env);
    expect((await daemon.waitForLog((l) => l.msg === 'projection loaded')).snapshot).toBeNull();
    expect(daemon.lines.some((l) => /ignoring the snapshot at #\d+: it does not decode/.test(l.msg))).toBe(true);
    expect((await runCli(box, ['status', '--json'])).stdout).toBe(status);
    expect((await runCli(box, ['verify'])).code).toBe(0);
  });

  it('reads a stored event of an older version in the current shape', async () => {
    const box = newBox();
    const daemon = await start(box);
    await runCli(box, ['record', '--text', 'hello', '--job', 'old']);
    await daemon.stop();
    await editLog(box, async (db, events) => {
      const key = Buffer.alloc(8);
      key.writeBigUInt64BE(BigInt(events.length + 1), 0);
      await db.put(key, pack({ type: 'ToolDenied', version: 1, data: { job: 'old', tool: 'Read', time: Date.now() } }));
    });
    await start(box);
    const [denied] = jsonLines((await runCli(box, ['log', '--json', '--type', 'ToolDenied'])).stdout);
    expect(denied).toMatchObject({ version: 2, data: { tool: 'Read', cause: 'gate' } });
    // The events between the header and the end line.
    const stored = jsonLines((await runCli(box, ['export'])).stdout.trim().split('\n').slice(1, -1).join('\n'));
    expect(stored.at(-1)).toMatchObject({ type: 'ToolDenied', version: 1, data: { tool: 'Read' } });
    expect(JSON.parse((await runCli(box, ['status', '--json', '--job', 'old'])).stdout)).toMatchObject({ job: 'old' });
  });
});
