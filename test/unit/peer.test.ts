// Reading `ss -xpnH`: process names and socket paths are bytes a process chose, so a line
// break in one must not let it speak for another socket or hide who holds one.
import { describe, expect, it } from 'vitest';
import { AMBIGUOUS, parseSs } from '../../src/platform/linux/ssOutput.js';

const DAEMON = 'u_str ESTAB 0 0 /run/user/1000/recap/recapd.sock 1001 * 2002 users:(("node",pid=10,fd=21))';
const client = (users: string) => `u_str ESTAB 0 0 * 2002 * 1001 ${users}`;

describe('parseSs', () => {
  it('maps each socket to its peer and the pids holding it, names with spaces and several holders too', () => {
    const table = parseSs([DAEMON, client('users:(("my tool",pid=42,fd=3),("sh",pid=43,fd=3))'), ''].join('\n'));
    expect(table.get('1001')).toEqual({ peer: '2002', pids: [10] });
    expect(table.get('2002')).toEqual({ peer: '1001', pids: [42, 43] });
  });

  it('gives no pids for a holder list that is not whole on its line (a name ending its own line)', () => {
    const table = parseSs([DAEMON, client('users:(("",pid=1'), '",pid=42,fd=3))'].join('\n'));
    expect(table.get('2002')).toEqual({ peer: '1001', pids: undefined });
  });

  it('marks a socket listed twice as ambiguous (a forged line claiming it)', () => {
    // A client socket bound to a path that holds a whole line of its own making.
    const forged = 'u_str ESTAB 0 0 /tmp/a\nu_str ESTAB 0 0 * 1001 * 3003 users:(("sh",pid=43,fd=3))\n 2002 * 1001 users:(("py",pid=42,fd=3))';
    expect(parseSs([DAEMON, forged].join('\n')).get('1001')).toBe(AMBIGUOUS);
  });

  it('gives no pids for a name with a quote in it', () => {
    expect(parseSs(client('users:(("a",pid=1,fd=1),",pid=42,fd=3))')).get('2002')).toEqual({ peer: '1001', pids: undefined });
  });
});
