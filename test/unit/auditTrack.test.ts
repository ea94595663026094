// A track's arrays: numbers kept in 32 bits while they fit, 64 once one does not; times in 32
// bits as their distance above their block's first; made once at the size the build asks for; and counts carried from window to window that equal the
// marks a fold of the whole log holds.
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/events/events.js';
import { Points, Track } from '../../src/daemon/auditTrack.js';

const at = (seq: number, type: string, data: Record<string, unknown>) => ({ seq, type, version: 1, data: { job: 'j', time: 1000 * seq, ...data } }) as unknown as StoredEvent;
const prompt = (seq: number, tokens: number) => at(seq, 'InteractionRecorded', { kind: 'prompt', text: '', tokens, counted: true });
const values = (points: Points) => [...points.v.values(points.n)];
const times = (points: Points) => [...points.t.values(points.n)];
const DAY = 86_400_000;

describe('a track of the audit index', () => {
  it('keeps whole numbers in 32 bits and every number as it is once one is not whole', () => {
    const points = new Points();
    points.push(1, 7);
    points.push(2, 2 ** 32 - 1);
    expect(points.v.bytesPerNumber).toBe(4);
    points.push(3, 2.5);
    expect(points.v.bytesPerNumber).toBe(8);
    expect(values(points)).toEqual([7, 2 ** 32 - 1, 2.5]);
  });

  it('keeps times since 1970 in 32 bits over a long job, and every time as it was', () => {
    const points = new Points();
    const start = Date.UTC(2026, 0, 1);
    // 100,000 points over a year: each block of 4,096 spans about 15 days.
    const written = Array.from({ length: 100_000 }, (_, i) => start + Math.floor((i * 365 * DAY) / 100_000));
    for (const time of written) points.push(time, 1);
    expect(points.t.bytesPerNumber).toBe(4);
    expect(times(points)).toEqual(written);
    expect(points.indexAt(written[50_000]!)).toBe(50_000);
  });

  it('widens times when one block spans more than 32 bits of milliseconds, or one is a fraction, and keeps them all', () => {
    const start = Date.UTC(2026, 0, 1);
    const gap = new Points();
    gap.push(start, 1);
    gap.push(start + 60 * DAY, 2);
    expect(gap.t.bytesPerNumber).toBe(8);
    expect(times(gap)).toEqual([start, start + 60 * DAY]);
    const fraction = new Points();
    fraction.push(start, 1);
    fraction.push(start + 0.5, 2);
    expect(times(fraction)).toEqual([start, start + 0.5]);
    // A whole step between fractions that does not give the second back exactly.
    const thirds = new Points();
    thirds.push(2 / 3, 1);
    thirds.push(5 / 3, 2);
    expect(times(thirds)).toEqual([2 / 3, 5 / 3]);
  });

  it('copies a column into another whose blocks start elsewhere', () => {
    const start = Date.UTC(2026, 0, 1);
    const first = new Points();
    for (let i = 0; i < 5000; i += 1) first.push(start + i * 1000, i);
    const second = new Points();
    for (let i = 5000; i < 9000; i += 1) second.push(start + i * 1000, i);
    first.append(second);
    expect(first.t.bytesPerNumber).toBe(4);
    expect(times(first)).toEqual(Array.from({ length: 9000 }, (_, i) => start + i * 1000));
    expect(values(first)).toEqual(Array.from({ length: 9000 }, (_, i) => i));
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
    for (let i = 0; i < 1000; i += 1) points.push(i, i);
    expect(points.t.capacity).toBe(1000);
    expect(points.v.capacity).toBe(1000);
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
