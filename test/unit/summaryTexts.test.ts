// Summary texts on demand: the newest are kept up to a budget, the others are read from the log.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/events/events.js';
import { SummaryTextCache } from '../../src/daemon/summaryTexts.js';

/** A log holding a summary at each of `seqs`, counting the sequence numbers it is asked for. */
function log(seqs: number[]) {
  const asked: number[][] = [];
  const summary = (seq: number) =>
    ({
      type: 'SummaryAccepted',
      seq,
      version: 1,
      data: { job: 'j', level: 0, sections: [], text: `text ${seq}`, tokens: 2, coversThrough: 0, prevHash: '', hash: '', time: 0 },
    }) as StoredEvent;
  return {
    asked,
    get: async (wanted: readonly number[]) => {
      asked.push([...wanted]);
      return wanted.filter((s) => seqs.includes(s)).map(summary);
    },
  };
}

describe('summary texts', () => {
  it('reads from the log only the texts it does not keep', async () => {
    const store = log([1, 2, 3]);
    const texts = new SummaryTextCache(store);
    texts.remember(2, 'kept 2');
    const loaded = await texts.load([1, 2, 3]);
    expect([...loaded]).toEqual([
      [2, 'kept 2'],
      [1, 'text 1'],
      [3, 'text 3'],
    ]);
    expect(store.asked).toEqual([[1, 3]]);
    await texts.load([1, 3]);
    expect(store.asked).toHaveLength(1);
  });

  it('keeps the newest texts within its budget and reads the older ones again', async () => {
    const store = log([1, 2, 3]);
    const texts = new SummaryTextCache(store, 12);
    texts.remember(1, 'text 1');
    texts.remember(2, 'text 2');
    texts.remember(3, 'text 3');
    expect([...(await texts.load([2, 3]))]).toEqual([
      [2, 'text 2'],
      [3, 'text 3'],
    ]);
    expect(store.asked).toEqual([]);
    expect([...(await texts.load([1]))]).toEqual([[1, 'text 1']]);
    expect(store.asked).toEqual([[1]]);
  });

  it('keeps a text larger than its whole budget until the next one comes', async () => {
    const store = log([]);
    const texts = new SummaryTextCache(store, 4);
    texts.remember(7, 'longer than four');
    expect([...(await texts.load([7]))]).toEqual([[7, 'longer than four']]);
    expect(store.asked).toEqual([]);
  });
});
