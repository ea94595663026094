// The `events` op's stored records, which `recap export` makes its lines of: every event's
// number and stored bytes come back as they went, and a page cut short says so.
import { describe, expect, it } from 'vitest';
import { eachStored, StoredRecords } from '../../src/protocol/storedRecords.js';

const read = (records: Buffer) => {
  const out: [number, string][] = [];
  eachStored(records, (seq, bytes, start, end) => out.push([seq, Buffer.from(bytes.subarray(start, end)).toString('latin1')]));
  return out;
};

describe('StoredRecords', () => {
  it("gives back each event's number and bytes, from its place in a larger buffer, numbers past 32 bits included", () => {
    const pack = Buffer.from('..first.second..', 'latin1');
    const records = new StoredRecords();
    records.add(1, pack, 2, 7);
    records.add(2 ** 40 + 5, pack, 8, 14);
    records.add(Number.MAX_SAFE_INTEGER, pack, 0, 0);
    expect(records.count).toBe(3);
    expect(read(records.finish())).toEqual([
      [1, 'first'],
      [2 ** 40 + 5, 'second'],
      [Number.MAX_SAFE_INTEGER, ''],
    ]);
  });

  it('says where a page of records is cut short', () => {
    const records = new StoredRecords();
    records.add(7, Buffer.from('value'), 0, 5);
    const whole = records.finish();
    expect(() => read(whole.subarray(0, whole.length - 1))).toThrow('the recap daemon sent a stored event cut short at byte 0');
    expect(() => read(whole.subarray(0, 5))).toThrow('cut short at byte 0');
    expect(read(Buffer.alloc(0))).toEqual([]);
  });
});
