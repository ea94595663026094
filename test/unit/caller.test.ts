// Who may run the user's commands, judged from the caller's processes as /proc shows them.
import { describe, expect, it } from 'vitest';
import { AGENT_MARKS } from '../../src/agents/marks.js';
import type { Proc } from '../../src/platform/platform.js';
import { judgeCaller } from '../../src/events/caller.js';

const proc = (pid: number, ppid: number, comm: string, fields: Partial<Proc> = {}): Proc => ({
  pid,
  ppid,
  comm,
  state: 'S',
  sid: fields.sid ?? 0,
  tty: fields.tty ?? 0,
  argv: fields.argv ?? [comm],
  env: fields.env ?? new Map(),
});

const init = proc(1, 0, 'systemd', { sid: 1 });
const userManager = proc(900, 1, 'systemd', { sid: 900 });
const terminal = proc(1000, 900, 'gnome-terminal-', { sid: 1000 });
const shell = proc(1001, 1000, 'bash', { sid: 1001, tty: 34816 });
const cli = (parent: Proc, fields: Partial<Proc> = {}) =>
  proc(2000, parent.pid, 'node', { sid: parent.sid, tty: parent.tty, argv: ['node', '/usr/lib/node_modules/recap/bin/recap.js', 'pause'], ...fields });

const judge = (...chain: Proc[]) => judgeCaller([chain], AGENT_MARKS);

describe("the user's commands", () => {
  it("are the user's from a shell in their terminal, and name the caller", () => {
    const verdict = judge(cli(shell), shell, terminal, userManager, init);
    expect(verdict).toEqual({ user: true, caller: { pid: 2000, program: 'node', ancestry: 'node 2000 ← bash 1001 ← gnome-terminal- 1000 ← systemd 900 ← systemd 1' } });
  });

  it("are the user's from a process init started in its own session (a console, a container's shell)", () => {
    const runner = proc(50, 1, 'runner', { sid: 1 });
    expect(judge(cli(runner, { sid: 1 }), runner, init).user).toBe(true);
  });

  it("are refused where an agent's variable is in any ancestor's environment", () => {
    const agentShell = proc(1500, 1400, 'bash', { sid: 1001, tty: 34816, env: new Map([['CLAUDECODE', '1']]) });
    const verdict = judge(cli(agentShell), agentShell, shell, terminal, userManager, init);
    expect(verdict).toMatchObject({ user: false, why: expect.stringContaining("which is an agent's (CLAUDECODE is set for bash 1500)") });
  });

  it('are refused below an agent’s own process, with every variable emptied (env -i)', () => {
    const claude = proc(1400, 1001, 'claude', { sid: 1001, tty: 34816 });
    const gemini = proc(1400, 1001, 'node', { sid: 1001, tty: 34816, argv: ['node', '/home/u/.npm/lib/node_modules/@google/gemini-cli/bundle/gemini.js'] });
    expect(judge(cli(claude), claude, shell, terminal, userManager, init)).toMatchObject({ user: false, why: expect.stringContaining('descends from Claude Code (claude 1400)') });
    expect(judge(cli(gemini), gemini, shell, terminal, userManager, init)).toMatchObject({ user: false, why: expect.stringContaining('descends from Gemini CLI (node 1400)') });
  });

  it('are refused from a daemon with no terminal under init or the user manager (setsid, cron, atd)', () => {
    const watcher = proc(3000, 900, 'python3', { sid: 3000 });
    expect(judge(cli(watcher, { sid: 3000 }), watcher, userManager, init)).toMatchObject({
      user: false,
      why: expect.stringContaining('runs in the background with no terminal (python3 3000 leads a session of its own under systemd 900'),
    });
  });

  it('are refused from an orphan cut loose from the session that started it', () => {
    const orphan = proc(3000, 1, 'python3', { sid: 1001, tty: 34816 });
    expect(judge(cli(orphan), orphan, init)).toMatchObject({
      user: false,
      why: expect.stringContaining('was cut loose from the session that started it (python3 3000 was left to systemd 1)'),
    });
  });

  it('are refused when no process can be read, or the chain does not reach init', () => {
    expect(judgeCaller([], AGENT_MARKS)).toEqual({ user: false, why: 'recap could not tell which process sent it' });
    expect(judge(cli(shell), shell).user).toBe(false);
  });

  it('are refused when any holder of the connection is not the user’s', () => {
    const agentShell = proc(1500, 1001, 'bash', { sid: 1001, tty: 34816, env: new Map([['CODEX_THREAD_ID', 't']]) });
    const clean = [cli(shell), shell, terminal, userManager, init];
    expect(judgeCaller([clean, [agentShell, shell, terminal, userManager, init]], AGENT_MARKS).user).toBe(false);
  });
});
