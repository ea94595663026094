// A track's arrays: numbers kept in 32 bits while they fit, 64 once one does not; made once
// at the size the build asks for; and counts carried from window to window that equal the
// marks a fold of the whole log holds.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/events/events.js';
import { Points, Track } from '../../src/daemon/auditTrack.js';

const at = (seq: number, type: string, data: Record<string, unknown>) => ({ seq, type, version: 1, data: { job: 'j', time: 1000 * seq, ...data } }) as unknown as StoredEvent;
const prompt = (seq: number, tokens: number) => at(seq, 'InteractionRecorded', { kind: 'prompt', text: '', tokens, counted: true });
const values = (points: Points) => [...points.v.subarray(0, points.n)];

describe('a track of the audit index', () => {
  it('keeps whole numbers in 32 bits and every number as it is once one is not whole', () => {
    const points = new Points();
    points.push(1, 7);
    points.push(2, 2 ** 32 - 1);
    expect(points.v).toBeInstanceOf(Uint32Array);
    points.push(3, 2.5);
    expect(points.v).toBeInstanceOf(Float64Array);
    expect(values(points)).toEqual([7, 2 ** 32 - 1, 2.5]);
  });

  it('widens when appended numbers do not fit, and keeps them all', () => {
    const whole = new Points();
    whole.push(1, 3);
    const other = new Points();
    other.push(2, -4);
    whole.append(other);
    expect(values(whole)).toEqual([3, -4]);
  });

  it('makes a reserved array once: appends up to its size keep the same array', () => {
    const points = new Points();
    points.reserve(1000);
    const [t, v] = [points.t, points.v];
    for (let i = 0; i < 1000; i += 1) points.push(i, i);
    expect(points.t).toBe(t);
    expect(points.v).toBe(v);
    expect(points.t.length).toBe(1000);
  });

  it('carries counts from window to window that equal what one fold of the whole holds', () => {
    const events = [
      prompt(1, 10),
      prompt(2, 20),
      at(3, 'ToolDenied', { tool: 'Read', cause: 'gate' }),
      prompt(4, 5),
      at(5, 'GateTripped', { reason: 'threshold', unsummarizedTokens: 35, limit: 30 }),
      prompt(6, 1),
    ];
    const whole = new Track();
    for (const event of events) whole.apply(event);
    const first = new Track();
    for (const event of events.slice(0, 3)) first.apply(event);
    const second = Track.from(first.carry());
    for (const event of events.slice(3)) second.apply(event);
    expect(second.carry().counts).toEqual([whole.points.n, whole.moments.n, whole.denials.n]);
    expect(second.points.n).toBeLessThan(whole.points.n);
  });
});
