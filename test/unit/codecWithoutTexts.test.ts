// decodeEventWithoutTexts: the stored event as decodeEvent reads it, less its `text` fields,
// whatever msgpack types the packer chose for the other values; and the packer's shared
// buffer, which a large value leaves small again.
import { describe, expect, it } from 'vitest';
import { decodeEvent, decodeEventWithoutTexts, encodeEvent, UndecodableEvent } from '../../src/daemon/codec.js';
import type { StoredEvent } from '../../src/events/events.js';
import { Projection } from '../../src/daemon/projection.js';
import { decodeSnapshot, encodeSnapshot } from '../../src/daemon/snapshot.js';

const stored = (data: Record<string, unknown>, type = 'InteractionRecorded'): StoredEvent => ({ seq: 7, type, version: 2, data }) as unknown as StoredEvent;

/** decodeEvent's answer with every `text` key taken out, at any depth. */
function expected(event: StoredEvent): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'text')
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  const decoded = decodeEvent(event.seq, encodeEvent(event));
  return { ...decoded, data: strip(decoded.data) };
}

describe('decodeEventWithoutTexts', () => {
  it('leaves out the text of a prompt of every string length msgpack distinguishes, and keeps the rest', () => {
    for (const length of [0, 5, 31, 32, 255, 256, 65_535, 65_536]) {
      const event = stored({ job: 'j', kind: 'prompt', text: 'é'.repeat(length / 2) + 'a'.repeat(length % 2), tokens: length, counted: true, time: 1_790_000_000_123 });
      const decoded = decodeEventWithoutTexts(event.seq, encodeEvent(event));
      expect(decoded).toEqual(expected(event));
      expect(decoded.data).not.toHaveProperty('text');
    }
  });

  it('reads numbers of every width, negative ones, floats, booleans, null, undefined, nested maps and arrays, and non-ASCII keys and values', () => {
    const event = stored(
      {
        job: 'naïve-job ✓',
        small: 5,
        byte: 200,
        short: 60_000,
        int: 4_000_000_000,
        big: 2 ** 40 + 3,
        negatives: [-1, -31, -100, -30_000, -2_000_000_000, -(2 ** 40)],
        float: 1.5,
        double: 0.1,
        flags: [true, false, null],
        missing: undefined,
        nested: { text: 'gone', deeper: [{ text: 'gone too', keep: 'kept ✓' }], clé: 'v'.repeat(40) },
        many: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])),
        list: Array.from({ length: 20 }, (_, i) => i * 1000),
      },
      'SummaryAccepted',
    );
    expect(decodeEventWithoutTexts(event.seq, encodeEvent(event))).toEqual(expected(event));
  });

  it('drops a text that is not a string as well', () => {
    const event = stored({ job: 'j', text: { odd: [1, 2] }, tokens: 3 });
    expect(decodeEventWithoutTexts(event.seq, encodeEvent(event))).toEqual(expected(event));
  });

  it('says which event cannot be decoded, as decodeEvent does', () => {
    const bytes = encodeEvent(stored({ job: 'j', text: 'abc' }));
    expect(() => decodeEventWithoutTexts(9, bytes.subarray(0, bytes.length - 3))).toThrow(UndecodableEvent);
    expect(() => decodeEventWithoutTexts(9, Buffer.from([0x92, 0x01, 0x02]))).toThrow(/#9 cannot be decoded: not a \{type, version, data\} map/);
  });
});

describe("msgpackr's shared buffer after a large value", () => {
  it('starts small again: an event packed after a snapshot of megabytes is not a view into a buffer of megabytes', () => {
    const small = stored({ job: 'j', kind: 'prompt', text: 'a prompt', tokens: 2 });
    const snapshot = encodeSnapshot(Object.assign(new Projection(), { lastSeq: 1 }));
    expect(snapshot.length).toBeLessThan(64 * 1024);
    // A projection whose snapshot is a few megabytes: one job with a long chain of gists.
    const projection = new Projection();
    const job = projection.view('big');
    for (let seq = 1; seq <= 20_000; seq += 1) job.chain.push({ seq, level: 0, tokens: 100, coversThrough: seq, gist: `gist ${seq} `.repeat(12), time: seq, hash: 'f'.repeat(64) });
    projection.jobs.set('big', job);
    const large = encodeSnapshot(projection);
    expect(large.length).toBeGreaterThan(2 * 1024 * 1024);
    const after = encodeEvent(small);
    expect(decodeEvent(1, after).data).toEqual(small.data);
    expect(after.buffer.byteLength).toBeLessThan(64 * 1024);
  });

  it("packs a snapshot into one buffer of about the previous snapshot's size", () => {
    const projection = new Projection();
    const job = projection.view('big');
    for (let seq = 1; seq <= 20_000; seq += 1) job.chain.push({ seq, level: 0, tokens: 100, coversThrough: seq, gist: `gist ${seq} `.repeat(12), time: seq, hash: 'f'.repeat(64) });
    projection.jobs.set('big', job);
    encodeSnapshot(projection);
    const next = encodeSnapshot(projection);
    // Grown by doubling from 8 KB, its buffer would be up to four times its size.
    expect(next.buffer.byteLength).toBeLessThanOrEqual(Math.ceil(next.length * 1.25));
    expect(decodeSnapshot(next)?.jobs.get('big')?.chain).toHaveLength(20_000);
  });
});
