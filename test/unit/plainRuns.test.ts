// The word-at-a-time search for the bytes JSON escapes (plainRuns.ts) must stop exactly where
// a byte-by-byte search would, whatever the bytes and wherever they sit in their buffer.
import { describe, expect, it } from 'vitest';
import { isPlain, PlainRuns } from '../../src/daemon/plainRuns.js';

/** The first byte from `at` to `end` that JSON does not write as it is, one byte at a time. */
function byteByByte(src: Uint8Array, at: number, end: number): number {
  while (at < end && isPlain(src[at]!)) at += 1;
  return at;
}

/** A generator of the same numbers on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state;
  };
}

describe('plain runs', () => {
  it('tells plain bytes as JSON.stringify writes them: unescaped, ASCII', () => {
    for (let c = 0; c < 256; c += 1) {
      const plain = c < 0x80 && JSON.stringify(String.fromCharCode(c)) === `"${String.fromCharCode(c)}"`;
      expect(isPlain(c), `byte ${c}`).toBe(plain);
    }
  });

  it('stops where a byte-by-byte search stops, at every offset and alignment, for every byte JSON escapes', () => {
    const runs = new PlainRuns();
    const random = seeded(7);
    // Each byte that stops a run (and the plain neighbours of those that stop it), alone in a long plain run.
    const stoppers = [0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xc3, 0xff];
    const buffer = new ArrayBuffer(256);
    const wrong: string[] = [];
    for (const stopper of stoppers) {
      for (let offset = 0; offset < 4; offset += 1) {
        const src = new Uint8Array(buffer, offset, 200);
        for (let place = 0; place < 64; place += 1) {
          src.fill(0x61);
          src[place + 20] = stopper;
          for (const at of [0, 1, 2, 3, 5, 19, 20, 21]) {
            for (const end of [200, 100, 23, 22]) {
              if (at > end) continue;
              if (runs.end(src, at, end) !== byteByByte(src, at, end)) wrong.push(`byte ${stopper} at ${place + 20}, offset ${offset}, from ${at} to ${end}`);
            }
          }
        }
      }
    }
    // Random bytes, mostly plain, over buffers of their own.
    for (let round = 0; round < 2000; round += 1) {
      const size = 1 + (random() % 120);
      const whole = new Uint8Array(size + 8);
      for (let i = 0; i < whole.length; i += 1) whole[i] = random() % 40 === 0 ? random() % 256 : 0x20 + (random() % 0x5f);
      const offset = random() % 8;
      const src = whole.subarray(offset, offset + size);
      const at = random() % size;
      if (runs.end(src, at, size) !== byteByByte(src, at, size)) wrong.push(`[${src.join(',')}] from ${at}`);
    }
    expect(wrong).toEqual([]);
  });
});
