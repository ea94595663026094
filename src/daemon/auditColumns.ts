// A column of numbers as an audit chunk keeps it (auditChunks.ts): times, sequence numbers,
// token counts. Where every step between neighbours is a 32-bit integer, the first number and
// the steps, each as a zigzag varint (most take one or two bytes, where the numbers would take
// eight); else the numbers themselves. A chunk is read whole by the first `recap ui`, so its
// size is the memory that read maps in.
import { Numbers } from './auditTrack.js';

export type Column = { from: number; n: number; varints: Uint8Array } | { values: Uint8Array };

/** The column of `values`. */
export function column(values: Float64Array): Column {
  const from = values[0] ?? 0;
  const bytes = new Uint8Array(values.length * 5);
  let at = 0;
  let previous = from;
  for (const value of values) {
    const step = value - previous;
    // A step that does not give the number back exactly (a fraction's rounding) keeps the numbers as they are.
    if (!Number.isInteger(step) || step < -(2 ** 31) || step >= 2 ** 31 || previous + step !== value)
      return { values: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
    // Zigzag: the sign in the lowest bit; then seven bits a byte, the lowest first, the high bit saying more follow.
    let zigzag = ((step << 1) ^ (step >> 31)) >>> 0;
    while (zigzag >= 0x80) {
      bytes[at++] = (zigzag & 0x7f) | 0x80;
      zigzag >>>= 7;
    }
    bytes[at++] = zigzag;
    previous = value;
  }
  return { from, n: values.length, varints: bytes.slice(0, at) };
}

/** A column of a chunk: how many numbers it holds, and a reader that sets them in `numbers` in order (false: its bytes do not hold that many). */
type ColumnReader = { n: number; into: (numbers: Numbers) => boolean };

/**
 * A column's reader, or undefined when it is not one. The bytes are a view into the chunk, at
 * any alignment (numbers in the little-endian order of every platform recap runs on): read in
 * place, not copied.
 */
export function columnOf(column: unknown): ColumnReader | undefined {
  if (column === null || typeof column !== 'object') return undefined;
  const { values, from, n, varints } = column as { values?: unknown; from?: unknown; n?: unknown; varints?: unknown };
  if (values instanceof Uint8Array && values.byteLength % 8 === 0) {
    const view = new DataView(values.buffer, values.byteOffset, values.byteLength);
    const count = values.byteLength / 8;
    return {
      n: count,
      into: (numbers) => {
        for (let i = 0; i < count; i += 1) numbers.set(i, view.getFloat64(i * 8, true));
        return true;
      },
    };
  }
  // Every step takes a byte at least: a count beyond the bytes is refused before anything is sized by it.
  if (!(varints instanceof Uint8Array) || typeof from !== 'number' || !Number.isSafeInteger(n) || (n as number) < 0 || (n as number) > varints.byteLength) return undefined;
  return { n: n as number, into: (numbers) => readVarints(varints, from, n as number, numbers) };
}

/** Sets `n` numbers from `from` and the steps in `bytes`; false when the bytes hold another count of steps. */
function readVarints(bytes: Uint8Array, from: number, n: number, numbers: Numbers): boolean {
  let value = from;
  let at = 0;
  for (let i = 0; i < n; i += 1) {
    let zigzag = 0;
    let shift = 0;
    let byte: number;
    do {
      if (at === bytes.length || shift > 28) return false;
      byte = bytes[at++]!;
      zigzag |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    value += (zigzag >>> 1) ^ -(zigzag & 1);
    numbers.set(i, value);
  }
  return at === bytes.length;
}

/** A column's numbers in an array, or undefined when it is not one. */
export function floatsOf(column: unknown): number[] | undefined {
  const reader = columnOf(column);
  if (!reader) return undefined;
  const numbers = new Numbers(false);
  numbers.resize(reader.n, 0);
  return reader.into(numbers) ? [...numbers.values(reader.n)] : undefined;
}
