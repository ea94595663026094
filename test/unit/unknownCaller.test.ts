// Where the system cannot tell who calls (macOS tells a session only for its leader; a
// platform with no way to learn a socket's peer), the user's commands are neither refused
// outright nor run unasked: the rule says it cannot tell, and what each command then needs.
import { describe, expect, it } from 'vitest';
import { AGENT_MARKS } from '../../src/agents/marks.js';
import { judgeCaller, whenCallerUnknown, type Proc } from '../../src/events/caller.js';
import { Confirmations } from '../../src/daemon/confirmations.js';

const proc = (pid: number, ppid: number, comm: string, fields: Partial<Proc> = {}): Proc => ({
  pid,
  ppid,
  comm,
  state: 'S',
  sid: fields.sid,
  tty: fields.tty ?? 0,
  argv: fields.argv ?? [comm],
  env: fields.env ?? new Map(),
});

// As macOS tells them: launchd and session leaders with their session, the rest without.
const launchd = proc(1, 0, 'launchd', { sid: 1 });
const terminal = proc(611, 1, 'Terminal', { sid: 611 });
const shell = proc(613, 612, '-zsh', { tty: 5 });
const login = proc(612, 611, 'login', { sid: 612, tty: 5 });
const cli = (parent: Proc, fields: Partial<Proc> = {}) => proc(2000, parent.pid, 'node', { tty: parent.tty, ...fields });

describe('a caller whose session is not told', () => {
  it("is the user's when a session leader under launchd has a terminal below it", () => {
    expect(judgeCaller([[cli(shell), shell, login, terminal, launchd]], AGENT_MARKS).user).toBe(true);
  });

  it('cannot be told when the process under launchd leads no session (left to it, or started in its session)', () => {
    const left = proc(900, 1, 'python3', { tty: 5 });
    expect(judgeCaller([[cli(left), left, launchd]], AGENT_MARKS)).toEqual({
      user: false,
      unknowable: true,
      why: expect.stringContaining('this system does not tell which session python3 900 is in'),
    });
  });

  it("is refused, not unknowable, when an agent's variable is seen anywhere in its ancestry", () => {
    const left = proc(900, 1, 'python3', { env: new Map([['CLAUDECODE', '1']]) });
    const verdict = judgeCaller([[cli(left), left, launchd]], AGENT_MARKS);
    expect(verdict).toMatchObject({ user: false, why: expect.stringContaining('CLAUDECODE is set') });
    expect(verdict).not.toHaveProperty('unknowable');
  });

  it('is refused when one holder is an agent, even if another cannot be told', () => {
    const left = proc(900, 1, 'python3');
    const agent = proc(950, 1, 'bash', { sid: 950, env: new Map([['CODEX_THREAD_ID', 't']]) });
    expect(
      judgeCaller(
        [
          [left, launchd],
          [agent, launchd],
        ],
        AGENT_MARKS,
      ),
    ).not.toHaveProperty('unknowable');
  });
});

describe('what a user command needs when its caller cannot be told', () => {
  it('runs those that only make recap stricter, asks for every other', () => {
    expect(whenCallerUnknown('resume')).toBe('run');
    expect(whenCallerUnknown('trip')).toBe('run');
    for (const command of ['pause', 'trip --cancel', 'config allow', 'reload', 'stop', 'amend', 'redact']) expect(whenCallerUnknown(command)).toBe('ask');
  });
});

describe('the words that confirm a command', () => {
  it('confirm the command they were asked for, once', () => {
    const words = new Confirmations(() => 0);
    const word = words.ask('pause');
    expect(words.take('trip --cancel', word)).toBe(false);
    const again = words.ask('pause');
    expect(words.take('pause', again)).toBe(true);
    expect(words.take('pause', again)).toBe(false);
  });

  it('expire after two minutes', () => {
    let now = 0;
    const words = new Confirmations(() => now);
    const word = words.ask('pause');
    now = 120_001;
    expect(words.take('pause', word)).toBe(false);
  });

  it('are voided for their command by a wrong one, and left alone by none given', () => {
    const words = new Confirmations(() => 0);
    const word = words.ask('pause');
    expect(words.take('pause', undefined)).toBe(false);
    expect(words.take('pause', 'zzzzzz')).toBe(false);
    expect(words.take('pause', word)).toBe(false);
  });
});
