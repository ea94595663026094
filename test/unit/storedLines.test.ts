// `recap export` writes each event's line from its stored bytes (storedLines.ts): the lines
// must be, byte for byte, those the decoder and JSON.stringify made before, whatever the
// event holds, and a value that does not decode must fail as it did.
import { describe, expect, it } from 'vitest';
import { Packr } from 'msgpackr/pack';
import { decodeEvent, encodeEvent, UndecodableEvent } from '../../src/daemon/codec.js';
import { eventLine } from '../../src/daemon/eventLine.js';
import { decodePack, encodePack, runOf } from '../../src/daemon/eventPacks.js';
import { StoredLines } from '../../src/daemon/storedLines.js';
import type { StoredEvent } from '../../src/events/events.js';

/** The page's JSON as the decoder and JSON.stringify wrote it before. */
const before = (values: [number, Uint8Array][]) => `[${values.map(([seq, value]) => JSON.stringify(eventLine(decodeEvent(seq, value)))).join(',')}]`;

function page(values: [number, Uint8Array][], asLines = false): { json: string; slow: number } {
  const lines = new StoredLines(asLines);
  for (const [seq, value] of values) lines.add(seq, value);
  return { json: lines.finish().toString('utf8'), slow: lines.slow };
}

/** The page written from the events' places in one pack of them, as the daemon reads them. */
function fromPack(values: [number, Uint8Array][]): string {
  const seqs = values.map(([seq]) => seq);
  const run = decodePack(
    encodePack(
      runOf(
        seqs,
        values.map(([, value]) => value),
      ),
    ),
    seqs[0]!,
    seqs.at(-1)!,
  );
  const lines = new StoredLines();
  run.seqs.forEach((seq, i) => lines.add(seq, run.bytes[i]!, run.starts[i]!, run.ends[i]!));
  return lines.finish().toString('utf8');
}

const stored = (seq: number, type: string, data: Record<string, unknown>, version = 1): [number, Uint8Array] => [
  seq,
  encodeEvent({ seq, type, version, data } as unknown as StoredEvent),
];

describe('stored lines', () => {
  it("are the decoder's lines byte for byte, the ordinary events written without decoding them", () => {
    const values = [
      stored(1, 'InteractionRecorded', { job: 'job-1', kind: 'prompt', text: 'fix the parser '.repeat(40), tokens: 74, counted: true, time: 1_793_491_200_000 }, 2),
      stored(2, 'GateTripped', { job: 'job-1', reason: 'threshold', unsummarizedTokens: 900, limit: 800, time: 1_793_491_200_010 }),
      stored(3, 'ToolDenied', {
        job: 'job-1',
        tool: 'Read',
        input: { file_path: '/src/a.ts', nested: [1, -1, -200, 70_000, -70_000, 2 ** 40, 0.5, -0, null, true, false, []] },
        time: 1_793_491_200_020,
      }),
      stored(4, 'SummaryAccepted', {
        job: 'job-1',
        level: 0,
        sections: [{ heading: 'Current State', tokens: 101 }],
        text: 'Gist: a\n\n## Current State\n"quoted" \\ back\ttab \u0001 é 漢字 😀',
        tokens: 9,
        coversThrough: 3,
        hash: 'a'.repeat(64),
        prevHash: '0'.repeat(64),
        time: 1_793_491_200_030,
      }),
      stored(5, 'ConfigApplied', { scope: 'user', config: { MAX: 3, 'a key with spaces': 'x', '': 'empty key' }, time: -5 }),
      stored(6, 'InteractionRecorded', { job: 'no time', kind: 'prompt', text: '' }),
      stored(7, 'InteractionRecorded', { job: 'text time', kind: 'prompt', text: 'x', time: 'yesterday' }),
      stored(8, 'InteractionRecorded', { job: 'float time', kind: 'prompt', text: 'x', time: 1_793_491_200_000.5 }),
      // Times whose ISO form is longer than a four-digit year's, and numbers of every width around 10^9.
      stored(9, 'InteractionRecorded', { job: 'far time', kind: 'prompt', text: 'x', time: 300_000_000_000_000, tokens: 999_999_999 }),
      stored(10, 'InteractionRecorded', { job: 'old time', kind: 'prompt', text: 'x', time: -62_200_000_000_000, tokens: 1_000_000_000 }),
      // Every ASCII byte JSON escapes, escaped in place (no decoding of the string).
      stored(12, 'InteractionRecorded', {
        job: 'job-1',
        kind: 'tool',
        text: `a "quoted" \\ path\n${Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join('')}\u007f end`,
        time: 1_793_491_260_999,
      }),
      stored(11, 'UsageRecorded', { job: 'job-1', counts: [1_000_000_001, 10_000_000_000, 2 ** 53 - 1, 1_000_000_000_000_000, 0, 9, 10], time: 1_793_491_200_040 }),
    ];
    const made = page(values);
    expect(made.json).toBe(before(values));
    expect(made.slow).toBe(0);
  });

  it('sends what it does not read as the decoder does to the decoder, with the same result', () => {
    const loose = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false, useFloat32: 1 });
    const values: [number, Uint8Array][] = [
      // A key of digits: the decoded object puts it first.
      stored(1, 'ConfigApplied', { b: 1, 10: 'ten', a: 2, time: 5 }),
      // undefined (an extension), a lone surrogate (written as U+FFFD), a key "__proto__".
      stored(2, 'ConfigApplied', { a: undefined, b: 'lone \ud800 surrogate', time: 6 }),
      [3, loose.pack({ type: 'ConfigApplied', version: 1, data: JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown })],
      // A 32-bit float.
      [4, loose.pack({ type: 'ConfigApplied', version: 1, data: { f: 1.5 } })],
      // Keys in another order than the codec writes, and a data that is an array.
      [5, loose.pack({ version: 1, type: 'ConfigApplied', data: { a: 1 } })],
      [6, loose.pack({ type: 'ConfigApplied', version: 1, data: [1, 2] })],
    ];
    const made = page(values);
    expect(made.json).toBe(before(values));
    expect(made.slow).toBe(values.length);
  });

  it('fails on an event that does not decode as the decoder does, naming it', () => {
    const [seq, value] = stored(9, 'InteractionRecorded', { job: 'j', kind: 'prompt', text: 'a prompt of some length', time: 1 });
    const cut = value.subarray(0, value.length - 5);
    expect(() => decodeEvent(seq, cut)).toThrow(UndecodableEvent);
    expect(() => page([[seq, cut]])).toThrow(UndecodableEvent);
    const flipped = Uint8Array.from(value);
    flipped[0] = 0xc1; // a byte msgpack never uses
    expect(() => page([[seq, flipped]])).toThrow(/event #9 cannot be decoded/);
  });

  it('copies long texts in runs, escaping each byte JSON escapes wherever it falls in them', () => {
    const escaped = ['"', '\\', '\n', '\t', '\u0001', '\u001f', '\u007f', 'é', '漢', '😀'];
    const values: [number, Uint8Array][] = [];
    for (const [e, odd] of escaped.entries()) {
      for (let place = 0; place < 80; place += 7) {
        const plain = 'a plain run of text, long enough to be copied in bulk, '.repeat(3);
        const text = `${plain.slice(0, place)}${odd}${plain.slice(place)}${odd}${odd}${plain.slice(0, 40 + e)}`;
        values.push(
          stored(values.length + 1, 'InteractionRecorded', {
            job: `job-${place}`,
            kind: 'tool',
            text,
            [`key ${odd} ${plain.slice(0, place)}`]: `${odd}${plain}`,
            time: 1_793_491_200_000 + place,
          }),
        );
      }
    }
    const made = page(values);
    expect(made.json).toBe(before(values));
    expect(made.slow).toBe(0);
  });

  it('writes JSON Lines when asked: the same lines, each ended by a newline', () => {
    const values = [
      stored(1, 'InteractionRecorded', { job: 'job-1', kind: 'prompt', text: 'fix the "parser"\n'.repeat(10), tokens: 74, counted: true, time: 1_793_491_200_000 }, 2),
      stored(2, 'ConfigApplied', { b: 1, 10: 'ten', a: 2, time: 5 }),
      stored(3, 'GateTripped', { job: 'job-1', reason: 'threshold', unsummarizedTokens: 900, limit: 800, time: 1_793_491_200_010 }),
    ];
    const lines = page(values, true);
    expect(lines.json).toBe(`${values.map(([seq, value]) => JSON.stringify(eventLine(decodeEvent(seq, value)))).join('\n')}\n`);
    expect(lines.slow).toBe(1);
    expect(page([], true).json).toBe('');
  });

  it('grows past its first megabyte without losing a byte', () => {
    const values = Array.from({ length: 3000 }, (_, i) =>
      stored(i + 1, 'InteractionRecorded', { job: `job-${i % 7}`, kind: 'prompt', text: `prompt ${i} `.repeat(60), tokens: i, counted: true, time: 1_793_491_200_000 + i * 10 }),
    );
    const made = page(values);
    expect(made.json.length).toBeGreaterThan(2 ** 21);
    expect(made.json).toBe(before(values));
    expect(made.slow).toBe(0);
  });

  it("writes a pack's events from their places in it, and reads none of an event's bytes from the next one", () => {
    const values = Array.from({ length: 5 }, (_, i) =>
      stored(i + 1, 'InteractionRecorded', { job: 'job-1', kind: 'prompt', text: `prompt "${i}" `.repeat(20), time: 1_793_491_200_000 + i }),
    );
    expect(fromPack(values)).toBe(before(values));
    // Cut short, the third event's last string would run on into the fourth's bytes.
    const [seq, value] = values[2]!;
    const cut = value.subarray(0, value.length - 5);
    expect(() => decodeEvent(seq, cut)).toThrow(UndecodableEvent);
    expect(() => fromPack([values[0]!, values[1]!, [seq, cut], values[3]!, values[4]!])).toThrow(/event #3 cannot be decoded/);
  });
});
