// A chunk of the audit index as the log keeps it: read back, it is the track that was
// folded; bytes that are cut short, of another format or of another window are not used.
import { Packr } from 'msgpackr/pack';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/events/events.js';
import { decodeChunk, encodeChunk, type Window } from '../../src/daemon/auditChunks.js';
import { Track } from '../../src/daemon/auditTrack.js';

const SIZE = 10;
const at = (seq: number, type: string, data: Record<string, unknown>) => ({ seq, type, version: 1, data: { job: 'j', time: 1000 * seq, ...data } }) as unknown as StoredEvent;

/** Window 1 (events 11 to 20) of job j: interactions, a trip, a denial, a summary, usage; the meter carrying one interaction out. */
function window(): Window {
  const track = Track.from({ first: 500, last: 10_000, meter: { seqs: [9], tokens: [40], value: 40 } });
  const events = [
    at(11, 'InteractionRecorded', { kind: 'prompt', text: '', tokens: 100, counted: true }),
    at(12, 'GateTripped', { reason: 'threshold', unsummarizedTokens: 140, limit: 120 }),
    at(13, 'ToolDenied', { tool: 'Read', cause: 'gate' }),
    at(14, 'ToolDenied', { tool: 'Grep', cause: 'gate' }),
    at(15, 'SummaryAccepted', { level: 0, topic: 'parser', tokens: 300, coversThrough: 11 }),
    at(16, 'UsageRecorded', { agent: 'claude', model: 'opus', input: 5, output: 6, cacheCreation: 7, cacheRead: 8 }),
    at(20, 'InteractionRecorded', { kind: 'prompt', text: '', tokens: 30, counted: true }),
  ];
  for (const event of events) track.apply(event);
  return { window: 1, from: 11, to: 20, tracks: new Map([['j', track]]), whole: true, toTime: 20_000 };
}

describe('a chunk of the audit index', () => {
  it('reads back as the track that was folded: its marks, usage and what it carries on', () => {
    const written = window();
    const read = decodeChunk(1, SIZE, encodeChunk(written))!;
    expect(read).toBeDefined();
    const [before, after] = [written.tracks.get('j')!, read.tracks.get('j')!];
    for (const points of ['points', 'moments', 'denials'] as const) {
      expect(after[points].t.values(after[points].n)).toEqual(before[points].t.values(before[points].n));
      expect(after[points].v.values(after[points].n)).toEqual(before[points].v.values(before[points].n));
    }
    expect(after.denialTools).toEqual(['Read', 'Grep']);
    expect(after.trips).toEqual(before.trips);
    expect(after.summaries).toEqual(before.summaries);
    expect(after.usage.rows()).toEqual([['claude\topus', 0, 5, 6, 7, 8]]);
    // The counts go on from the windows before (none here): the window's own marks.
    expect(after.carry()).toEqual({ first: 500, last: 20_000, meter: { seqs: [20], tokens: [30], value: 30 }, counts: [3, 6, 2] });
    expect(read.toTime).toBe(20_000);
  });

  it('keeps numbers that are not whole as they are', () => {
    const track = Track.from({ first: 0, last: 0, meter: { seqs: [], tokens: [], value: 0 } });
    track.apply(at(1, 'InteractionRecorded', { kind: 'prompt', text: '', tokens: 2.6, counted: true }));
    track.apply(at(2, 'InteractionRecorded', { kind: 'prompt', text: '', tokens: 1.3, counted: true }));
    const read = decodeChunk(0, SIZE, encodeChunk({ window: 0, from: 1, to: 10, tracks: new Map([['j', track]]), whole: true, toTime: 2000 }))!;
    const after = read.tracks.get('j')!;
    expect([...after.points.v.values(after.points.n)]).toEqual([2.6, 2.6 + 1.3]);
    expect(after.carry().meter).toEqual({ seqs: [1, 2], tokens: [2.6, 1.3], value: 2.6 + 1.3 });
  });

  it('is not used when cut short, of another format, of another window or of another size', () => {
    const bytes = encodeChunk(window());
    expect(decodeChunk(1, SIZE, bytes.subarray(0, bytes.length - 9))).toBeUndefined();
    const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
    expect(decodeChunk(1, SIZE, packr.pack({ ...(packr.unpack(bytes) as object), format: 0 }))).toBeUndefined();
    expect(decodeChunk(2, SIZE, bytes)).toBeUndefined();
    expect(decodeChunk(1, 20, bytes)).toBeUndefined();
    expect(decodeChunk(1, SIZE, Buffer.from('not a chunk'))).toBeUndefined();
  });
});
