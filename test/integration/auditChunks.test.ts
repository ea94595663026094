// The audit index kept in the log (auditChunks.ts) on a real daemon: the chunks it writes as
// the log grows give, after a restart, the same page as a fold of the whole log, the events
// after the last chunk included; a chunk that is damaged or of an older format is folded
// again instead, and written again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr/pack';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStore } from '../../src/daemon/eventStore.js';
import { RawClient, runCli, trackedSandboxes, type Sandbox } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';
import { openUi } from '../helpers/uiPage.js';

const { newBox, start } = trackedSandboxes(afterEach);

/** Small windows, so a short log has several chunks; a size no window of this log fills folds it all. */
const CHUNKED = { RECAP_AUDIT_CHUNK_EVENTS: '50' };
const UNCHUNKED = { RECAP_AUDIT_CHUNK_EVENTS: '1000000' };

type Built = { chunked: number; folded: number };

/** The model's usage in job a over three hours, as an export holds it (seq 1 to 60). */
function usageExport(box: Sandbox): string {
  const hour = Date.UTC(2026, 10, 2, 10);
  const lines: unknown[] = [{ format: 'recap-events', version: 1 }];
  for (let seq = 1; seq <= 60; seq += 1) {
    const time = hour + seq * 3 * 60_000;
    const data = { job: 'a', session: 's', agent: 'claude', key: `m${seq}`, model: seq % 3 === 0 ? 'haiku' : 'opus', input: seq, output: 10, cacheCreation: 0, cacheRead: 5, time };
    lines.push({ seq, type: 'UsageRecorded', version: 1, time: new Date(time).toISOString(), data });
  }
  const file = join(box.dir, 'usage.jsonl');
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
}

/**
 * A log that begins as an import (no chunks: the daemon writes them from the first window on),
 * then two jobs: one that trips, is denied and is summarized round after round, one recorded
 * beside it. Resolves to the log's last sequence number.
 */
async function makeLog(box: Sandbox): Promise<number> {
  writeFileSync(box.config, 'TOKEN_THRESHOLD=300\n');
  const imported = await runCli(box, ['import', usageExport(box)]);
  expect(imported.code, imported.stderr).toBe(0);
  const daemon = await start(box, CHUNKED);
  const client = await RawClient.connect(box.socket);
  let id = 0;
  const ask = async (message: Record<string, unknown>) => {
    const answer = (await client.request({ id: (id += 1), ...message })) as { result?: { seq?: number; gate?: { tripped: boolean } } };
    expect(answer).toHaveProperty('result');
    return answer.result!;
  };
  for (let round = 0; round < 12; round += 1) {
    for (let tripped = false; !tripped;) {
      tripped = (await ask({ op: 'record', job: 'a', kind: 'prompt', text: prose(2) })).gate!.tripped;
      await ask({ op: 'record', job: 'b', kind: 'prompt', text: prose(1) });
    }
    await ask({ op: 'check', job: 'a', tool: 'Read', input: { file_path: '/x' } });
    await ask({ op: 'check', job: 'a', tool: 'Grep', input: { pattern: 'x' } });
    expect(await ask({ op: 'submit', job: 'a', text: goodSummary(undefined, round) })).toMatchObject({ accepted: true });
  }
  // Events after the last whole window, both jobs' meters moving: the tail the page folds.
  let seq: number;
  do {
    await ask({ op: 'record', job: 'a', kind: 'prompt', text: prose(1) });
    seq = (await ask({ op: 'record', job: 'b', kind: 'prompt', text: prose(1) })).seq!;
  } while (seq % 50 < 10);
  client.close();
  // Stopping waits for the chunks being written.
  await daemon.stop();
  return seq;
}

/** Everything the page shows of the log, as its /api answers it; and how the daemon built its index. */
async function page(box: Sandbox, env: NodeJS.ProcessEnv, { thenRecord = false } = {}): Promise<{ built: Built; data: unknown; afterRecord?: unknown }> {
  const daemon = await start(box, env);
  const ui = await openUi(box);
  const built = (await daemon.waitForLog((line) => line.msg.startsWith("the audit page's index read its chunks"))) as unknown as Built;
  const get = async (path: string) => {
    const answer = await fetch(`${ui.origin}${path}`, { headers: { cookie: ui.cookie } });
    expect(answer.status).toBe(200);
    return (await answer.json()) as Record<string, unknown>;
  };
  const data: Record<string, unknown> = { jobs: await get('/api/jobs'), usage: await get('/api/usage?bucket=hour') };
  for (const job of ['a', 'b']) {
    const whole = (await get(`/api/job?job=${job}&width=8000`)) as { span: { first: number; last: number } };
    const { first, last } = whole.span;
    const middle = Math.round((first + last) / 2);
    data[job] = {
      whole,
      narrow: await get(`/api/job?job=${job}&width=7`),
      secondHalf: await get(`/api/job?job=${job}&width=8000&from=${middle}`),
      moments: await get(`/api/job/moments?job=${job}&from=${first}&to=${last}`),
      lastMoments: await get(`/api/job/moments?job=${job}&from=${middle}&to=${last}`),
    };
  }
  // A record as the page is open: followed on from the meter's level the chunks carried.
  let afterRecord: unknown;
  if (thenRecord) {
    const client = await RawClient.connect(box.socket);
    expect(await client.request({ id: 1, op: 'record', job: 'b', kind: 'prompt', text: prose(1) })).toHaveProperty('result');
    client.close();
    afterRecord = await get('/api/job?job=b&width=8000');
  }
  await daemon.stop();
  return { built: { chunked: built.chunked, folded: built.folded }, data, ...(thenRecord ? { afterRecord } : {}) };
}

describe('the audit index kept in the log', () => {
  it('gives after a restart the page a fold of the whole log gives, the events after the last chunk included', async () => {
    const box = newBox();
    const events = await makeLog(box);
    const tail = events % 50;
    expect(tail).toBeGreaterThan(0);

    const fromScratch = await page(box, UNCHUNKED);
    expect(fromScratch.built).toEqual({ chunked: 0, folded: events });
    expect((fromScratch.data as { usage: { series: unknown[] } }).usage.series).toHaveLength(2);
    const fromChunks = await page(box, CHUNKED, { thenRecord: true });
    expect(fromChunks.built).toEqual({ chunked: events - tail, folded: tail });
    expect(JSON.stringify(fromChunks.data)).toBe(JSON.stringify(fromScratch.data));
    // And the record made as it was open, as a fold of the whole log then shows it.
    const withRecord = await page(box, UNCHUNKED);
    expect(JSON.stringify(fromChunks.afterRecord)).toBe(JSON.stringify((withRecord.data as { b: { whole: unknown } }).b.whole));
  });

  it('leaves the chunks out of recap verify and recap export: the export imports and verifies', async () => {
    const box = newBox();
    await makeLog(box);
    await start(box, CHUNKED);
    const verifiedHere = await runCli(box, ['verify']);
    expect(verifiedHere.code).toBe(0);
    const events = Number(/^intact: (\d+) events,/m.exec(verifiedHere.stdout)?.[1]);
    const exported = await runCli(box, ['export']);
    expect(exported.code, exported.stderr).toBe(0);
    // The events between the header and the end line.
    const lines = exported.stdout.trim().split('\n').slice(1, -1);
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(Array.from({ length: events }, (_, i) => i + 1));

    const copy = newBox();
    const file = join(copy.dir, 'log.jsonl');
    writeFileSync(file, exported.stdout);
    const imported = await runCli(copy, ['import', file]);
    expect(imported.stdout).toMatch(new RegExp(`^imported ${events} events`));
    await start(copy);
    const verified = await runCli(copy, ['verify']);
    expect(verified.stdout).toMatch(/^intact: /m);
    expect(verified.code).toBe(0);
  });

  it('folds the events of a damaged chunk and of one of an older format, gives the same page, and writes them again', async () => {
    const box = newBox();
    const events = await makeLog(box);
    const tail = events % 50;
    const fromScratch = await page(box, UNCHUNKED);

    // The daemon is stopped: the log is opened as it opens it.
    const store = await EventStore.open(join(box.data, 'log'));
    const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
    let third: Uint8Array | undefined;
    for await (const { window, value } of store.auditChunks()) if (window === 3) third = value;
    expect(third).toBeDefined();
    await store.putAuditChunk(1, Buffer.from('not a chunk'));
    await store.putAuditChunk(3, packr.pack({ ...(packr.unpack(third!) as object), format: 0 }));
    await store.close();

    // Window 0 is read; from window 1 on, the events are folded.
    const damaged = await page(box, CHUNKED);
    expect(damaged.built).toEqual({ chunked: 50, folded: events - 50 });
    expect(JSON.stringify(damaged.data)).toBe(JSON.stringify(fromScratch.data));

    // That fold wrote the chunks again.
    const repaired = await page(box, CHUNKED);
    expect(repaired.built).toEqual({ chunked: events - tail, folded: tail });
    expect(JSON.stringify(repaired.data)).toBe(JSON.stringify(fromScratch.data));
  });
});
