// The spool's pure parts: an entry's name and text read back, the order prompts are taken in,
// a prompt's id recorded with it, and the projection's memory of the newest ids (bounded,
// the same when replayed, kept by a snapshot).
import { describe, expect, it } from 'vitest';
import { entryName, newPromptId, parseEntryName, PROMPT_ID } from '../../src/common/promptSpool.js';
import { parseEntry, takingOrder } from '../../src/daemon/spoolTaker.js';
import { Projection, PROMPT_IDS_KEPT } from '../../src/daemon/projection.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/daemon/snapshot.js';
import { CURRENT_VERSION, type RecapEvent, type StoredEvent } from '../../src/events/events.js';
import { given, JOB, T0 } from '../helpers/spec.js';

const entry = { version: 1, id: 'mhx3k2-1f4-k2j3h4', agent: 'claude', at: T0, payload: { hook_event_name: 'UserPromptSubmit', prompt: 'hi' } };

describe('a spool entry', () => {
  it('is named by its time and id, and the name reads back', () => {
    const name = entryName(entry);
    expect(name).toBe(`00${T0}-mhx3k2-1f4-k2j3h4.json`);
    expect(parseEntryName(name)).toEqual({ at: T0, id: entry.id });
    expect(parseEntryName('notes.txt')).toBeUndefined();
    expect(parseEntryName(`00${T0}-../x.json`)).toBeUndefined();
  });

  it('gets an id that recap-hook sends and the daemon accepts', () => {
    const ids = new Set(Array.from({ length: 100 }, () => newPromptId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(PROMPT_ID);
  });

  it('is read back when it is what recap-hook writes, and refused, saying why, when it is not', () => {
    const name = entryName(entry);
    expect(parseEntry(name, JSON.stringify(entry))).toEqual({ ok: true, entry });
    expect(parseEntry(name, '{"version":')).toEqual({ ok: false, why: 'it is not JSON' });
    expect(parseEntry('notes.txt', JSON.stringify(entry))).toEqual({ ok: false, why: 'its name is not one recap-hook gives' });
    expect(parseEntry(entryName({ ...entry, id: 'a-b-c' }), JSON.stringify(entry))).toEqual({ ok: false, why: 'its id or time differs from its name' });
    expect(parseEntry(name, JSON.stringify({ ...entry, agent: 'nobody' }))).toMatchObject({ ok: false, why: expect.stringContaining('agent:') });
    expect(parseEntry(name, JSON.stringify({ ...entry, version: 2 }))).toMatchObject({ ok: false, why: expect.stringContaining('version:') });
    expect(parseEntry(name, JSON.stringify({ ...entry, payload: [] }))).toMatchObject({ ok: false, why: expect.stringContaining('payload:') });
  });

  it('is taken in the order the prompts came; temporary files are not taken', () => {
    const names = [entryName({ at: T0 + 10, id: 'a-b-c' }), `.x-y-z.tmp`, entryName({ at: T0, id: 'z-z-z' }), entryName({ at: T0, id: 'a-a-a' })];
    expect(takingOrder(names)).toEqual([entryName({ at: T0, id: 'a-a-a' }), entryName({ at: T0, id: 'z-z-z' }), entryName({ at: T0 + 10, id: 'a-b-c' })]);
  });
});

describe('RecordInteraction with a prompt id', () => {
  it('records the id with the interaction, and trips as any prompt does', () => {
    given([], { TOKEN_THRESHOLD: 3 })
      .when({ type: 'RecordInteraction', job: JOB, kind: 'prompt', text: 'one two three', promptId: entry.id, now: T0 })
      .then([
        { type: 'InteractionRecorded', data: { job: JOB, kind: 'prompt', text: 'one two three', tokens: 3, counted: true, promptId: entry.id, time: T0 } },
        { type: 'GateTripped', data: { job: JOB, reason: 'threshold', unsummarizedTokens: 3, limit: 3, time: T0 } },
      ]);
  });
});

const recorded = (seq: number, promptId?: string): StoredEvent => {
  const event: RecapEvent = {
    type: 'InteractionRecorded',
    data: { job: JOB, kind: 'prompt', text: 'x', tokens: 1, counted: true, ...(promptId ? { promptId } : {}), time: T0 + seq },
  };
  return { ...event, seq, version: CURRENT_VERSION[event.type] } as StoredEvent;
};

describe("the projection's prompt ids", () => {
  // Twice as many prompts as are remembered, one in seven without an id.
  const events = Array.from({ length: 2 * PROMPT_IDS_KEPT }, (_, i) => recorded(i + 1, i % 7 === 0 ? undefined : `p-${i}-x`));
  const replay = () => {
    const projection = new Projection();
    for (const event of events) projection.apply(event);
    return projection;
  };

  it('remembers the newest PROMPT_IDS_KEPT ids, not the older ones, the same on every replay', () => {
    const once = replay();
    expect(once.promptIds).toHaveLength(PROMPT_IDS_KEPT);
    expect(once.promptRecorded(`p-${2 * PROMPT_IDS_KEPT - 1}-x`)).toBe(true);
    expect(once.promptRecorded('p-1-x')).toBe(false);
    expect(replay().promptIds).toEqual(once.promptIds);
  });

  it('keeps them through a snapshot', () => {
    const projection = replay();
    const loaded = decodeSnapshot(encodeSnapshot(projection))!;
    expect(loaded.promptIds).toEqual(projection.promptIds);
    expect(loaded.promptRecorded(projection.promptIds.at(-1)!)).toBe(true);
  });
});
