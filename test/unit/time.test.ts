// Reading the times users type, and showing times in their zone.
import { describe, expect, it } from 'vitest';
import { BadTime, localTime, readTime } from '../../src/client/time.js';
import { editDistance, nearNames } from '../../src/common/nearNames.js';

const NOW = new Date(2026, 10, 22, 15, 30, 0);

describe('readTime', () => {
  it('reads a span ago, a local clock time today and ISO 8601, saying which it took', () => {
    expect(readTime('2h', NOW)).toMatchObject({ ms: NOW.getTime() - 7_200_000, took: expect.stringMatching(/^2 hours ago, /) });
    expect(readTime('1d', NOW).took).toMatch(/^1 day ago, /);
    expect(readTime('14:02', NOW)).toMatchObject({ ms: new Date(2026, 10, 22, 14, 2).getTime(), took: expect.stringMatching(/^local time today, 2026-11-22 14:02:00 /) });
    expect(readTime('09:05:07', NOW).ms).toBe(new Date(2026, 10, 22, 9, 5, 7).getTime());
    expect(readTime('2026-11-20T08:15', NOW)).toMatchObject({ ms: new Date(2026, 10, 20, 8, 15).getTime(), took: expect.stringMatching(/^ISO 8601, local time, /) });
    expect(readTime('2026-11-20', NOW).ms).toBe(new Date(2026, 10, 20).getTime());
    expect(readTime('2026-11-20T08:15:00.250Z', NOW)).toMatchObject({ ms: Date.UTC(2026, 10, 20, 8, 15, 0, 250), took: expect.stringMatching(/^ISO 8601, /) });
    expect(readTime('2026-11-20T08:15+02:00', NOW).ms).toBe(Date.UTC(2026, 10, 20, 6, 15));
  });

  it.each(['99:99', '25:99', '24:00', '12:60', '12:30:61', '2026-02-30', '2026-13-01', '2026-11-20T25:00', 'yesterday', '10x', '', '-2h'])(
    'refuses %j, naming the forms it takes',
    (text) => {
      expect(() => readTime(text, NOW)).toThrow(BadTime);
      expect(() => readTime(text, NOW)).toThrow(/use a local time today \(HH:MM.*ISO 8601.*span ago \(90s, 10m, 2h, 3d\)/);
    },
  );
});

describe('localTime', () => {
  it('shows the local time with its offset', () => {
    const text = localTime(NOW.getTime());
    expect(text).toMatch(/^2026-11-22 15:30:00 [+-]\d\d:\d\d$/);
    const offset = -NOW.getTimezoneOffset();
    expect(text.endsWith(`${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`)).toBe(true);
  });
});

describe('nearNames', () => {
  it('finds names a few typos away or sharing a part, closest first', () => {
    expect(editDistance('alpah', 'alpha')).toBe(2);
    const jobs = ['alpha', 'alphabet-soup', 'beta', 'myrepo-3f2a9c1b', 'zeta'];
    expect(nearNames('alpah', jobs)).toEqual(['alpha']);
    expect(nearNames('alph', jobs)).toEqual(['alpha', 'alphabet-soup']);
    expect(nearNames('myrepo', jobs)).toEqual(['myrepo-3f2a9c1b']);
    expect(nearNames('bta', jobs)).toEqual(['beta', 'zeta']);
    expect(nearNames('unrelated', jobs)).toEqual([]);
  });
});
