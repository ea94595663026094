// storedReader.ts: recap's reader of stored values gives exactly what msgpackr's unpack gives
// (the decoder before it), for every type codec.ts's packer writes, and leaves to msgpackr
// what it does not read, so decodeEvent's answer never changes.
import { Packr } from 'msgpackr/pack';
import { describe, expect, it } from 'vitest';
import { decodeEvent, decodeEventAt, encodeEvent, UndecodableEvent } from '../../src/daemon/codec.js';
import { NOT_READ, readStored } from '../../src/daemon/storedReader.js';
import type { StoredEvent } from '../../src/events/events.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
const msgpackr = (bytes: Uint8Array, start = 0, end = bytes.length) => packr.unpack(bytes, { start, end }) as unknown;
const read = (bytes: Uint8Array) => readStored(bytes, 0, bytes.length);

/** The value read here, held to msgpackr's own answer, key order and string contents included. */
function readsAsMsgpackr(value: unknown): void {
  const bytes = packr.pack(value);
  const mine = read(bytes);
  expect(mine).not.toBe(NOT_READ);
  expect(mine).toStrictEqual(msgpackr(bytes));
  expect(JSON.stringify(mine)).toBe(JSON.stringify(msgpackr(bytes)));
}

describe('readStored', () => {
  it('reads strings of every length msgpack distinguishes, ASCII and not, as msgpackr does', () => {
    for (const length of [0, 1, 5, 15, 16, 31, 32, 33, 64, 65, 255, 256, 65_535, 65_536]) {
      readsAsMsgpackr({ ascii: 'a'.repeat(length), other: 'é'.repeat(Math.ceil(length / 2)), emoji: '🙂'.repeat(Math.ceil(length / 4)) });
    }
  });

  it('reads numbers of every width, negative ones, floats, booleans, null, nested maps and arrays', () => {
    readsAsMsgpackr({
      small: [0, 1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1],
      negative: [-1, -32, -33, -128, -129, -32_768, -32_769, -(2 ** 31)],
      large: [2 ** 32, 1_790_000_000_123, Number.MAX_SAFE_INTEGER, -(2 ** 40)],
      floats: [0.5, -1.25, 1e-9, 3.141592653589793],
      flags: [true, false, null],
      nested: { a: { b: [{ c: 'd' }, [], {}] } },
      many: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, i])),
      long: Array.from({ length: 20 }, (_, i) => `item-${i}`),
    });
  });

  it('gives the right string when many short strings share a slot of its table', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `s${i}`);
    readsAsMsgpackr(names);
    readsAsMsgpackr(names.reverse());
  });

  it('reads strings of random bytes, UTF-8 or not, of every length it treats apart, as msgpackr does', () => {
    // A seeded generator: the same bytes on every run. Bytes from the ranges where UTF-8 is valid, breaks or ends early.
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const pieces = [[0x61], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x99, 0x82], [0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xff], [0xc0, 0xaf]];
    for (let i = 0; i < 3_000; i += 1) {
      const bytes: number[] = [];
      const length = 1 + random(300);
      while (bytes.length < length) bytes.push(...pieces[random(pieces.length)]!);
      // A str 8 or str 16 value of exactly these bytes.
      const value = Buffer.from(bytes.length < 256 ? [0xd9, bytes.length, ...bytes] : [0xda, bytes.length >> 8, bytes.length & 0xff, ...bytes]);
      const mine = read(value);
      // A short string that is not UTF-8 is left to msgpackr; every other one is read as msgpackr reads it.
      if (mine === NOT_READ) expect(bytes.length).toBeLessThanOrEqual(64);
      else expect(mine).toBe(msgpackr(value));
    }
  });

  it('drops a leading BOM of a long string and keeps that of a short one, as msgpackr does', () => {
    readsAsMsgpackr({ long: `\ufeff${'x'.repeat(100)}`, short: '\ufeffx' });
  });

  it('leaves to msgpackr an undefined, a 64-bit integer, a float 32, binary, a __proto__ key and a number as key', () => {
    const unusual = [
      Buffer.from([0x81, 0xa1, 0x61, 0xd4, 0x00, 0x00]), // {a: undefined}
      Buffer.from([0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
      Buffer.from([0xca, 0x3f, 0xc0, 0, 0]),
      Buffer.from([0xc4, 0x01, 0x07]),
      Buffer.from([0x81, 0xa9, ...Buffer.from('__proto__'), 0x01]),
      Buffer.from([0x81, 0x01, 0x02]),
    ];
    for (const bytes of unusual) expect(read(bytes)).toBe(NOT_READ);
  });

  it('leaves to msgpackr bytes cut short, bytes left over and a short string that is not UTF-8', () => {
    const event = packr.pack({ type: 'T', version: 1, data: { job: 'j' } });
    expect(read(event.subarray(0, event.length - 1))).toBe(NOT_READ);
    expect(read(Buffer.concat([event, Buffer.from([0x01])]))).toBe(NOT_READ);
    expect(read(Buffer.from([0xa2, 0xc3, 0x28]))).toBe(NOT_READ);
    expect(read(Buffer.from([0xdc, 0xff, 0xff]))).toBe(NOT_READ);
  });

  it('reads a value in place inside larger bytes, as a pack holds its events', () => {
    const first = packr.pack({ a: 'one' });
    const second = packr.pack({ b: ['two', 2] });
    const bytes = Buffer.concat([Buffer.from([0xff]), first, second]);
    expect(readStored(bytes, 1, 1 + first.length)).toStrictEqual({ a: 'one' });
    expect(readStored(bytes, 1 + first.length, bytes.length)).toStrictEqual({ b: ['two', 2] });
  });
});

describe('decodeEvent through storedReader', () => {
  const event = { seq: 7, type: 'InteractionRecorded', version: 2, data: { job: 'j', kind: 'prompt', text: 'hi', tokens: 1, counted: true, time: 1_790_000_000_123 } };

  it('decodes an event as msgpackr did, and one it leaves to msgpackr too', () => {
    expect(decodeEvent(7, encodeEvent(event as unknown as StoredEvent))).toStrictEqual(event);
    const withUndefined = Buffer.from([
      0x83,
      ...packr.pack('type').subarray(0),
      ...packr.pack('T'),
      ...packr.pack('version'),
      0x01,
      ...packr.pack('data'),
      0x81,
      0xa1,
      0x61,
      0xd4,
      0x00,
      0x00,
    ]);
    expect(decodeEvent(3, withUndefined)).toStrictEqual({ seq: 3, type: 'T', version: 1, data: { a: undefined } });
  });

  it('says which event cannot be decoded when msgpackr cannot read it either', () => {
    const bytes = encodeEvent(event as unknown as StoredEvent);
    expect(() => decodeEventAt(9, bytes, 0, bytes.length - 2)).toThrow(UndecodableEvent);
  });
});
