// Reads are reads: `status`, `context`, `chain`, `show`, `decisions`, `search` and `timeline` leave the event log as it was, even when
// what they read (a new session, a project's config file) is not yet on record. The next
// command that writes records it, so nothing is lost.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient, trackedSandboxes } from '../helpers/daemon.js';
import { goodSummary, prose } from '../helpers/text.js';

const { newBox, start } = trackedSandboxes(afterEach);

describe('the reads status, context, chain, show and decisions', () => {
  it('append nothing for a new session in a project with a config file of its own; the next write records both', async () => {
    const box = newBox();
    await start(box);
    // A stricter project file applies at once: recorded as approved and applied for its job.
    mkdirSync(join(box.project, '.recap'), { recursive: true });
    writeFileSync(join(box.project, '.recap', 'config.conf'), 'TOKEN_THRESHOLD=100\n');
    const client = await RawClient.connect(box.socket);
    try {
      const lastSeq = async () => ((await client.request({ id: 'stats', op: 'stats' })).result as { lastSeq: number }).lastSeq;
      const where = { cwd: box.project, session: 'reader-1' };
      const before = await lastSeq();

      const status = await client.request({ id: 1, op: 'status', ...where });
      expect(status.result).toMatchObject({ tripped: false, threshold: 100 });
      const context = await client.request({ id: 2, op: 'context', ...where });
      expect(context.result).toMatchObject({ tripped: false, summaries: 0 });
      const chain = await client.request({ id: 3, op: 'chain', ...where });
      expect(chain.result).toMatchObject({ entries: [] });
      expect(await lastSeq()).toBe(before);

      const recorded = await client.request({ id: 4, op: 'record', kind: 'prompt', text: 'hello', ...where });
      expect(recorded.error).toBeUndefined();
      const page = await client.request({ id: 5, op: 'events', fromSeq: before + 1 });
      const types = (page.result as { events: { type: string }[] }).events.map((e) => e.type);
      expect(types).toEqual(['SessionBound', 'ConfigApproved', 'ConfigApplied', 'InteractionRecorded']);
    } finally {
      client.close();
    }
  });

  it('show, search and timeline append nothing for a new session, whether show finds the summary or refuses the number', async () => {
    const { client, writer, lastSeq } = await summarized(goodSummary());
    try {
      const chain = await client.request({ id: 'chain', op: 'chain', ...writer });
      const seq = (chain.result as { entries: { seq: number }[] }).entries[0]!.seq;
      const reader = { ...writer, session: 'reader-2' };
      const before = await lastSeq();

      const shown = await client.request({ id: 3, op: 'show', seq, ...reader });
      expect(shown.result).toMatchObject({ entry: { seq }, gistBy: 'agent' });
      const refused = await client.request({ id: 4, op: 'show', seq: seq - 1, ...reader });
      expect(refused.error).toMatchObject({ code: 'not_summary' });
      expect(await lastSeq()).toBe(before);

      // search (its index built on this first one) and timeline are reads too.
      const found = await client.request({ id: 5, op: 'search', query: 'parser', ...reader });
      expect((found.result as { hits: { seq: number }[] }).hits.map((h) => h.seq)).toEqual([seq]);
      const everyJob = await client.request({ id: 6, op: 'search', query: 'parser', allJobs: true, ...reader });
      expect(everyJob.error).toBeUndefined();
      const timeline = await client.request({ id: 7, op: 'timeline', seq, ...reader });
      expect((timeline.result as { entries: { seq: number }[] }).entries.map((e) => e.seq)).toEqual([seq]);
      expect(await lastSeq()).toBe(before);
    } finally {
      client.close();
    }
  });

  it('decisions appends nothing for a new session, whether the log is built or brought up to date', async () => {
    const withDecision = goodSummary().replace('## Questions & Decisions\n', '## Questions & Decisions\n- Keep the parser strict — loose input hid two bugs\n');
    const { client, writer, lastSeq } = await summarized(withDecision);
    try {
      const reader = { ...writer, session: 'reader-3' };
      const before = await lastSeq();

      const log = await client.request({ id: 3, op: 'decisions', ...reader });
      expect(log.result).toMatchObject({ total: 1, decisions: [{ n: 1, decision: 'Keep the parser strict' }] });
      expect((await client.request({ id: 4, op: 'decisions', ...reader })).result).toEqual(log.result);
      expect(await lastSeq()).toBe(before);
    } finally {
      client.close();
    }
  });
});

/**
 * A daemon whose job has `text` as its one accepted summary, written by the session of
 * `writer`; a client on its socket, and how to read the log's last number.
 */
async function summarized(text: string): Promise<{ client: RawClient; writer: { cwd: string; session: string }; lastSeq: () => Promise<number> }> {
  const box = newBox();
  await start(box);
  const client = await RawClient.connect(box.socket);
  const writer = { cwd: box.project, session: 'writer-1' };
  const lastSeq = async () => ((await client.request({ id: 'stats', op: 'stats' })).result as { lastSeq: number }).lastSeq;
  await client.request({ id: 1, op: 'record', kind: 'prompt', text: prose(3), ...writer });
  expect((await client.request({ id: 2, op: 'submit', text, ...writer })).result).toMatchObject({ accepted: true });
  return { client, writer, lastSeq };
}
