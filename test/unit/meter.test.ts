// The audit page's meter must read exactly as the job state's unsummarized tokens, event by
// event, on any mix of counted and uncounted interactions and summaries covering any prefix.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/events/events.js';
import { evolve, initialJobState } from '../../src/events/jobState.js';
import { Meter } from '../../src/events/meter.js';

/** A small deterministic generator, so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function history(seed: number, length: number): StoredEvent[] {
  const next = random(seed);
  const events: StoredEvent[] = [];
  for (let seq = 1; seq <= length; seq += 1) {
    const time = seq * 1000;
    if (next() < 0.85 || events.length === 0) {
      events.push({ seq, version: 1, type: 'InteractionRecorded', data: { job: 'j', kind: 'prompt', text: '', tokens: Math.floor(next() * 300), counted: next() < 0.8, time } });
    } else {
      // A summary covering up to some earlier event, as a topic's or a rollup's may.
      const coversThrough = Math.floor(next() * seq);
      events.push({
        seq,
        version: 1,
        type: 'SummaryAccepted',
        data: { job: 'j', level: 0, sections: [], text: '', tokens: 1, coversThrough, prevHash: '', hash: '', time },
      });
    }
  }
  return events;
}

describe('Meter', () => {
  it('reads as the job state does after every event', () => {
    for (let seed = 1; seed <= 50; seed += 1) {
      const meter = new Meter();
      const state = initialJobState('j');
      for (const event of history(seed, 400)) {
        meter.apply(event);
        evolve(state, event);
        expect(meter.value, `seed ${seed}, event #${event.seq}`).toBe(state.unsummarizedTokens);
      }
    }
  });

  it('keeps reading right after dropping a long prefix of a long pending list', () => {
    const meter = new Meter();
    const state = initialJobState('j');
    const events: StoredEvent[] = [];
    for (let seq = 1; seq <= 10_000; seq += 1) {
      events.push({ seq, version: 1, type: 'InteractionRecorded', data: { job: 'j', kind: 'prompt', text: '', tokens: seq % 13, counted: true, time: seq } });
    }
    for (const [i, coversThrough] of [6000, 6001, 9000, 10_000].entries()) {
      const data = { job: 'j', level: 0, sections: [], text: '', tokens: 1, coversThrough, prevHash: '', hash: '', time: 20_000 + i };
      events.push({ seq: 10_001 + i, version: 1, type: 'SummaryAccepted', data });
    }
    for (const event of events) {
      meter.apply(event);
      evolve(state, event);
      expect(meter.value).toBe(state.unsummarizedTokens);
    }
  });

  it('moves on counted interactions and on every summary, not on uncounted ones', () => {
    const meter = new Meter();
    const [first, second] = history(7, 2);
    const uncounted = { ...first!, data: { ...first!.data, counted: false } } as StoredEvent;
    expect(meter.apply(uncounted)).toBe(false);
    expect(meter.apply({ ...second!, type: 'InteractionRecorded', data: { job: 'j', kind: 'prompt', text: '', tokens: 5, counted: true, time: 1 } } as StoredEvent)).toBe(true);
    expect(
      meter.apply({
        seq: 3,
        version: 1,
        type: 'SummaryAccepted',
        data: { job: 'j', level: 0, sections: [], text: '', tokens: 1, coversThrough: 0, prevHash: '', hash: '', time: 2 },
      }),
    ).toBe(true);
    expect(meter.value).toBe(5);
  });
});
