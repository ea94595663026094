// terminalLine: a pino record as the line a person at a terminal reads.
import { describe, expect, it } from 'vitest';
import { terminalLine } from '../../src/daemon/terminalLog.js';

describe('terminalLine', () => {
  const time = new Date(2026, 10, 29, 9, 5, 7).getTime();

  it('gives the time, the level, the message and the other fields as key=value, quoting what has spaces', () => {
    const record = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', name: 'recapd', msg: 'slow', socket: '/run/r.sock', events: 3, why: 'two words' });
    expect(terminalLine(record)).toBe('09:05:07 WARN slow socket=/run/r.sock events=3 why="two words"\n');
  });

  it('gives an error by its message', () => {
    expect(terminalLine(JSON.stringify({ level: 50, time, msg: 'failed', err: { type: 'Error', message: 'disk full', stack: 'at x' } }))).toBe(
      '09:05:07 ERROR failed err="disk full"\n',
    );
  });

  it('gives a line that is not JSON as it is', () => {
    expect(terminalLine('plain text')).toBe('plain text\n');
  });
});
