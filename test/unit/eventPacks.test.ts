// A pack's bytes (eventPacks.ts): each event's number and stored bytes come back unchanged,
// bytes that are not a pack of the range its key names are an UndecodableEvent naming the
// range, a rewrite replaces one event, or puts one in its place in the order, and a range of
// events is cut into packs of a bounded size.
import { describe, expect, it } from 'vitest';
import { UndecodableEvent } from '../../src/daemon/codec.js';
import { decodePack, encodePack, packRuns, replaced, runOf, valueAt, type StoredRun } from '../../src/daemon/eventPacks.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const run: StoredRun = runOf([5, 6, 8, 2 ** 40], [bytes(1, 2, 3), bytes(), bytes(9), bytes(7, 7)]);
const valuesOf = (r: StoredRun) => r.seqs.map((_, i) => [...valueAt(r, i)]);

/** The error decoding `pack` as the range 5 to 2^40 throws. */
function failure(pack: Uint8Array, last = 2 ** 40): UndecodableEvent {
  try {
    decodePack(pack, 5, last);
  } catch (error) {
    return error as UndecodableEvent;
  }
  throw new Error('decoded');
}

describe('event packs', () => {
  it('give back every event with its number and its bytes unchanged, holes and large numbers included', () => {
    const decoded = decodePack(encodePack(run), 5, 2 ** 40);
    expect(decoded.seqs).toEqual(run.seqs);
    expect(valuesOf(decoded)).toEqual(valuesOf(run));
  });

  it('hand out places in the pack, not copies', () => {
    const pack = encodePack(run);
    const decoded = decodePack(pack, 5, 2 ** 40);
    expect(decoded.bytes.every((b) => b === pack)).toBe(true);
    expect(valueAt(decoded, 0).buffer).toBe(pack.buffer);
  });

  it('refuse bytes cut short, naming the range', () => {
    const pack = encodePack(run);
    const error = failure(pack.subarray(0, pack.length - 1));
    expect(error).toBeInstanceOf(UndecodableEvent);
    expect(error.seq).toBe(5);
    expect(error.message).toContain(`the pack of events #5 to #${2 ** 40}`);
  });

  it('refuse a pack of another format', () => {
    const pack = encodePack(run);
    pack[0] = 9;
    expect(failure(pack).message).toContain('its format is 9');
  });

  it('refuse numbers out of order or outside the range its key names', () => {
    const swapped = encodePack(runOf([6, 5], [bytes(1), bytes(2)]));
    expect(failure(swapped, 6).message).toContain('the entry after #6 says #5');
    expect(failure(encodePack(run), 8).message).toContain(`says #${2 ** 40}`);
    expect(failure(encodePack(runOf([5], [bytes(1)])), 6).message).toContain('its last event is #5');
  });

  it('refuse a length that runs past the end', () => {
    const pack = encodePack(runOf([5], [bytes(1, 2)]));
    pack.writeUInt32BE(3, 9);
    expect(failure(pack, 5).message).toContain("event #5's bytes run past its end");
  });

  it('take a rewritten event in its place, and a missing one at its place in the order', () => {
    const changed = replaced(
      run,
      new Map([
        [6, bytes(4)],
        [7, bytes(3)],
      ]),
    );
    expect(changed.seqs).toEqual([5, 6, 7, 8, 2 ** 40]);
    expect(valuesOf(changed)).toEqual([[1, 2, 3], [4], [3], [9], [7, 7]]);
  });

  it('are cut to a bounded size: in order, every event once, none over the bound unless one event is larger on its own', () => {
    const sizes = [10, 30, 5, 100, 1, 1, 40, 40, 0, 25];
    const events = runOf(
      sizes.map((_, i) => i + 1),
      sizes.map((size, i) => new Uint8Array(size).fill(i)),
    );
    const max = 64;
    const packs = packRuns(events, max);
    expect(packs.flatMap((p) => p.seqs)).toEqual(events.seqs);
    expect(packs.flatMap(valuesOf)).toEqual(valuesOf(events));
    // Only event 4 (100 bytes) is over the bound, alone in its pack.
    expect(packs.filter((part) => encodePack(part).length > max).map((part) => part.seqs)).toEqual([[4]]);
    // Each pack but the last is as full as the bound lets it be: the next event would not have fit.
    packs.slice(0, -1).forEach((part, i) => {
      const next = packs[i + 1]!;
      expect(encodePack(part).length + 12 + next.ends[0]! - next.starts[0]!).toBeGreaterThan(max);
    });
    expect(packRuns(runOf([], []), max)).toEqual([]);
  });
});
