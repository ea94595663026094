// A column of an audit chunk: numbers read back as they were written, steps of one or two
// bytes each where the numbers would take eight, and bytes that do not hold the column's count
// of steps not used.
import { describe, expect, it } from 'vitest';
import { column, columnOf, floatsOf } from '../../src/daemon/auditColumns.js';

describe('a column of an audit chunk', () => {
  it('reads back every number, whatever its steps: up, down, zero, and the largest 32-bit ones', () => {
    const written = [1_790_000_000_000, 1_790_000_002_600, 1_790_000_002_600, 1_790_000_000_000, 1_790_000_000_000 + 2 ** 31 - 1, 1_790_000_000_000 - 1];
    expect(floatsOf(column(Float64Array.from(written)))).toEqual(written);
    expect(floatsOf(column(new Float64Array(0)))).toEqual([]);
  });

  it('takes a byte or two for each step of times a few seconds apart, not eight', () => {
    const times = Float64Array.from({ length: 10_000 }, (_, i) => 1_790_000_000_000 + i * 2_600 + (i % 7));
    const written = column(times);
    expect('varints' in written && written.varints.byteLength).toBeLessThanOrEqual(2 * times.length);
    expect(floatsOf(written)).toEqual([...times]);
  });

  it('keeps numbers whose steps are not 32-bit integers, or do not give them back exactly, as they are', () => {
    expect(floatsOf(column(Float64Array.from([2 / 3, 5 / 3])))).toEqual([2 / 3, 5 / 3]);
    const written = [2.6, 3.9, 2 ** 40];
    const kept = column(Float64Array.from(written));
    expect('values' in kept).toBe(true);
    expect(floatsOf(kept)).toEqual(written);
  });

  it('is not used when its bytes hold fewer or more steps than it says, or a step runs past five bytes', () => {
    const written = column(Float64Array.from([10, 20, 30]));
    if (!('varints' in written)) throw new Error('expected steps');
    expect(floatsOf({ ...written, n: 4 })).toBeUndefined();
    expect(floatsOf({ ...written, n: 2 })).toBeUndefined();
    expect(floatsOf({ from: 0, n: 1, varints: Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]) })).toBeUndefined();
    expect(columnOf({ from: 0, n: -1, varints: new Uint8Array(0) })).toBeUndefined();
    // A count no bytes could hold is refused before anything is sized by it.
    expect(columnOf({ from: 0, n: 2 ** 31, varints: new Uint8Array(1) })).toBeUndefined();
    expect(columnOf({ values: new Uint8Array(7) })).toBeUndefined();
  });
});
