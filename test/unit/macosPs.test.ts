// macOS's processes as ps(1) prints them (recorded in test/fixtures/macos, written from its
// man page): the table, command lines, environments, and the chains the caller rule judges.
import { describe, expect, it } from 'vitest';
import { AGENT_MARKS } from '../../src/agents/marks.js';
import { judgeCaller } from '../../src/events/caller.js';
import { psChain } from '../../src/platform/macos/processes.js';
import { AMBIGUOUS, environmentOf, parsePsArgs, parsePsTable } from '../../src/platform/macos/psOutput.js';
import { recorded } from '../helpers/fixture.js';

const TABLE = recorded('macos/ps-table.txt');
const ARGS = recorded('macos/ps-args.txt');
const WITH_ENV = recorded('macos/ps-args-env.txt');

/** ps as macos.ts runs it, answered from the recordings. */
const run = (args: readonly string[]) => (args.includes('-A') ? TABLE : args.includes('-E') ? WITH_ENV : ARGS);
const chainOf = (pid: number) => psChain(run, { environment: '-E' }, pid, 64);

describe('the process table (ps -o pid=,ppid=,stat=,tty=,ucomm=)', () => {
  it('reads parent, state, session leadership and terminal, a name with spaces whole', () => {
    const table = parsePsTable(TABLE);
    expect(table.get(612)).toEqual({ pid: 612, ppid: 611, state: 'S', leader: true, tty: 'ttys000', comm: 'login' });
    expect(table.get(700)).toEqual({ pid: 700, ppid: 613, state: 'S', leader: false, tty: 'ttys000', comm: 'node' });
    expect(table.get(900)).toEqual({ pid: 900, ppid: 1, state: 'S', leader: false, tty: undefined, comm: 'watcher helper' });
  });

  it('marks a pid listed twice as ambiguous (a name holding a line break forged the second)', () => {
    const forged = `${TABLE}\n  613   612 Ss     ttys000  -zsh`;
    expect(parsePsTable(forged).get(613)).toBe(AMBIGUOUS);
  });
});

describe('command lines and environments (ps -o pid=,args=, with and without -E)', () => {
  it('takes the environment as what -E adds after the arguments, a value with a space kept whole', () => {
    const args = parsePsArgs(ARGS);
    const withEnv = parsePsArgs(WITH_ENV);
    const env = environmentOf(args.get(702) as string, withEnv.get(702) as string);
    expect(env).toEqual(
      new Map([
        ['HOME', '/Users/ana'],
        ['CLAUDECODE', '1'],
        ['NOTE', 'two words'],
      ]),
    );
  });

  it('gives no environment when the two looks disagree (the process changed between them)', () => {
    expect(environmentOf('node a.js', 'node b.js HOME=/Users/ana')).toBeUndefined();
  });

  it('finds a name a value spells (stricter), and never loses one that is set', () => {
    const env = environmentOf('sh', 'sh NOTE=x CLAUDECODE=1 HOME=/Users/ana');
    expect([...env!.keys()]).toEqual(['NOTE', 'CLAUDECODE', 'HOME']);
  });
});

describe('a chain as macOS tells it', () => {
  it("walks to launchd with each process's arguments, environment and terminal; a session only for its leader", () => {
    const chain = chainOf(702);
    expect(chain.map((p) => p.pid)).toEqual([702, 701, 700, 613, 612, 611, 1]);
    expect(chain.map((p) => p.sid)).toEqual([undefined, 701, undefined, undefined, 612, 611, 1]);
    expect(chain[0]!.argv).toEqual(['node', '/Users/ana/work/recap/bin/recap.js', 'pause', '2h']);
    expect(chain[0]!.tty).toBe(0);
    expect(chain[3]!.tty).not.toBe(0);
    expect(chain[1]!.env.get('CLAUDECODE')).toBe('1');
  });

  it("refuses a command from an agent's shell: its variable is in the environment ps shows", () => {
    const verdict = judgeCaller([chainOf(702)], AGENT_MARKS);
    expect(verdict).toMatchObject({ user: false, why: expect.stringMatching(/CLAUDECODE is set/) });
    expect(verdict).not.toHaveProperty('unknowable');
  });

  it("takes the user's shell in their Terminal window for theirs", () => {
    expect(judgeCaller([chainOf(613)], AGENT_MARKS).user).toBe(true);
  });

  it('says it cannot tell for a process left to launchd that leads no session (macOS does not say which session it is in)', () => {
    expect(judgeCaller([chainOf(900)], AGENT_MARKS)).toMatchObject({ user: false, unknowable: true, why: expect.stringMatching(/does not tell which session/) });
  });
});
